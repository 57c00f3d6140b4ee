// What a simple command does with its words. The rule of the house: a
// command that names a secret file is refused, unless it is one of a few
// that provably never show a file's contents (SAFE below, each with its
// reason), or a command whose secret words are only written or created
// (`cp .env.example .env`, `python3 -m venv .env`, `echo X=1 >> .env`).
// Commands that run other commands (sudo, env, xargs, find -exec, bash -c,
// pwsh -Command, eval) are unwrapped and the inner command judged.
import type { Node } from 'web-tree-sitter';
import { ANY, OPAQUE, checkRead, checkTree, filterMatches, hasAny, isDirWord, refuse, type Ctx, type TreeRules } from './context.ts';
import { absolute, walk } from './fsview.ts';
import { isLiteral, literal, textOf, type Pattern } from './patterns.ts';
import { codeHeuristic } from './code.ts';

export interface Cmd {
  names: Pattern[];
  args: Pattern[][];
  text: string;
}

export type Stdin =
  | { kind: 'pipe'; from: Node; ctx: Ctx }
  | { kind: 'file' }
  | { kind: 'text'; text: string; dynamic: boolean }
  | { kind: 'names'; values: Pattern[] };

/**
 * Commands that never print, send or copy the contents of the files they
 * name, so a secret name among their words is harmless:
 */
export const SAFE: Record<string, string> = {
  ls: 'lists names and metadata', dir: 'lists names', vdir: 'lists names', tree: 'lists names', stat: 'metadata only', du: 'sizes only', df: 'disk usage',
  test: 'checks existence and type', '[': 'checks existence and type', touch: 'creates or dates a file', rm: 'deletes', rmdir: 'deletes folders', unlink: 'deletes',
  shred: 'destroys contents without printing them', truncate: 'cuts a file, prints nothing', mkdir: 'creates folders', chmod: 'changes modes', chown: 'changes owners',
  chgrp: 'changes groups', chattr: 'changes attributes', echo: 'prints its own words', printf: 'prints its own words', cd: 'changes folder', pushd: 'changes folder', popd: 'changes folder', pwd: 'prints the folder',
  true: 'does nothing', false: 'does nothing', ':': 'does nothing', basename: 'string operation', dirname: 'string operation', realpath: 'prints a path',
  readlink: 'prints a link target', which: 'finds programs', whereis: 'finds programs', type: 'describes a command name', sleep: 'waits', kill: 'signals', wait: 'waits',
  exit: 'exits', return: 'returns', unset: 'forgets variables', tee: 'writes its files, never reads them', mkfifo: 'creates a pipe', mktemp: 'creates a temp file',
  sync: 'flushes disks', date: 'prints the date', whoami: 'prints the user', id: 'prints the user', uname: 'prints the system', hostname: 'prints the host',
  umask: 'sets the mask', ulimit: 'sets limits', jobs: 'lists jobs', clear: 'clears the screen', shopt: 'sets shell options', setopt: 'sets shell options', set: 'sets shell options',
};

/** PowerShell's approved verbs most used in cmdlet names (Get-Content, Test-Path...). */
const PS_VERBS = new Set(['get', 'set', 'test', 'new', 'remove', 'add', 'clear', 'copy', 'move', 'rename', 'write', 'out', 'select', 'import', 'export', 'convertfrom', 'convertto', 'invoke', 'start', 'stop', 'push', 'pop', 'resolve', 'split', 'join', 'measure', 'sort', 'format', 'where', 'foreach', 'compress', 'expand']);

const WRAPPERS: Record<string, { values: string[]; flags?: boolean }> = {
  sudo: { values: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir'] },
  doas: { values: ['-u', '-C'] },
  nice: { values: ['-n', '--adjustment'] },
  nohup: { values: [] },
  time: { values: ['-f', '-o', '--format', '--output'] },
  timeout: { values: ['-s', '-k', '--signal', '--kill-after'] },
  stdbuf: { values: ['-i', '-o', '-e'] },
  ionice: { values: ['-c', '-n', '-p'] },
  setsid: { values: [] },
  unbuffer: { values: [] },
  command: { values: [] },
  builtin: { values: [] },
  exec: { values: ['-a'] },
  caffeinate: { values: ['-t', '-w'] },
  strace: { values: ['-e', '-o', '-p', '-s', '-u'] },
  ltrace: { values: ['-e', '-o', '-p', '-s', '-u'] },
  chronic: { values: [] },
  flock: { values: ['-w', '-E', '-c'] },
};

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'rbash', 'busybox', 'tcsh', 'csh']);
const PWSH = new Set(['pwsh', 'powershell', 'pwsh-preview']);
/** Programs whose -e/-c style option takes code, and the options. */
const INTERPRETERS: Record<string, string[]> = {
  node: ['-e', '--eval', '-p', '--print'], nodejs: ['-e', '--eval', '-p', '--print'], bun: ['-e', '--eval', '-p', '--print'], deno: ['eval', '-e'],
  tsx: ['-e', '--eval', '-p', '--print'], 'ts-node': ['-e', '--eval', '-p', '--print'],
  python: ['-c'], python2: ['-c'], python3: ['-c'], pypy: ['-c'], pypy3: ['-c'], ruby: ['-e'], perl: ['-e', '-E'], php: ['-r', '-R', '-B', '-E'],
  lua: ['-e'], luajit: ['-e'], rscript: ['-e'], r: ['-e'], julia: ['-e', '--eval', '-E', '--print'], osascript: ['-e'], tclsh: [], groovy: ['-e'],
  elixir: ['-e', '--eval'], erl: ['-eval'], awk: [], gawk: [], mawk: [], nawk: [], jq: [], sqlite3: ['-cmd'], swift: ['-e'],
};
const NETWORK = new Set(['curl', 'wget']);
const COPIERS = new Set(['cp', 'mv', 'ln', 'install', 'rsync', 'scp', 'gcp', 'ditto', 'copy', 'move']);
const ARCHIVERS = new Set(['tar', 'bsdtar', 'gtar', 'zip', '7z', '7za', '7zr', 'rar', 'jar', 'cpio', 'pax']);
const GREPS = new Set(['grep', 'egrep', 'fgrep', 'rgrep', 'zgrep', 'ggrep']);
const SEARCHERS = new Set(['rg', 'ag', 'ack', 'ack-grep', 'pt', 'ugrep', 'ug']);
/** git subcommands that never show the contents of the paths they are given. */
const GIT_SAFE: Record<string, string> = {
  status: 'names only', rm: 'deletes or unstages', restore: 'writes from the index', checkout: 'writes from the index', switch: 'changes branch', 'ls-files': 'names only',
  'check-ignore': 'names only', init: 'creates a repository', clone: 'fetches', fetch: 'fetches', pull: 'fetches', push: 'sends commits, not files', branch: 'names only',
  remote: 'remotes', 'rev-parse': 'names only', 'update-index': 'flags only', clean: 'deletes', reset: 'unstages',
};

