// gsd-workflow-guard (PreToolUse: Write|Edit|MultiEdit), opt-in through
// hooks.workflow_guard: true. When a file outside .planning/ is edited while
// no GSD workflow is active (STATE.md status is not executing or planning,
// and no quick task is open), advise routing the change through /gsd-quick so
// it is tracked. Advisory only. Crash policy: allow.
import fs from 'node:fs';
import path from 'node:path';
import { advise, allow, configValue, projectRoot, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';

function workflowActive(root: string): boolean {
  try {
    const text = fs.readFileSync(path.join(root, '.planning', 'STATE.md'), 'utf8');
    const status = /^status:\s*"?(\w+)"?/m.exec(/^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '')?.[1];
    if (status === 'executing' || status === 'planning' || status === 'verifying') return true;
  } catch {
    // no state: no workflow
  }
  try {
    return fs.readdirSync(path.join(root, '.planning', 'quick')).some((d) => fs.existsSync(path.join(root, '.planning', 'quick', d, '.active')));
  } catch {
    return false;
  }
}

export function workflowGuard(input: HookInput): HookAnswer {
  const file = input.tool_input?.file_path;
  const cwd = typeof input.cwd === 'string' ? input.cwd : process.cwd();
  const root = projectRoot(cwd);
  if (typeof file !== 'string' || !root) return allow();
  if (configValue(root, 'hooks.workflow_guard') !== true) return allow();
  const rel = path.relative(root, path.resolve(cwd, file));
  if (rel.startsWith('..') || rel.split(path.sep)[0] === '.planning') return allow();
  if (workflowActive(root)) return allow();
  return advise(
    'PreToolUse',
    `GSD workflow guard: ${rel} is being changed outside a GSD workflow, so the change is not tracked in .planning/. Consider /gsd-quick for small changes or /gsd-execute-phase for planned work.`,
    { code: 'WORKFLOW_ADVISORY', file: rel },
  );
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-workflow-guard', 'allow', workflowGuard);
