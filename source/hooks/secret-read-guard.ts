// gsd-secret-read-guard (PreToolUse: Read|Grep|Bash). Refuses tool calls
// that would show the agent a secret file: .env and its variants, SSH and
// other private keys, credential files (secret-patterns.json, plus any a
// project adds in security.secret_patterns). Shell commands are parsed with
// real Bash and PowerShell grammars (tree-sitter) and judged by what each
// command does with its words (lib/secret/). Crash policy: deny (a guard
// that fails must fail closed).
import path from 'node:path';
import { allow, configValue, denyTool, projectRoot, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';
import { checkCommand, checkPath, checkSearch } from './lib/secret/check.ts';
import { defaultPatterns, extraPatterns, SecretPatterns } from './lib/secret/patterns.ts';
import type { Shell } from './lib/secret/parsers.ts';

/** Is this path, by its name alone, a secret file? */
export function isSecretPath(p: string, patterns: SecretPatterns = defaultPatterns()): boolean {
  return patterns.pathMatch(p) !== null;
}

/** The first reason a Bash command line would read a secret, or null. */
export async function bashReadsSecret(command: string, opts: { cwd?: string; shell?: Shell | 'both' } = {}): Promise<string | null> {
  const reasons = await checkCommand(command, opts.shell ?? 'bash', opts.cwd ? { cwd: opts.cwd } : {});
  return reasons[0] ?? null;
}

const TOOL_FIELDS = ['toolName', 'tool', 'tool_name_original', 'agent_action_name'];

/**
 * Which shell runs the command: PowerShell when the runtime's own tool name
 * says so; Bash for Claude Code (Git Bash on Windows too) and on macOS and
 * Linux; both grammars when a Windows runtime does not say.
 */
export function shellOf(input: HookInput): Shell | 'both' {
  const names = [input.tool_name, ...TOOL_FIELDS.map((k) => input[k])].filter((v): v is string => typeof v === 'string');
  if (names.some((n) => /^(powershell|pwsh)$/i.test(n) || /powershell/i.test(n))) return 'powershell';
  if (process.platform === 'win32' && !process.argv.slice(2).every((a) => a !== '--runtime' && !a.startsWith('--runtime='))) return 'both';
  if (process.platform === 'win32' && input.tool_name !== 'Bash') return 'both';
  return 'bash';
}

function patternsFor(cwd: string): SecretPatterns {
  const extra = extraPatterns(configValue(projectRoot(cwd), 'security.secret_patterns'));
  return extra.length ? new SecretPatterns(extra) : defaultPatterns();
}

const deny = (what: string, reasons: string[]): HookAnswer =>
  denyTool(
    `GSD secret guard: ${what} is blocked: ${reasons.slice(0, 3).join('; ')}. Secret files (.env, keys, credentials) stay out of the agent's sight. Ask the user for the specific value you need, or read a template such as .env.example.`,
  );

export async function secretReadGuard(input: HookInput): Promise<HookAnswer> {
  const t = input.tool_input ?? {};
  const cwd = typeof input.cwd === 'string' && input.cwd ? input.cwd : process.cwd();
  const patterns = patternsFor(cwd);
  const opts = { cwd, patterns };
  if (input.tool_name === 'Read') {
    for (const key of ['file_path', 'path', 'notebook_path']) {
      const v = t[key];
      if (typeof v === 'string') {
        const r = checkPath(v, opts);
        if (r.length) return deny(`reading ${v}`, r);
      }
    }
    return allow();
  }
  if (input.tool_name === 'Grep') {
    const p = typeof t.path === 'string' && t.path ? t.path : '.';
    const r = checkPath(p, opts);
    if (r.length) return deny(`searching ${p}`, r);
    const glob = typeof t.glob === 'string' && t.glob ? t.glob : undefined;
    if (glob) {
      const g = checkSearch(path.resolve(cwd, p), glob, opts);
      if (g.length) return deny(`searching ${p} with the filter ${glob}`, g);
    }
    // Matching lines are shown only in content mode; names and counts give no value away.
    const showsLines = t.output_mode === 'content';
    if (showsLines && !glob && typeof t.type !== 'string') {
      const g = checkSearch(path.resolve(cwd, p), undefined, opts);
      if (g.length) return deny(`searching ${p}`, g);
    }
    return allow();
  }
  if (input.tool_name === 'Bash' && typeof t.command === 'string') {
    const r = await checkCommand(t.command, shellOf(input), opts);
    if (r.length) return deny('this command', r);
  }
  return allow();
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-secret-read-guard', 'deny', secretReadGuard);
