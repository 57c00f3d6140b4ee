// commit <message…> [--files …] [--amend] [--no-verify]: stage and commit
// planning files or a task's files. git always runs through execFileSync with
// an argument array, never a shell, so no message or path is ever interpreted.
//
// Parallel executors call this at once on one checkout, so everything from
// `git add` to the check after the commit runs under the checkout's
// repository lock (core/git.ts), after clearing an index.lock left by a dead
// git. The answer is checked against git: `committed` only when every listed
// path's content is in the new HEAD, `nothing_to_commit` only when it already
// was; anything else is `committed: false` with a reason and exit 1.
import fs from 'node:fs';
import path from 'node:path';
import { bool, list } from '../cli/parse.ts';
import type { Result } from '../cli/output.ts';
import { CliError } from '../core/errors.ts';
import { clearIndexLock, git, gitIndexed, isGsdWorktree, repoInfo, withRepoLock, workRoot, type RepoInfo } from '../core/git.ts';
import type { Ctx } from '../core/context.ts';
import { confine } from '../core/paths.ts';
import { loadConfig } from '../config/config.ts';
import { PLANNING, WORKSTREAMS } from '../planning/layout.ts';
import type { Handler } from '../cli/handler.ts';

/** Neutralise text that could pose as a role marker when the log is read back into a prompt. */
export function sanitizeMessage(msg: string): string {
  return msg
    .replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g, '')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/<(\/?)(system|assistant|human|user)>/gi, '＜$1$2-text＞')
    .replace(/\[(SYSTEM|INST)\]/g, '[$1-TEXT]')
    .replace(/<<SYS>>/g, '«SYS-TEXT»')
    .trim();
}

type Answer = Result & { data: Record<string, unknown> };

const no = (reason: string, extra: Record<string, unknown> = {}, exitCode = 0): Answer => ({
  data: { committed: false, hash: null, reason, ...extra },
  raw: reason.startsWith('skipped') ? 'skipped' : reason === 'nothing_to_commit' ? 'nothing' : 'failed',
  ...(exitCode ? { exitCode } : {}),
});
const fail = (reason: string, extra: Record<string, unknown> = {}) => no(reason, extra, 1);

/** Paths among `paths` whose working-tree content differs from HEAD (modified, staged, deleted or untracked). */
function differFromHead(ctx: Ctx, info: RepoInfo, paths: string[]): string[] | null {
  const st = git(ctx, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...paths], { cwd: info.top });
  if (!st.ok) return null;
  const out: string[] = [];
  const parts = st.stdout.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.length < 4) continue;
    out.push(entry.slice(3));
    if (entry[0] === 'R' || entry[0] === 'C') i += 1; // the source path of a rename follows
  }
  return out;
}

const commit: Handler = (inv, ctx) => {
  const message = sanitizeMessage(inv.args.message ?? '');
  if (message === '') throw new CliError('invalid-args', 'commit: the message is empty');
  const cfg = loadConfig(ctx);
  const root = workRoot(ctx);
  const files = list(inv, '--files');
  // With no --files: the planning folder, or only the selected workstream's, so another track's edits stay out.
  const own = ctx.workstream ? `${PLANNING}/${WORKSTREAMS}/${ctx.workstream}` : PLANNING;
  const listed = files ? files.map((f) => path.relative(root, confine(root, f, '--files')).split(path.sep).join('/') || '.') : [own];
  const isPlanning = (p: string) => p === PLANNING || p.startsWith(`${PLANNING}/`);
  // commit_docs governs planning documents only: code listed beside them is
  // still committed (an executor's task commit), the planning paths are not.
  const docsOff = cfg.resolved.commit_docs === false;
  const withheld = docsOff ? listed.filter(isPlanning) : [];
  const paths = listed.filter((p) => !withheld.includes(p));
  if (paths.length === 0) return { ...no('skipped_commit_docs_false'), data: { committed: false, skipped: true, hash: null, reason: 'skipped_commit_docs_false' } };
  const info = repoInfo(ctx, root);
  if (!info) return no('not_a_git_repo');
  // Paths from here on are relative to the checkout's top, where git runs.
  const offset = path.relative(info.top, root);
  const top = (p: string) => (offset ? path.posix.join(offset.split(path.sep).join('/'), p) : p);
  if (!files || paths.every(isPlanning)) {
    if (git(ctx, ['check-ignore', '-q', top(PLANNING)], { cwd: info.top }).ok) return { ...no('skipped_gitignored'), data: { committed: false, skipped: true, hash: null, reason: 'skipped_gitignored' } };
  }
  // In a worktree of a parallel wave the hooks run once, over the whole wave, when it is merged.
  const waveWorktree = isGsdWorktree(info);
  const noVerify = bool(inv, '--no-verify') || waveWorktree;
  const amend = bool(inv, '--amend');
  const extra = withheld.length ? { withheld_planning_files: withheld } : {};
  try {
    return withRepoLock(ctx, info, () => commitLocked(ctx, info, { message, files: Boolean(files), paths: paths.map(top), shown: paths, noVerify, amend, waveWorktree, extra }));
  } catch (error) {
    if (error instanceof CliError && error.reason === 'locked') {
      return fail('lock_timeout', { error: error.message, files: paths });
    }
    throw error;
  }
};

