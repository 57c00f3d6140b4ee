// gsd-validate-commit (PreToolUse: Bash). Checks the message of a
// `git commit -m …` against Conventional Commits (type(scope)!: subject) and
// blocks the call with the reason when it does not match. Opt-in: it does
// nothing unless hooks.conventional_commits is true (default false, as
// upstream GSD), since a project's own commit style is not GSD's to impose.
// Messages from an editor or a file (no -m) are not seen and pass.
// Crash policy: allow (a broken validator must not stop commits).
import { allow, configValue, denyTool, projectRoot, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';

export const TYPES = ['feat', 'fix', 'docs', 'style', 'refactor', 'perf', 'test', 'build', 'ci', 'chore', 'revert'];
const HEADER = new RegExp(`^(?:${TYPES.join('|')})(?:\\([\\w./-]+\\))?!?: \\S.*$`);

/** Split a shell command into words, honouring quotes (enough for `git commit -m`). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let has = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < command.length) cur += command[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (/\s/.test(c) || c === ';' || c === '&' || c === '|') {
      if (has || cur) words.push(cur);
      if (c === ';' || c === '&' || c === '|') words.push(c);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has || cur) words.push(cur);
  return words;
}

/** The -m/--message values of every `git commit` in the command. */
export function commitMessages(command: string): string[] {
  const words = shellWords(command);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] !== 'git') continue;
    let j = i + 1;
    while (j < words.length && words[j]!.startsWith('-')) j += words[j] === '-C' || words[j] === '-c' ? 2 : 1;
    if (words[j] !== 'commit') continue;
    const parts: string[] = [];
    for (let k = j + 1; k < words.length && !/^[;&|]$/.test(words[k]!); k++) {
      const w = words[k]!;
      if (w === '-m' || w === '--message') parts.push(words[++k] ?? '');
      else if (w.startsWith('--message=')) parts.push(w.slice(10));
      else if (/^-[a-zA-Z]*m$/.test(w) && w.length > 2) parts.push(words[++k] ?? '');
      else if (/^-m.+/.test(w)) parts.push(w.slice(2));
    }
    if (parts.length) out.push(parts.join('\n\n'));
  }
  return out;
}

export function checkMessage(message: string): string | null {
  const header = message.split('\n')[0]!.trim();
  if (/^(?:Merge|Revert ")/.test(header) || /^(?:fixup|squash|amend)! /.test(header)) return null;
  if (!HEADER.test(header)) return `"${header}" is not a Conventional Commit header: use <type>(<scope>)?: <subject> with type one of ${TYPES.join(', ')}`;
  if (header.length > 100) return `the commit header is ${header.length} characters; keep it under 100`;
  return null;
}

export function validateCommit(input: HookInput): HookAnswer {
  const command = input.tool_input?.command;
  if (typeof command !== 'string' || !/\bgit\b[\s\S]*\bcommit\b/.test(command)) return allow();
  const root = projectRoot(typeof input.cwd === 'string' ? input.cwd : undefined);
  if (configValue(root, 'hooks.conventional_commits') !== true) return allow();
  for (const m of commitMessages(command)) {
    const problem = checkMessage(m);
    if (problem) return denyTool(`GSD commit check: ${problem}.`);
  }
  return allow();
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-validate-commit', 'allow', validateCommit);