/** A cluster of one-letter options (`-ec`, `-xc`) that holds `letter`. */
function cluster(w: string, letter: string): boolean {
  if (w.length < 2 || w[0] !== '-' || w[1] === '-') return false;
  for (const ch of w.slice(1)) if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return false;
  return w.includes(letter, 1);
}

const text = (p: Pattern | undefined): string | null => (p && isLiteral(p) ? textOf(p) : null);
const firstText = (alts: Pattern[] | undefined): string | null => (alts && alts.length === 1 ? text(alts[0]) : null);

function checkAll(ctx: Ctx, alts: Pattern[], what: string): boolean {
  let hit = false;
  for (const v of alts) if (checkRead(ctx, v, what)) hit = true;
  return hit;
}

function generic(ctx: Ctx, name: string, args: Pattern[][]): void {
  for (const a of args) checkAll(ctx, a, `${name} is given`);
}

/** Judge one simple command. */
export function judgeCommand(ctx: Ctx, cmd: Cmd, stdin?: Stdin): void {
  for (const nameAlt of cmd.names) {
    const raw = text(nameAlt);
    if (raw === null) {
      // The command itself is only known at run time: every word may be read.
      checkRead(ctx, nameAlt, 'a command whose name is known only at run time, run as');
      if (hasAny(nameAlt) && cmd.args.length === 0 && stdin) refuse(ctx, 'a command whose name is only known at run time reads piped input');
      generic(ctx, 'a command whose name is known only at run time', cmd.args);
      continue;
    }
    if (raw.includes(' ') || raw.includes('\t')) {
      // An unquoted expansion that splits into a command and its words.
      checkRead(ctx, nameAlt, 'a command line held in a variable:');
    }
    judgeNamed(ctx, raw, cmd.args, cmd, stdin);
  }
}

function baseName(raw: string): string {
  const b = raw.split(/[\\/]/).pop() ?? raw;
  return b.toLowerCase().replace(/\.exe$/, '');
}

function judgeNamed(ctx: Ctx, raw: string, args: Pattern[][], cmd: Cmd, stdin?: Stdin): void {
  // Running a secret file as a program: its text ends up in error messages.
  if (raw.includes('/') || raw.includes('\\')) checkRead(ctx, literal(raw), 'runs');
  const name = baseName(raw);
  const words = args.map(firstText);
  // Read as Bash, a PowerShell cmdlet name is a command that is not found: the PowerShell reading judges it.
  if (ctx.both && ctx.shell === 'bash' && PS_VERBS.has(name.split('-')[0] ?? '') && /^[a-z]+-[a-z]+$/.test(name)) return;

  if (name === 'shopt' || name === 'setopt' || name === 'set') {
    if (words.some((w) => w && /dotglob|globdots|glob_dots/i.test(w))) ctx.dotglob = true;
    return;
  }
  if ((name === 'cd' || name === 'pushd') && words[0] && !words[0].startsWith('-') && ctx.cwds.length < 16) ctx.cwds.push(absolute(words[0], ctx.cwd));
  if (Object.hasOwn(SAFE, name)) return;
  if (Object.hasOwn(WRAPPERS, name)) return wrapper(ctx, name, args, cmd, stdin);
  if (name === 'env') return envCommand(ctx, args, cmd, stdin);
  if (name === 'xargs' || name === 'parallel') return xargs(ctx, name, args, stdin);
  if (name === 'find' || name === 'fd' || name === 'fdfind') return find(ctx, name, args);
  if (name === 'eval') return evalCommand(ctx, args);
  if (SHELLS.has(name)) return shell(ctx, name, args, stdin);
  if (PWSH.has(name)) return powershell(ctx, name, args, stdin);
  if (name === 'cmd') return cmdExe(ctx, args);
  if (name === 'git') return git(ctx, args);
  if (COPIERS.has(name)) return copier(ctx, name, args);
  if (name === 'dd') {
    for (const a of args) for (const v of a) {
      const t = text(v);
      if (t === null) checkRead(ctx, v, 'dd is given');
      else if (/^(if|of)=/.test(t) ? t.startsWith('if=') : !/^(bs|ibs|obs|cbs|count|skip|seek|conv|status|iflag|oflag)=/.test(t)) checkRead(ctx, literal(t.replace(/^if=/, '')), 'dd reads');
    }
    return;
  }
  if (name === 'direnv' && ['exec', 'export', 'dump', 'reload'].includes(words[0] ?? '')) return refuse(ctx, `direnv ${words[0]} loads .envrc into the command's environment`);
  if (venv(ctx, name, args)) return;
  if (GREPS.has(name)) return grep(ctx, name, args, cmd);
  if (SEARCHERS.has(name)) return searcher(ctx, name, args);
  if (ARCHIVERS.has(name)) return archiver(ctx, name, args);
  if (name === 'diff' && words.some((w) => w && (/^-[a-zA-Z]*r/.test(w) || w === '--recursive'))) {
    generic(ctx, name, args);
    for (const a of args) for (const v of a) if (!text(v)?.startsWith('-')) checkTree(ctx, v, 'diff -r compares', { followLinks: true });
    return;
  }
  if (name === 'source' || name === '.') {
    generic(ctx, name === '.' ? '. (source)' : 'source', args);
    if (args.length === 0 || words[0] === '/dev/stdin' || words[0] === '-') stdinCode(ctx, stdin, 'bash', name);
    return;
  }
  if (Object.hasOwn(INTERPRETERS, name) || /^python\d(\.\d+)?$/.test(name) || /^(pypy|ruby|perl|php|node)\d[\d.]*$/.test(name)) return interpreter(ctx, name, args, stdin);
  generic(ctx, name, args);
  if (name === 'gh' || name === 'npm' || name === 'pnpm' || name === 'yarn') return;
}