interface CommitJob {
  message: string;
  files: boolean;
  /** Paths relative to the checkout's top, and the same as the caller gave them. */
  paths: string[];
  shown: string[];
  noVerify: boolean;
  amend: boolean;
  waveWorktree: boolean;
  extra: Record<string, unknown>;
}

function commitLocked(ctx: Ctx, info: RepoInfo, job: CommitJob): Answer {
  const lock = clearIndexLock(ctx, info);
  if (lock.state === 'busy') return fail('index_locked', { error: lock.message, index_lock: lock.file, files: job.shown });
  const recovered = lock.recovered ? { recovered_index_lock: lock.recovered } : {};
  const showOf = new Map(job.paths.map((p, i) => [p, job.shown[i]!]));
  const show = (ps: string[]) => ps.map((p) => showOf.get(p) ?? p);
  // A listed path that is gone is committed as a deletion when git tracks it, otherwise skipped.
  const tracked = (p: string) => git(ctx, ['ls-files', '--error-unmatch', '--', p], { cwd: info.top }).ok;
  const present = job.files ? job.paths.filter((p) => fs.existsSync(path.join(info.top, p)) || tracked(p)) : job.paths;
  const skipped = show(job.paths.filter((p) => !present.includes(p)));
  if (present.length === 0) return no('nothing_to_commit', { skipped_files: skipped, ...recovered });
  const add = gitIndexed(ctx, info, job.files ? ['add', '--', ...present] : ['add', '-A', '--', ...present]);
  if (!add.ok) {
    gitIndexed(ctx, info, ['reset', '-q', '--', ...present]);
    return fail('staging_failed', { error: add.stderr, failures: show(present), ...recovered });
  }
  const staged = git(ctx, ['diff', '--cached', '--quiet', '--', ...present], { cwd: info.top });
  if (staged.ok && !job.amend) {
    // Nothing staged: true only if every listed path already matches HEAD.
    const differ = differFromHead(ctx, info, present);
    if (differ && differ.length === 0) return no('nothing_to_commit', { skipped_files: skipped, ...recovered });
    return fail('not_staged', { error: 'git staged nothing, yet these paths differ from HEAD', not_committed: show(differ ?? present), ...recovered });
  }
  const before = git(ctx, ['rev-parse', '-q', '--verify', 'HEAD'], { cwd: info.top }).stdout.trim();
  const merging = fs.existsSync(path.join(info.gitDir, 'MERGE_HEAD'));
  const args = ['commit', '-q', '-m', job.message];
  if (job.noVerify) args.push('--no-verify');
  if (job.amend) args.push('--amend');
  if (!job.amend && !merging) args.push('--', ...present);
  const done = gitIndexed(ctx, info, args, { timeoutMs: 10 * 60_000 });
  if (!done.ok) {
    gitIndexed(ctx, info, ['reset', '-q', '--', ...present]);
    return fail('commit_failed', { error: done.stderr || done.stdout.trim(), hooks: job.noVerify ? 'skipped' : 'ran', files: show(present), ...recovered });
  }
  const [full = '', hash = ''] = git(ctx, ['rev-parse', 'HEAD', '--short', 'HEAD'], { cwd: info.top }).stdout.split('\n');
  // The check that makes `committed` true: a new HEAD, and no listed path left differing from it.
  const differ = differFromHead(ctx, info, present);
  if (full === '' || full === before || differ === null || differ.length > 0) {
    return fail('not_in_head', {
      hash: full && full !== before ? hash : null,
      error: full === before ? 'git reported success but HEAD did not move' : 'after the commit these paths still differ from HEAD',
      not_committed: show(differ ?? present),
      ...recovered,
    });
  }
  const hooks = job.waveWorktree ? 'wave' : job.noVerify ? 'skipped' : 'ran';
  return { data: { committed: true, hash, reason: 'committed', files: show(present), skipped_files: skipped, hooks, ...recovered, ...job.extra }, raw: hash };
}

export const handlers: Record<string, Handler> = { commit };
