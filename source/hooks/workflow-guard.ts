// gsd-workflow-guard (PreToolUse: Write|Edit|MultiEdit), opt-in through
// hooks.workflow_guard: true. When a file outside .planning/ is edited while
// no GSD workflow is at work, advise routing the change through /gsd-quick so
// it is tracked. Advisory only. Crash policy: allow.
//
// "At work" is read from what the workflows leave on disk, nothing else:
// - STATE.md's frontmatter status is one the vocabulary marks active
//   (runtime/planning/state-status.json: discussing, planning, executing,
//   verifying), or
// - a quick task is open: a folder .planning/quick/<id>-<slug>/ holds its
//   <id>-PLAN.md but not yet its <id>-SUMMARY.md. /gsd-quick writes the plan
//   before any code changes and the summary once the executor is done, so
//   that window is exactly when its edits happen. A plan untouched for
//   QUICK_STALE_MS (an abandoned task) no longer counts.
import fs from 'node:fs';
import path from 'node:path';
import { advise, allow, configValue, projectRoot, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';

/**
 * The statuses runtime/planning/state-status.json marks `active`. A hook
 * imports only ./lib/, so the set is written out here; test/guards.test.ts
 * fails when it and the vocabulary disagree.
 */
export const ACTIVE_STATUSES: readonly string[] = ['discussing', 'planning', 'executing', 'verifying'];
const ACTIVE = new Set(ACTIVE_STATUSES);
export const QUICK_STALE_MS = 24 * 60 * 60 * 1000;

function stateActive(root: string): boolean {
  try {
    const text = fs.readFileSync(path.join(root, '.planning', 'STATE.md'), 'utf8');
    const status = /^status:\s*["']?([\w-]+)["']?/m.exec(/^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '')?.[1];
    return status !== undefined && ACTIVE.has(status);
  } catch {
    return false; // no state: no workflow
  }
}

/** The folder of an open quick task (plan written, summary not yet), or null. */
export function openQuickTask(root: string, now = Date.now()): string | null {
  const quick = path.join(root, '.planning', 'quick');
  let names: string[];
  try {
    names = fs.readdirSync(quick);
  } catch {
    return null;
  }
  for (const name of names.sort().reverse()) {
    const id = /^(\d{1,4})-/.exec(name)?.[1];
    if (!id) continue;
    const dir = path.join(quick, name);
    try {
      const plan = fs.statSync(path.join(dir, `${id}-PLAN.md`));
      if (fs.existsSync(path.join(dir, `${id}-SUMMARY.md`))) continue;
      if (now - plan.mtimeMs > QUICK_STALE_MS) continue;
      return path.relative(root, dir);
    } catch {
      continue;
    }
  }
  return null;
}

function workflowActive(root: string): boolean {
  return stateActive(root) || openQuickTask(root) !== null;
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