function skipOptions(args: Pattern[][], valueOpts: string[], from = 0): number {
  let i = from;
  while (i < args.length) {
    const w = firstText(args[i]);
    if (w === null || !w.startsWith('-') || w === '-') break;
    if (w === '--') return i + 1;
    i += valueOpts.includes(w) ? 2 : 1;
  }
  return i;
}

function wrapper(ctx: Ctx, name: string, args: Pattern[][], cmd: Cmd, stdin?: Stdin): void {
  const spec = WRAPPERS[name]!;
  if (name === 'command' && args.some((a) => ['-v', '-V'].includes(firstText(a) ?? ''))) return;
  let i = skipOptions(args, spec.values);
  if (name === 'timeout' && i < args.length) i++; // the duration
  if (name === 'flock' && i < args.length) i++; // the lock file
  if (i >= args.length) return;
  judgeCommand(ctx, { names: args[i]!, args: args.slice(i + 1), text: cmd.text }, stdin);
}

function envCommand(ctx: Ctx, args: Pattern[][], cmd: Cmd, stdin?: Stdin): void {
  let i = 0;
  while (i < args.length) {
    const w = firstText(args[i]);
    if (w === null) break;
    if (w === '-S' || w === '--split-string' || w.startsWith('--split-string=') || (w.startsWith('-S') && w.length > 2)) {
      const rest = [w.startsWith('--split-string=') ? w.slice(15) : w.startsWith('-S') && w.length > 2 ? w.slice(2) : '', ...args.slice(i + 1).map((a) => firstText(a) ?? '\u0000')].join(' ').trim();
      if (rest.includes('\u0000')) return refuse(ctx, 'env -S runs a command line known only at run time');
      return ctx.nested('bash', rest, ctx);
    }
    if (w === '-u' || w === '--unset' || w === '-C' || w === '--chdir') i += 2;
    else if (w.startsWith('-')) i++;
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      checkAll(ctx, args[i]!.map((v) => v), 'env sets a variable to');
      i++;
    } else break;
  }
  if (i >= args.length) return;
  judgeCommand(ctx, { names: args[i]!, args: args.slice(i + 1), text: cmd.text }, stdin);
}

