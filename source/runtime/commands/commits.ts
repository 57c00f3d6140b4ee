// commits --plan ID | --phase N | --last N: the GSD commits of one plan, one
// phase or the last N, found by the scope of their subject (`feat(03-02): …`,
// `docs(03): …`, `fix(quick-004): …`; see references/git-integration.md), and
// the later commits outside the set that touch the same files, which a revert
// could conflict with.
import { num, str } from '../cli/parse.ts';
import { failed, notFound, usage } from '../core/errors.ts';
import { git } from '../core/git.ts';
import { normalizePhase, parsePhaseId } from '../planning/phases.ts';
import type { Handler } from '../cli/handler.ts';

export interface LogEntry {
  hash: string;
  subject: string;
  date: string;
  files: string[];
  /** The `(scope)` of a conventional subject, or null. */
  scope: string | null;
}

const SCOPE = /^[a-z]+!?\(([^)\s]+)\)!?:/i;

/** `git log --name-only` output written with the separators below, newest first. */
export function parseLog(text: string): LogEntry[] {
  return text
    .split(/\x1e/)
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [head = '', ...rest] = chunk.replace(/^\n+/, '').split('\n');
      const [hash = '', subject = '', date = ''] = head.split(/\x1f/);
      return { hash, subject, date, files: rest.filter((l) => l.trim() !== ''), scope: SCOPE.exec(subject)?.[1] ?? null };
    });
}

/** A plan ID in the padded form commits use: `3-2` → `03-02`, `02.1-01` stays. */
export function normalizePlanId(id: string): string {
  const m = /^(\d+[A-Z]?(?:\.\d+)*)-(\d+)$/.exec(id.trim());
  if (!m || !parsePhaseId(m[1]!)) throw usage(`--plan "${id}" is not a plan ID such as 03-02`);
  return `${normalizePhase(m[1]!)}-${m[2]!.padStart(2, '0')}`;
}

/** Does a commit scope belong to a GSD phase, plan or quick task? */
export const isGsdScope = (scope: string | null): boolean => scope !== null && /^(?:\d+[A-Z]?(?:\.\d+)*(?:-\d+)?|quick-\d+)$/.test(scope);

export function selectCommits(log: LogEntry[], sel: { plan?: string; phase?: string; last?: number }): LogEntry[] {
  if (sel.plan !== undefined) return log.filter((c) => c.scope === sel.plan);
  if (sel.phase !== undefined) {
    const p = sel.phase;
    return log.filter((c) => c.scope !== null && isGsdScope(c.scope) && (c.scope === p || c.scope.startsWith(`${p}-`)));
  }
  return log.filter((c) => isGsdScope(c.scope)).slice(0, sel.last);
}

/** Commits newer than the oldest selected one, outside the set, that touch a file of the set. */
export function laterTouching(log: LogEntry[], chosen: LogEntry[]) {
  if (chosen.length === 0) return [];
  const set = new Set(chosen.map((c) => c.hash));
  const files = new Set(chosen.flatMap((c) => c.files));
  const oldest = Math.max(...chosen.map((c) => log.indexOf(c)));
  return log
    .slice(0, oldest)
    .filter((c) => !set.has(c.hash) && c.files.some((f) => files.has(f)))
    .map((c) => ({ hash: c.hash, subject: c.subject, files: c.files.filter((f) => files.has(f)) }));
}

const commits: Handler = (inv, ctx) => {
  const plan = str(inv, '--plan');
  const phase = str(inv, '--phase');
  const last = num(inv, '--last');
  if ([plan, phase, last].filter((v) => v !== undefined).length !== 1) throw usage('give exactly one of --plan <ID>, --phase <N>, --last <N>');
  if (last !== undefined && last < 1) throw usage('--last must be at least 1');
  const sel = { plan: plan === undefined ? undefined : normalizePlanId(plan), phase: phase === undefined ? undefined : normalizePhase(phase), last };
  const inside = git(ctx, ['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.stdout.trim() !== 'true') throw notFound(`${ctx.root} is not inside a git repository`);
  // A repository with no commit yet has nothing to list, which is an answer, not an error.
  const hasHead = git(ctx, ['rev-parse', '--verify', '--quiet', 'HEAD']).ok;
  const gitLog = (...args: string[]): LogEntry[] => {
    const out = git(ctx, ['log', '--no-color', '--no-renames', '--format=%x1e%H%x1f%s%x1f%cI', ...args]);
    if (!out.ok) throw failed(`git log failed: ${out.stderr}`);
    return parseLog(out.stdout);
  };
  // Subjects of the whole history are cheap; file lists are read only from
  // the oldest chosen commit up (HEAD, not its parents), which is all that the
  // set and the later commits need.
  const picked = hasHead ? selectCommits(gitLog(), sel) : [];
  let log = picked.length ? gitLog('--name-only', 'HEAD', '--not', `${picked[picked.length - 1]!.hash}^@`) : [];
  const wanted = new Set(picked.map((c) => c.hash));
  // Merged side branches with skewed dates can put a chosen commit below that cut: then read it all.
  if (log.filter((c) => wanted.has(c.hash)).length !== picked.length) log = gitLog('--name-only');
  const chosen = log.filter((c) => wanted.has(c.hash));
  const status = git(ctx, ['status', '--porcelain', '--untracked-files=no']);
  return {
    data: {
      scope: sel.plan !== undefined ? { plan: sel.plan } : sel.phase !== undefined ? { phase: sel.phase } : { last: sel.last },
      count: chosen.length,
      commits: chosen.map(({ hash, subject, date, files }) => ({ hash, subject, date, files })),
      later_touching: laterTouching(log, chosen),
      working_tree_clean: status.ok && status.stdout.trim() === '',
    },
  };
};

export const handlers: Record<string, Handler> = { commits };
