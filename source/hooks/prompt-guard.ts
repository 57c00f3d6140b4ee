// gsd-prompt-guard (PreToolUse: Write|Edit|MultiEdit). Text written into
// .planning/ is read back into later prompts, so it is scanned for injected
// instructions. The target is resolved through symlinks (the real path of its
// nearest existing ancestor), so a write through a link into .planning/, or
// to the real folder a linked .planning/ points at, is scanned too.
// Advisory: the write goes through and the agent is told; with
// security.injection_blocking true, a HIGH finding refuses the write.
// Crash policy: allow (an advisory hook must never block work).
import fs from 'node:fs';
import path from 'node:path';
import { advise, allow, configValue, denyTool, projectRoot, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';
import { advisory, scanText, severityOf } from './lib/injection.ts';

export function writtenText(input: HookInput): string {
  const t = input.tool_input ?? {};
  const parts: string[] = [];
  for (const key of ['content', 'new_string']) if (typeof t[key] === 'string') parts.push(t[key] as string);
  if (Array.isArray(t.edits)) for (const e of t.edits as { new_string?: unknown }[]) if (typeof e?.new_string === 'string') parts.push(e.new_string);
  return parts.join('\n');
}

/** The real path of `p`: its nearest existing ancestor resolved through symlinks, the rest appended. */
export function realPathOf(p: string): string {
  const tail: string[] = [];
  let dir = path.resolve(p);
  for (let i = 0; i < 64; i++) {
    try {
      return path.join(fs.realpathSync(dir), ...tail.reverse());
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) break;
      tail.push(path.basename(dir));
      dir = parent;
    }
  }
  return path.resolve(p);
}

const inside = (dir: string, p: string): string | null => {
  const rel = path.relative(dir, p);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? null : rel;
};

/** Where a write lands inside .planning/ (relative to it), or null when it does not. */
export function planningTarget(file: string, cwd: string): string | null {
  const abs = path.resolve(cwd, file);
  const root = projectRoot(cwd) ?? cwd;
  const planning = path.join(root, '.planning');
  const real = realPathOf(abs);
  return inside(realPathOf(planning), real) ?? inside(planning, abs) ?? inside(path.join(realPathOf(root), '.planning'), real);
}

export function promptGuard(input: HookInput): HookAnswer {
  const file = input.tool_input?.file_path;
  if (typeof file !== 'string') return allow();
  const cwd = typeof input.cwd === 'string' ? input.cwd : process.cwd();
  const rel = planningTarget(file, cwd);
  if (rel === null) return allow();
  const findings = scanText(writtenText(input));
  if (findings.length === 0) return allow();
  const severity = severityOf(findings);
  const source = `.planning/${rel.split(path.sep).join('/')}`;
  const message = advisory(findings, `The text being written to ${source}`);
  if (severity === 'HIGH' && configValue(projectRoot(cwd), 'security.injection_blocking') === true) {
    return denyTool(`${message} The write was refused (security.injection_blocking).`, { findings, severity, source });
  }
  return advise('PreToolUse', message, { findings, severity, source });
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-prompt-guard', 'allow', promptGuard);