/** The file names a command reads from its standard input (xargs), as words. */
function stdinNames(ctx: Ctx, stdin?: Stdin): Pattern[] {
  if (!stdin) return [[ANY]];
  if (stdin.kind === 'text') return stdin.dynamic ? [[ANY]] : tokenWords(stdin.text);
  if (stdin.kind === 'names') return stdin.values;
  if (stdin.kind === 'file') return [[ANY]];
  const from = stdin.from;
  const producer = from.type === 'command' ? from : from.type === 'redirected_statement' ? from.childForFieldName('body') : null;
  if (!producer || producer.type !== 'command') return [[ANY]];
  const nm = producer.childForFieldName('name')?.text ?? '';
  const args = producer.childrenForFieldName('argument');
  if (nm === 'echo' || nm === 'printf') {
    const texts = args.map((a) => a.text.replace(/^['"]|['"]$/g, ''));
    if (texts.every((t) => !/[$`]/.test(t))) return tokenWords(texts.join(' ').replace(/\\n/g, '\n'));
    return [[ANY]];
  }
  if (nm === 'find') return findOutput(ctx, args.map((a) => a.text.replace(/^['"]|['"]$/g, '')));
  return [[ANY]];
}

function tokenWords(s: string): Pattern[] {
  const out = s.split(/\s+/).filter(Boolean).slice(0, 200).map(literal);
  return out.length ? out : [literal('')];
}

/**
 * What `find` prints, as words: the secret files it would list here (its
 * start folders walked, its -name tests applied), or a value that names no
 * secret when it lists none. Start folders known only at run time: anything.
 */
function findOutput(ctx: Ctx, args: string[]): Pattern[] {
  let i = 0;
  while (i < args.length && ['-H', '-L', '-P'].includes(args[i]!)) i++;
  const starts: string[] = [];
  while (i < args.length && !args[i]!.startsWith('-') && args[i] !== '(' && args[i] !== '!') starts.push(args[i++]!);
  if (starts.length === 0) starts.push('.');
  if (starts.some((s) => s.includes('\u0000') || /[$`*?[]/.test(s))) return [[ANY]];
  const alternatives = args.some((a) => ['-o', '-or', '!', '-not', ','].includes(a));
  const names: Pattern[] = [];
  if (!alternatives) for (let k = 0; k < args.length - 1; k++) if (args[k] === '-name' || args[k] === '-iname') names.push(globAtoms(args[k + 1]!));
  const found: Pattern[] = [];
  for (const start of starts) {
    const root = absolute(start, ctx.cwd);
    const hits = walk(root, (rel, abs) => (names.length === 0 || names.every((n) => filterMatches(ctx, n, rel.split('/').pop() ?? rel))) && (ctx.patterns.pathMatch(rel) !== null || ctx.patterns.pathMatch(abs) !== null), 3, args.includes('-L') || args.includes('-follow'));
    if (hits === null) {
      if (ctx.patterns.pathMatch(start)) found.push(literal(start));
      continue;
    }
    for (const h of hits) found.push(literal(start === '.' ? `./${h}` : `${start.replace(/\/$/, '')}/${h}`));
  }
  return found.length ? found : [OPAQUE];
}

function globAtoms(s: string): Pattern {
  return [...s].map((ch) => (ch === '*' ? { k: 'star', dot: false } : ch === '?' ? { k: 'one', dot: false } : { k: 'c', c: ch.codePointAt(0)! })) as Pattern;
}

function xargs(ctx: Ctx, name: string, args: Pattern[][], stdin?: Stdin): void {
  const values = ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-lines', '-j', '--jobs'];
  let i = 0;
  while (i < args.length) {
    const w = firstText(args[i]);
    if (w === null || !w.startsWith('-')) break;
    if (w === '-a' || w === '--arg-file') checkAll(ctx, args[i + 1] ?? [], `${name} reads names from`);
    if (w.startsWith('--arg-file=')) checkRead(ctx, literal(w.slice(11)), `${name} reads names from`);
    i += values.includes(w) ? 2 : 1;
  }
  const inner = args.slice(i);
  if (name === 'parallel' && inner.some((a) => [':::', '::::'].includes(firstText(a) ?? ''))) return generic(ctx, name, inner);
  const names = stdinNames(ctx, stdin);
  if (inner.length === 0) return; // echo: prints the names
  judgeCommand(ctx, { names: inner[0]!, args: [...inner.slice(1), names], text: '' }, { kind: 'names', values: names });
}

function find(ctx: Ctx, name: string, args: Pattern[][]): void {
  const words = args.map((a) => firstText(a) ?? '\u0000');
  for (let i = 0; i < args.length; i++) {
    const w = words[i]!;
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(w) || (name !== 'find' && (w === '-x' || w === '--exec' || w === '-X' || w === '--exec-batch'))) {
      let j = i + 1;
      while (j < args.length && words[j] !== ';' && words[j] !== '+' && words[j] !== '\\;') j++;
      const inner = args.slice(i + 1, j);
      const out = name === 'find' ? findOutput(ctx, words) : [[ANY]];
      const filled = inner.map((a) => (a.length === 1 && text(a[0]) === '{}' ? out : a));
      if (inner.length > 0) judgeCommand(ctx, { names: filled[0]!, args: [...filled.slice(1), ...(inner.some((a) => text(a[0]) === '{}') ? [] : [out])], text: '' });
      i = j;
    } else if (['-fprint', '-fprint0', '-fprintf', '-fls'].includes(w)) i++;
  }
}

function evalCommand(ctx: Ctx, args: Pattern[][]): void {
  const parts = args.map(firstText);
  if (parts.some((p) => p === null)) {
    for (const a of args) for (const v of a) if (hasAny(v)) return refuse(ctx, 'eval runs code that is only known at run time');
    return refuse(ctx, 'eval runs code with several possible values');
  }
  ctx.nested('bash', parts.join(' '), ctx);
}

function stdinCode(ctx: Ctx, stdin: Stdin | undefined, lang: 'bash' | 'powershell' | 'code', who: string): void {
  if (!stdin || stdin.kind === 'file') return;
  if (stdin.kind === 'names') return refuse(ctx, `${who} runs names read from its input as code`);
  let code: string | null = null;
  if (stdin.kind === 'text') {
    if (stdin.dynamic) return refuse(ctx, `${who} runs a here-document built at run time`);
    code = stdin.text;
  } else {
    const from = stdin.from;
    const producer = from.type === 'command' ? from : null;
    const nm = producer?.childForFieldName('name')?.text ?? '';
    if (NETWORK.has(nm)) return; // remote code: out of this guard's sight (see README)
    if ((nm === 'echo' || nm === 'printf') && producer) {
      const args = producer.childrenForFieldName('argument');
      if (args.every((a) => a.type === 'raw_string' || a.type === 'word' || (a.type === 'string' && a.namedChildren.every((c) => c?.type === 'string_content'))))
        code = args.map((a) => (a.type === 'raw_string' ? a.text.slice(1, -1) : a.type === 'string' ? a.text.slice(1, -1) : a.text)).join(' ');
    }
    if (code === null) return refuse(ctx, `${who} runs code piped from another command, known only at run time`);
  }
  if (lang === 'code') {
    const hit = ctx.patterns.textMatch(code);
    if (hit) refuse(ctx, `${who} runs code that names a secret file (${hit})`);
    const why = codeHeuristic(code);
    if (why) refuse(ctx, `${who} runs code that ${why}`);
    return;
  }
  ctx.nested(lang, code, ctx);
}

function shell(ctx: Ctx, name: string, args: Pattern[][], stdin?: Stdin): void {
  let i = 0;
  let code: Pattern[] | null = null;
  while (i < args.length) {
    const w = firstText(args[i]);
    if (w === null) break;
    if (w === '--') {
      i++;
      break;
    }
    if (cluster(w, 'c') || w === '--command') {
      code = args[i + 1] ?? [literal('')];
      i += 2;
      break;
    }
    if (w === '-o' || w === '-O' || w === '+O' || w === '+o') i += 2;
    else if (w === '--rcfile' || w === '--init-file') {
      checkAll(ctx, args[i + 1] ?? [], `${name} runs the file`);
      i += 2;
    } else if (w.startsWith('-') || w.startsWith('+')) i++;
    else break;
  }
  if (code) {
    const rest = args.slice(i);
    const inner = { ...ctx, vars: new Map(ctx.vars) };
    rest.forEach((a, k) => inner.vars.set(String(k), a));
    for (const v of code) {
      const t = text(v);
      if (t === null) return refuse(ctx, `${name} -c runs code that is only known at run time`);
      ctx.nested(name === 'fish' ? 'bash' : 'bash', t, inner);
    }
    return;
  }
  if (i < args.length) return generic(ctx, `${name} runs`, args.slice(i));
  stdinCode(ctx, stdin, 'bash', name);
}

/** PowerShell's own command line: -Command, -EncodedCommand, -File, abbreviated as PowerShell allows. */
export function powershell(ctx: Ctx, name: string, args: Pattern[][], stdin?: Stdin): void {
  for (let i = 0; i < args.length; i++) {
    const w = firstText(args[i]);
    if (w === null) return refuse(ctx, `${name} is given words known only at run time`);
    const p = w.replace(/^[-/]+/, '').toLowerCase();
    const isOpt = /^[-/]/.test(w);
    if (isOpt && p.length > 0 && ('encodedcommand'.startsWith(p) && p.length >= 1 ? true : p === 'ec') && !'encodedarguments'.startsWith(p.length > 8 ? p : 'x')) {
      const b64 = firstText(args[i + 1]);
      if (b64 === null) return refuse(ctx, `${name} -EncodedCommand is given text known only at run time`);
      let decoded: string;
      try {
        decoded = Buffer.from(b64, 'base64').toString('utf16le');
      } catch {
        return refuse(ctx, `${name} -EncodedCommand does not decode`);
      }
      return ctx.nested('powershell', decoded, ctx);
    }
    if (isOpt && p.length > 0 && 'command'.startsWith(p)) {
      const rest = args.slice(i + 1).map(firstText);
      if (rest.some((r) => r === null)) return refuse(ctx, `${name} -Command runs code known only at run time`);
      if (rest.length === 1 && rest[0] === '-') return stdinCode(ctx, stdin, 'powershell', name);
      return ctx.nested('powershell', rest.join(' '), ctx);
    }
    if (isOpt && p.length > 0 && 'file'.startsWith(p)) return generic(ctx, `${name} runs`, args.slice(i + 1));
    if (isOpt && ['executionpolicy', 'ep', 'ex', 'workingdirectory', 'wd', 'configurationname', 'settingsfile', 'outputformat', 'of', 'inputformat', 'if', 'windowstyle', 'w', 'custompipename', 'version', 'v', 'psconsolefile', 'ea', 'encodedarguments', 'mta', 'sta'].includes(p)) {
      if (!['mta', 'sta'].includes(p)) i++;
      continue;
    }
    if (isOpt) continue;
    // A bare word: Windows PowerShell reads it as a command, pwsh as a script file; check both.
    const rest = args.slice(i).map(firstText);
    if (rest.some((r) => r === null)) return refuse(ctx, `${name} runs code known only at run time`);
    generic(ctx, `${name} runs`, args.slice(i, i + 1));
    return ctx.nested('powershell', rest.join(' '), ctx);
  }
  stdinCode(ctx, stdin, 'powershell', name);
}

/** cmd.exe /c ...: split at & | and judge each part; %VAR% is unknown. */
export function cmdExe(ctx: Ctx, args: Pattern[][]): void {
  const i = args.findIndex((a) => /^\/[ck]$/i.test(firstText(a) ?? ''));
  const words = args.slice(i < 0 ? 0 : i + 1).map((a) => (firstText(a) ?? '%?%'));
  let line = words.join(' ');
  if (i < 0 && words.every((w) => /^\//.test(w))) return;
  line = line.replace(/^"|"$/g, '');
  cmdLine(ctx, line);
}

const CMD_SAFE = new Set(['dir', 'del', 'erase', 'echo', 'cd', 'chdir', 'md', 'mkdir', 'rd', 'rmdir', 'cls', 'ver', 'vol', 'set', 'where', 'exit', 'rem', 'title', 'attrib', 'pushd', 'popd']);

export function cmdLine(ctx: Ctx, line: string): void {
  const vars = new Map<string, string>();
  for (const part of line.split(/&&|\|\||[&|]/)) {
    const words = part.trim().split(/\s+/).filter(Boolean).map((w) => w.replace(/^"|"$/g, ''));
    if (words.length === 0) continue;
    let first = words[0]!.toLowerCase().replace(/^@/, '').replace(/\.exe$/, '');
    let rest = words.slice(1);
    if (first === 'if' && rest[0]?.toLowerCase() === 'exist') {
      rest = rest.slice(2);
      first = (rest[0] ?? 'rem').toLowerCase();
      rest = rest.slice(1);
    }
    if (first === 'set') {
      const m = /^([^=]+)=(.*)$/.exec(rest.join(' '));
      if (m) vars.set(m[1]!.toLowerCase(), m[2]!);
      continue;
    }
    const resolved = rest.map((w) => w.replace(/%([^%]+)%/g, (_, v: string) => vars.get(v.toLowerCase()) ?? '\u0001'));
    if (CMD_SAFE.has(first)) continue;
    if (first === 'cmd') return cmdExe(ctx, resolved.map((w) => [literal(w)]));
    if (PWSH.has(first)) return powershell(ctx, first, resolved.map((w) => [literal(w)]));
    for (const w of [first, ...resolved]) {
      if (w.includes('\u0001') || w.includes('%')) {
        refuse(ctx, `cmd runs ${first} on ${w.replace(/\u0001/g, '%…%')}, known only at run time`);
        continue;
      }
      const hit = ctx.patterns.textMatch(w);
      if (hit) refuse(ctx, `cmd runs ${first} on ${w}, which can name a secret file (${hit})`);
    }
  }
}

function git(ctx: Ctx, args: Pattern[][]): void {
  let i = 0;
  while (i < args.length) {
    const w = firstText(args[i]);
    if (w === null) return generic(ctx, 'git', args);
    if (w === '-c') {
      checkAll(ctx, args[i + 1] ?? [], 'git -c sets');
      i += 2;
    } else if (w === '-C' || w === '--git-dir' || w === '--work-tree' || w === '--namespace' || w === '--exec-path') i += 2;
    else if (w.startsWith('-')) {
      if (w.includes('=')) checkRead(ctx, literal(w.slice(w.indexOf('=') + 1)), 'git is given');
      i++;
    } else break;
  }
  const sub = firstText(args[i]) ?? '';
  const rest = args.slice(i + 1);
  if (Object.hasOwn(GIT_SAFE, sub)) return;
  if (sub === 'commit' || sub === 'tag' || sub === 'stash') {
    // Messages are words, not files; -F reads a file; pathspecs would store a secret where git show reads it back.
    for (let k = 0; k < rest.length; k++) {
      const w = firstText(rest[k]);
      if (w === '-m' || w === '--message') {
        k++;
        continue;
      }
      if (w && (w.startsWith('--message=') || (w.startsWith('-m') && w.length > 2 && sub !== 'stash'))) continue;
      checkAll(ctx, rest[k]!, `git ${sub} is given`);
    }
    return;
  }
  if (sub === 'grep') {
    // git grep searches tracked files only; a tracked secret is already in the history.
    return generic(ctx, 'git grep', rest);
  }
  generic(ctx, `git ${sub}`, rest);
}

function copier(ctx: Ctx, name: string, args: Pattern[][]): void {
  const valueOpts = name === 'rsync' ? ['-e', '--rsh', '--exclude', '--include', '--filter', '-f', '--chmod', '--chown', '-B', '--timeout', '--port', '-T', '--temp-dir'] : name === 'scp' ? ['-P', '-i', '-o', '-F', '-c', '-l', '-S', '-J'] : name === 'install' ? ['-m', '-o', '-g', '--mode', '--owner', '--group', '-S', '--suffix'] : ['-S', '--suffix'];
  const operands: Pattern[][] = [];
  let target: Pattern[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const w = firstText(args[i]);
    if (w !== null && w.startsWith('-') && w !== '-') {
      if (w === '-t' || w === '--target-directory') {
        target = args[i + 1] ?? null;
        i++;
      } else if (w.startsWith('--target-directory=')) target = [literal(w.slice(19))];
      else if (valueOpts.includes(w)) {
        if (w === '-i' || w === '-F') checkAll(ctx, args[i + 1] ?? [], `${name} reads`);
        i++;
      } else if (/^--(exclude|include|filter)=/.test(w)) continue;
      else if (w.includes('=')) checkRead(ctx, literal(w.slice(w.indexOf('=') + 1)), `${name} is given`);
      continue;
    }
    operands.push(args[i]!);
  }
  let sources = operands;
  let dest = target;
  if (!dest && operands.length >= 2) {
    dest = operands[operands.length - 1]!;
    sources = operands.slice(0, -1);
  }
  // A copy onto a name that is itself secret stays protected; anywhere else it is a read.
  const destSecret = dest !== null && dest.every((v) => isLiteral(v) && ctx.patterns.pathMatch(textOf(v)) !== null && !isDirWord(ctx, v));
  for (const s of sources) {
    for (const v of s) {
      if (destSecret && isLiteral(v) && ctx.patterns.pathMatch(textOf(v))) continue;
      checkRead(ctx, v, `${name} copies`);
    }
    if (name !== 'mv' && name !== 'ln' && !destSecret) for (const v of s) checkTree(ctx, v, `${name} copies the folder`, { followLinks: args.some((a) => ['-L', '--dereference', '-rL', '-RL', '-aL', '--copy-links', '-L'].includes(firstText(a) ?? '')) });
  }
}

/** python -m venv DIR, virtualenv DIR, uv venv DIR: the folders are created, not read. */
function venv(ctx: Ctx, name: string, args: Pattern[][]): boolean {
  const words = args.map(firstText);
  let from = -1;
  if (/^(python\d*(\.\d+)?|pypy\d*)$/.test(name)) {
    const m = words.indexOf('-m');
    if (m >= 0 && (words[m + 1] === 'venv' || words[m + 1] === 'virtualenv')) from = m + 2;
  } else if (name === 'virtualenv') from = 0;
  else if (name === 'uv' && words[0] === 'venv') from = 1;
  else if (name === 'pyenv' && words[0] === 'virtualenv') from = 1;
  if (from < 0) return false;
  const pre = args.slice(0, name === 'uv' || name === 'pyenv' || name === 'virtualenv' ? 0 : words.indexOf('-m'));
  generic(ctx, name, pre);
  for (let i = from; i < args.length; i++) {
    const w = words[i];
    if (w !== null && w !== undefined && w.startsWith('-')) {
      if (['-p', '--python', '--prompt'].includes(w)) i++;
      continue;
    }
    for (const v of args[i]!) if (hasAny(v)) checkRead(ctx, v, `${name} is given`);
  }
  return true;
}

function filters(args: Pattern[][], include: string[], exclude: string[], incEq: string[], excEq: string[]): TreeRules {
  const rules: TreeRules = { include: [], exclude: [] };
  const words = args.map(firstText);
  words.forEach((w, i) => {
    if (w === null) return;
    const next = words[i + 1];
    if (include.includes(w) && next) (next.startsWith('!') ? rules.exclude! : rules.include!).push(...expandBraces(next.replace(/^!/, '')).map(globAtomsDot));
    if (exclude.includes(w) && next) rules.exclude!.push(...expandBraces(next).map(globAtomsDot));
    for (const p of incEq) if (w.startsWith(p)) {
      const v = w.slice(p.length);
      (v.startsWith('!') ? rules.exclude! : rules.include!).push(...expandBraces(v.replace(/^!/, '')).map(globAtomsDot));
    }
    for (const p of excEq) if (w.startsWith(p)) rules.exclude!.push(...expandBraces(w.slice(p.length)).map(globAtomsDot));
  });
  return rules;
}

function globAtomsDot(s: string): Pattern {
  const base = s.split('/').pop() ?? s;
  return [...base.replace(/\*\*/g, '*')].map((ch) => (ch === '*' ? { k: 'star', dot: false } : ch === '?' ? { k: 'one', dot: false } : { k: 'c', c: ch.codePointAt(0)! })) as Pattern;
}

/** `{a,b}` in filter globs (grep --include, rg -g). */
export function expandBraces(s: string, depth = 0): string[] {
  const open = s.indexOf('{');
  const close = open >= 0 ? s.indexOf('}', open) : -1;
  if (open < 0 || close < 0 || depth > 4) return [s];
  const parts = s.slice(open + 1, close).split(',');
  return parts.slice(0, 32).flatMap((p) => expandBraces(s.slice(0, open) + p + s.slice(close + 1), depth + 1));
}

function grep(ctx: Ctx, name: string, args: Pattern[][], cmd: Cmd): void {
  const words = args.map(firstText);
  let recursive = name === 'rgrep';
  let patternGiven = false;
  const operands: Pattern[][] = [];
  const valueOpts = ['-e', '-f', '-m', '-A', '-B', '-C', '-d', '-D', '--include', '--exclude', '--exclude-dir', '--regexp', '--file', '--max-count', '--context', '--label', '--color'];
  for (let i = 0; i < args.length; i++) {
    const w = words[i];
    if (w !== null && w !== undefined && w.startsWith('-') && w !== '-') {
      if (w === '--') {
        operands.push(...args.slice(i + 1));
        break;
      }
      if (/^-[a-zA-Z0-9]*[rR]/.test(w) && !w.startsWith('--')) recursive = true;
      if (w === '--recursive' || w === '--dereference-recursive' || w === '--directories=recurse' || (w === '-d' && words[i + 1] === 'recurse')) recursive = true;
      if (w === '-e' || w === '--regexp' || w.startsWith('--regexp=') || (/^-[a-zA-Z]*e$/.test(w) && !w.startsWith('--'))) patternGiven = true;
      if (w === '-f' || w === '--file') {
        patternGiven = true;
        checkAll(ctx, args[i + 1] ?? [], `${name} reads patterns from`);
      }
      if (w.startsWith('--file=')) checkRead(ctx, literal(w.slice(7)), `${name} reads patterns from`);
      if (valueOpts.includes(w) || (/^-[a-zA-Z]*[efmABCdD]$/.test(w) && !w.startsWith('--'))) i++;
      continue;
    }
    operands.push(args[i]!);
  }
  const paths = patternGiven ? operands : operands.slice(1);
  for (const p of paths) checkAll(ctx, p, `${name} reads`);
  if (!recursive) return;
  const rules = filters(args, ['--include'], ['--exclude'], ['--include='], ['--exclude=']);
  rules.followLinks = words.some((w) => w !== null && (w === '--dereference-recursive' || (w.length > 1 && w[0] === '-' && w[1] !== '-' && w.includes('R'))));
  for (const p of paths.length ? paths : [[literal('.')]]) for (const v of p) checkTree(ctx, v, `${name} -r searches`, rules);
  void cmd;
}

function searcher(ctx: Ctx, name: string, args: Pattern[][]): void {
  const words = args.map(firstText);
  const valueOpts = ['-e', '-f', '-g', '--glob', '--iglob', '-t', '-T', '--type', '--type-not', '-m', '-A', '-B', '-C', '-j', '--max-count', '--context', '-E', '--encoding', '--max-depth', '-d', '--ignore-file', '-r', '--replace', '--pre', '--type-add', '-M', '--max-columns', '--sort', '--sortr', '--color', '--colors', '--path-separator'];
  let patternGiven = false;
  let hidden = false;
  let typed = false;
  let files = false;
  const operands: Pattern[][] = [];
  for (let i = 0; i < args.length; i++) {
    const w = words[i];
    if (w !== null && w !== undefined && w.startsWith('-') && w !== '-') {
      if (w === '--') {
        operands.push(...args.slice(i + 1));
        break;
      }
      if (w === '--hidden' || w === '-.' || /^-u{2,}$/.test(w) || w === '--no-ignore' || w === '-u' || w === '--unrestricted' || w === '--no-ignore-dot' || w === '-a' || w === '--all-types' || w === '--skip-vcs-ignores') hidden = true;
      if (w === '-t' || w === '--type' || w.startsWith('--type=')) typed = true;
      if (w === '--files' || w === '-l' || w === '--files-with-matches' || w === '-c' || w === '--count') files = w === '--files';
      if (w === '-e' || w === '--regexp' || w.startsWith('--regexp=')) patternGiven = true;
      if (w === '-f' || w === '--file' || w === '--ignore-file' || w === '--pre') {
        patternGiven = patternGiven || w === '-f' || w === '--file';
        checkAll(ctx, args[i + 1] ?? [], `${name} reads`);
      }
      if (w.startsWith('--pre=')) checkRead(ctx, literal(w.slice(6)), `${name} runs`);
      if (valueOpts.includes(w)) i++;
      continue;
    }
    operands.push(args[i]!);
  }
  const paths = patternGiven || files ? operands : operands.slice(1);
  for (const p of paths) checkAll(ctx, p, `${name} reads`);
  if (files || typed) return;
  const rules = filters(args, ['-g', '--glob', '--iglob', '-G'], ['--ignore', '--ignore-dir'], ['--glob=', '--iglob=', '-g'], ['--ignore=', '--ignore-dir=']);
  rules.skipHidden = !hidden;
  rules.followLinks = words.some((w) => w === '-L' || w === '--follow');
  for (const p of paths.length ? paths : [[literal('.')]]) for (const v of p) checkTree(ctx, v, `${name} searches`, rules);
}

function archiver(ctx: Ctx, name: string, args: Pattern[][]): void {
  const words = args.map(firstText);
  const valueOpts = new Set(['-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from', '-b', '--blocking-factor', '-P', '--password']);
  const excludes: Pattern[] = [];
  const operands: Pattern[][] = [];
  let creating = name === 'zip' || name === 'jar' || name === 'rar';
  if (name.startsWith('7z') && (words[0] === 'a' || words[0] === 'u')) creating = true;
  for (let i = 0; i < args.length; i++) {
    const w = words[i];
    if (i === 0 && (name === 'tar' || name === 'bsdtar' || name === 'gtar') && w && !w.startsWith('-') && /^[a-zA-Z]+$/.test(w)) {
      if (w.includes('c') || w.includes('r') || w.includes('u')) creating = true;
      if (w.includes('f')) i++;
      continue;
    }
    if (w !== null && w !== undefined && w.startsWith('-') && w !== '-') {
      if (/^-[a-zA-Z]*[cru]/.test(w) && !w.startsWith('--') && name !== 'zip') creating = true;
      if (w === '--create' || w === '--append' || w === '--update') creating = true;
      if (w.startsWith('--exclude=')) excludes.push(...expandBraces(w.slice(10)).map(globAtomsDot));
      if (w === '--exclude' || w === '-x') {
        const v = words[i + 1];
        if (v) excludes.push(...expandBraces(v).map(globAtomsDot));
        i++;
        continue;
      }
      if (w === '-T' || w === '--files-from' || w === '-X' || w === '--exclude-from' || w === '-@') checkAll(ctx, args[i + 1] ?? [], `${name} reads names from`);
      if (w.startsWith('--files-from=')) checkRead(ctx, literal(w.slice(13)), `${name} reads names from`);
      if (valueOpts.has(w) || (/^-[a-zA-Z]*f$/.test(w) && !w.startsWith('--'))) i++;
      continue;
    }
    operands.push(args[i]!);
  }
  // zip's first operand and 7z's second are the archive being written.
  const inputs = name === 'zip' || name === 'jar' ? operands.slice(1) : name.startsWith('7z') ? operands.slice(2) : operands;
  for (const p of inputs) checkAll(ctx, p, `${name} packs`);
  if (creating) for (const p of inputs) for (const v of p) checkTree(ctx, v, `${name} packs the folder`, { exclude: excludes, followLinks: name === 'tar' || name === 'bsdtar' || name === 'gtar' ? words.some((w) => w === '-h' || w === '--dereference') : !words.some((w) => w === '-y' || w === '--symlinks') });
}

function interpreter(ctx: Ctx, name: string, args: Pattern[][], stdin?: Stdin): void {
  const codeOpts = INTERPRETERS[name] ?? (name.startsWith('python') || name.startsWith('pypy') ? ['-c'] : name.startsWith('node') ? ['-e', '-p', '--eval', '--print'] : ['-e']);
  const words = args.map(firstText);
  let sawCode = false;
  let sawScript = false;
  for (let i = 0; i < args.length; i++) {
    const w = words[i];
    const isCodeOpt = w !== null && w !== undefined && (codeOpts.includes(w) || (name.startsWith('python') && /^-[a-zA-Z]*c$/.test(w)) || (name === 'perl' && /^-[a-zA-Z]*[eE]$/.test(w)));
    if (isCodeOpt || (w !== null && w !== undefined && codeOpts.some((o) => o.startsWith('--') && w.startsWith(`${o}=`)))) {
      sawCode = true;
      const alts = isCodeOpt ? (args[i + 1] ?? []) : [literal(w!.slice(w!.indexOf('=') + 1))];
      for (const v of alts) {
        if (hasAny(v)) refuse(ctx, `${name} runs code that is only known at run time`);
        const t = text(v);
        if (t !== null) {
          const hit = ctx.patterns.textMatch(t);
          if (hit) refuse(ctx, `${name} runs code that names a secret file (${hit})`);
          const why = codeHeuristic(t);
          if (why) refuse(ctx, `${name} runs code that ${why}`);
        }
      }
      if (isCodeOpt) i++;
      continue;
    }
    for (const v of args[i]!) checkRead(ctx, v, `${name} is given`);
    if (w && (w.startsWith('--env-file') || w === '-r' || w === '--require' || w === '--import')) {
      const v = w.includes('=') ? w.slice(w.indexOf('=') + 1) : words[i + 1] ?? '';
      if (/dotenv/i.test(v)) refuse(ctx, `${name} loads dotenv, which reads .env into the program`);
    }
    if (w && !w.startsWith('-') && !sawCode) {
      if (['awk', 'gawk', 'mawk', 'nawk', 'jq'].includes(name) && !sawScript) {
        // The program text comes first.
        const why = codeHeuristic(w);
        if (why && name !== 'jq') refuse(ctx, `${name} runs code that ${why}`);
      }
      sawScript = true;
    }
  }
  if (!sawCode && !sawScript) stdinCode(ctx, stdin, 'code', name);
}

export { OPAQUE };
