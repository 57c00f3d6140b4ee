// gsd-prompt-guard (PreToolUse: Write|Edit|MultiEdit). Text written into
// .planning/ is read back into later prompts, so it is scanned for injected
// instructions. Advisory only: the write goes through, the agent is told.
// Crash policy: allow (an advisory hook must never block work).
import path from 'node:path';
import { advise, allow, projectRoot, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';
import { advisory, scanText } from './lib/injection.ts';

export function writtenText(input: HookInput): string {
  const t = input.tool_input ?? {};
  const parts: string[] = [];
  for (const key of ['content', 'new_string']) if (typeof t[key] === 'string') parts.push(t[key] as string);
  if (Array.isArray(t.edits)) for (const e of t.edits as { new_string?: unknown }[]) if (typeof e?.new_string === 'string') parts.push(e.new_string);
  return parts.join('\n');
}

export function promptGuard(input: HookInput): HookAnswer {
  const file = input.tool_input?.file_path;
  if (typeof file !== 'string') return allow();
  const cwd = typeof input.cwd === 'string' ? input.cwd : process.cwd();
  const abs = path.resolve(cwd, file);
  const root = projectRoot(cwd) ?? cwd;
  const rel = path.relative(path.join(root, '.planning'), abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return allow();
  const findings = scanText(writtenText(input));
  if (findings.length === 0) return allow();
  const source = `.planning/${rel.split(path.sep).join('/')}`;
  return advise('PreToolUse', advisory(findings, `The text being written to ${source}`), { findings, source });
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-prompt-guard', 'allow', promptGuard);
