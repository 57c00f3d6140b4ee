// The secret guard's verdicts: a shell command line (Bash, PowerShell or
// both), a path a tool reads, a search over a folder. Each returns the
// reasons to refuse; none means the call may go ahead.
import { analyzeBash } from './bash.ts';
import { BUDGET_MS, OutOfTime, checkRead, checkTree, refuse, startClock, type Ctx } from './context.ts';
import { analyzePowerShell } from './powershell.ts';
import { loadParsers, parseNow, type Shell } from './parsers.ts';
import { defaultPatterns, literal, SecretPatterns, type Pattern } from './patterns.ts';

export interface Options {
  cwd?: string;
  patterns?: SecretPatterns;
}

const MAX_COMMAND = 256 * 1024;

function context(shell: Shell, opts: Options, both = false): Ctx {
  const ctx: Ctx = {
    shell,
    patterns: opts.patterns ?? defaultPatterns(),
    cwd: opts.cwd ?? process.cwd(),
    cwds: [],
    vars: new Map(),
    refusals: [],
    depth: 0,
    ifs: false,
    dotglob: false,
    both,
    nested: (sh, code, parent) => run(sh, code, { ...parent, shell: sh, depth: parent.depth + 1, vars: new Map(parent.vars) }, parent),
  };
  return ctx;
}

function run(shell: Shell, code: string, ctx: Ctx, report: Ctx = ctx): void {
  if (ctx.depth > 6) return refuse(report, 'the command nests shells too deeply to check');
  if (code.length > MAX_COMMAND) {
    const hit = ctx.patterns.textMatch(code.slice(0, 64 * 1024));
    return refuse(report, `the command is too long to check${hit ? ` and names a secret file (${hit})` : ''}`);
  }
  const tree = parseNow(shell, code);
  if (!tree) {
    const hit = ctx.patterns.textMatch(code);
    return refuse(report, `the ${shell} parser gave up on the command${hit ? ` and it names a secret file (${hit})` : ''}`);
  }
  try {
    const inner: Ctx = { ...ctx, refusals: report.refusals };
    if (shell === 'bash') analyzeBash(inner, tree.rootNode);
    else analyzePowerShell(inner, tree.rootNode);
    report.dotglob ||= inner.dotglob;
  } finally {
    tree.delete();
  }
}

/** Run a check against the clock; out of time is a refusal. */
function timed(ctx: Ctx, ms: number, check: () => void): void {
  startClock(ms);
  try {
    check();
  } catch (error) {
    if (!(error instanceof OutOfTime)) throw error;
    refuse(ctx, `the call is too large to check in ${ms / 1000} s`);
  } finally {
    startClock(Number.POSITIVE_INFINITY);
  }
}

/** Reasons to refuse a shell command line; `both` checks it as Bash and as PowerShell. */
export async function checkCommand(command: string, shell: Shell | 'both', opts: Options = {}): Promise<string[]> {
  await loadParsers();
  const shells: Shell[] = shell === 'both' ? ['bash', 'powershell'] : [shell];
  const out: string[] = [];
  for (const sh of shells) {
    const ctx = context(sh, opts, shell === 'both');
    timed(ctx, shell === 'both' ? BUDGET_MS / 2 : BUDGET_MS, () => run(sh, command, ctx));
    for (const r of ctx.refusals) out.push(shell === 'both' ? `${r} (read as ${sh === 'bash' ? 'Bash' : 'PowerShell'})` : r);
  }
  return out;
}

/** Reasons to refuse reading one path (Read, a Grep path): its name, or where its links lead. */
export function checkPath(p: string, opts: Options = {}): string[] {
  const ctx = context('bash', opts);
  timed(ctx, BUDGET_MS, () => checkRead(ctx, literal(p), 'reading'));
  return ctx.refusals;
}

/** Reasons to refuse a content search over `root`, filtered by an include glob. */
export function checkSearch(root: string, include: string | undefined, opts: Options = {}): string[] {
  const ctx = context('bash', opts);
  timed(ctx, BUDGET_MS, () => search(ctx, root, include));
  return ctx.refusals;
}

function search(ctx: Ctx, root: string, include: string | undefined): string[] {
  if (include !== undefined) {
    for (const g of expand(include)) {
      const neg = g.startsWith('!');
      if (neg) continue;
      const word: Pattern = [...g.replace(/\*\*\/?/g, '*')].map((ch) => (ch === '*' ? { k: 'star', dot: true } : ch === '?' ? { k: 'one', dot: true } : { k: 'c', c: ch.codePointAt(0)! })) as Pattern;
      const hit = ctx.patterns.wordMatch(word);
      if (hit) refuse(ctx, `the search filter ${g} can match secret files (${hit})`);
    }
    if (ctx.refusals.length) return ctx.refusals;
    const includes = expand(include).filter((g) => !g.startsWith('!'));
    const excludes = expand(include).filter((g) => g.startsWith('!')).map((g) => g.slice(1));
    const atoms = (g: string): Pattern => [...(g.split('/').pop() ?? g)].map((ch) => (ch === '*' ? { k: 'star', dot: false } : ch === '?' ? { k: 'one', dot: false } : { k: 'c', c: ch.codePointAt(0)! })) as Pattern;
    checkTree(ctx, literal(root), 'the search covers', { include: includes.map(atoms), exclude: excludes.map(atoms), followLinks: true });
    return ctx.refusals;
  }
  checkTree(ctx, literal(root), 'the search covers', { followLinks: true });
  return ctx.refusals;
}

function expand(glob: string): string[] {
  const open = glob.indexOf('{');
  const close = open >= 0 ? glob.indexOf('}', open) : -1;
  if (open < 0 || close < 0) return [glob];
  return glob.slice(open + 1, close).split(',').slice(0, 32).flatMap((p) => expand(glob.slice(0, open) + p + glob.slice(close + 1)));
}
