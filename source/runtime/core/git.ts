// git through execFileSync with an argument array, never a shell, so no
// message or path is ever interpreted. Only the verbs that need git load this.
// Also here: where a checkout's git directories are, the per-index repository
// lock every GSD writer of an index takes, and the recovery of an index.lock
// left by a git process that died.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from './context.ts';
import { CliError } from './errors.ts';
import { sleepSync } from './fs.ts';
import { withLock } from './lock.ts';
import { mainWorktreeOf } from './paths.ts';

export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  /** Directory to run in (default: the project root). */
  cwd?: string;
  /** Kill git after this long (default 60 s; commits and merges that run hooks pass more). */
  timeoutMs?: number;
  env?: Record<string, string>;
  /** Text for git's standard input (`mktree`); none by default. */
  input?: string;
}

export function git(ctx: Ctx, args: string[], opts: GitOptions = {}): GitResult {
  try {
    const stdout = execFileSync('git', args, {
      cwd: opts.cwd ?? ctx.root,
      encoding: 'utf8',
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      input: opts.input,
      timeout: opts.timeoutMs ?? 60_000,
      maxBuffer: 64 * 1024 * 1024,
      windowsHide: true,
      env: { ...process.env, ...ctx.env, GIT_TERMINAL_PROMPT: '0', ...opts.env } as NodeJS.ProcessEnv,
    });
    return { ok: true, code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status?: number | null; stdout?: string; stderr?: string; code?: string; signal?: string | null };
    if (e.code === 'ENOENT') throw new CliError('failed', 'git is not installed or not on PATH');
    const killed = e.signal ? `git ${args[0]} was killed (${e.signal}) after ${opts.timeoutMs ?? 60_000} ms` : '';
    return { ok: false, code: e.status ?? 1, stdout: String(e.stdout ?? ''), stderr: [String(e.stderr ?? '').trim(), killed].filter(Boolean).join('\n') };
  }
}

/** Where a checkout's git data lives: its work tree, its own git dir (index, HEAD) and the shared one (objects, refs). */
export interface RepoInfo {
  top: string;
  gitDir: string;
  commonDir: string;
}

/** The repository holding `cwd`, or null outside one. */
export function repoInfo(ctx: Ctx, cwd: string): RepoInfo | null {
  const r = git(ctx, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], { cwd });
  if (!r.ok) return null;
  const [top, gitDir, common] = r.stdout.split('\n');
  if (!top || !gitDir || !common) return null;
  return { top: fs.realpathSync(top), gitDir: fs.realpathSync(gitDir), commonDir: fs.realpathSync(path.resolve(cwd, common)) };
}

/** `git --version` as [major, minor]; [0, 0] when unreadable. */
export function gitVersion(ctx: Ctx): [number, number] {
  const m = /(\d+)\.(\d+)/.exec(git(ctx, ['--version'], { cwd: ctx.cwd }).stdout);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

export function versionAtLeast(v: [number, number], major: number, minor: number): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

const inside = (base: string, p: string) => p === base || p.startsWith(base.endsWith(path.sep) ? base : base + path.sep);

/**
 * The directory git commands of a project should run in. Normally the project
 * root; but when cwd is inside a linked worktree that has no `.planning/` of
 * its own (planning files untracked), the project root resolves to the main
 * checkout, and the work must still land in the worktree: the same place
 * relative to the worktree's top.
 */
export function workRoot(ctx: Ctx): string {
  let dir = path.resolve(ctx.cwd);
  for (let i = 0; i < 40; i++) {
    const dotGit = path.join(dir, '.git');
    if (fs.existsSync(dotGit)) {
      if (!fs.statSync(dotGit).isFile()) return ctx.root;
      const main = mainWorktreeOf(dir);
      const root = ctx.root;
      if (!main || inside(dir, root) || !inside(main, root)) return root;
      return path.join(dir, path.relative(main, root));
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return ctx.root;
}

/** Our folder in the shared git dir, holding the wave worktrees and their records (commands/worktree.ts). */
export const WORKTREE_FOLDER = 'gsd-worktrees';

/** Whether `info` is a checkout `worktree create` made (under <git-common-dir>/gsd-worktrees/). */
export function isGsdWorktree(info: RepoInfo): boolean {
  return info.gitDir !== info.commonDir && inside(path.join(info.commonDir, WORKTREE_FOLDER), info.top);
}

function envMs(ctx: Ctx, name: string, fallback: number): number {
  const v = ctx.env[name] ?? process.env[name];
  const n = v === undefined || v === '' ? Number.NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** The repository lock file of one index (one per checkout: main or linked worktree). */
export function repoLockFile(info: RepoInfo): string {
  return path.join(info.gitDir, 'gsd-commit.lock');
}

/**
 * Run `fn` holding the repository lock of `info`'s index. Every GSD command
 * that stages, commits or merges in a checkout takes it, so GSD's own git
 * processes never race for index.lock. Waiting backs off with jitter up to
 * GSD_COMMIT_LOCK_TIMEOUT_MS (default 120 s: a sibling's commit may be running
 * the project's hooks); a holder is never stolen from while it is verifiably
 * alive, except past a 15-minute dead-man ceiling.
 */
export function withRepoLock<T>(ctx: Ctx, info: RepoInfo, fn: () => T): T {
  return withLock(repoLockFile(info), fn, {
    timeoutMs: envMs(ctx, 'GSD_COMMIT_LOCK_TIMEOUT_MS', 120_000),
    deadmanMs: 15 * 60_000,
  });
}

/** Linux only: whether a running git process has its cwd inside `dirs` (other platforms: unknown, false). */
function liveGitUnder(dirs: string[]): boolean {
  if (process.platform !== 'linux') return false;
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return false;
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm !== 'git' && !comm.startsWith('git-')) continue;
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (dirs.some((d) => inside(d, cwd))) return true;
    } catch {
      // gone, or not ours to look at
    }
  }
  return false;
}

export type IndexLockState = { state: 'free'; recovered?: { file: string; ageMs: number }[] } | { state: 'busy'; file: string; ageMs: number; message: string };

/**
 * The lock files a commit in `info` needs free: the index's, HEAD's and the
 * current branch's ref (`refs/heads/<branch>.lock`, in the common dir that
 * worktrees share). A git killed mid-commit leaves any of them behind.
 */
export function commitLockFiles(info: RepoInfo): string[] {
  const files = [path.join(info.gitDir, 'index.lock'), path.join(info.gitDir, 'HEAD.lock')];
  let head = '';
  try {
    head = fs.readFileSync(path.join(info.gitDir, 'HEAD'), 'utf8').trim();
  } catch {
    return files;
  }
  const ref = head.startsWith('ref: refs/heads/') ? head.slice('ref: '.length) : '';
  // Only a plain branch name: nothing that could point outside refs/heads/.
  if (ref && ref.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && !part.endsWith('.lock'))) files.push(path.join(info.commonDir, ...ref.split('/')) + '.lock');
  return files;
}

/**
 * Make sure none of git's commit locks of `info` is in the way (index.lock
 * first). Call only while holding the repository lock, so no GSD-started git
 * is running in this checkout. A lock present is waited for (up to
 * GSD_INDEX_LOCK_WAIT_MS, default 10 s); it is removed only when it is older
 * than GSD_INDEX_LOCK_STALE_MS (default 30 s) and, on Linux, no git process has
 * its cwd in this checkout. Limits: elsewhere the age is the only test, so a
 * foreign git (an editor's, a terminal's) that keeps a lock longer than the
 * bound without being visible to us could lose it.
 */
export function clearIndexLock(ctx: Ctx, info: RepoInfo): IndexLockState {
  const recovered: { file: string; ageMs: number }[] = [];
  for (const file of commitLockFiles(info)) {
    const state = clearLockFile(ctx, info, file);
    if (state.state === 'busy') return state;
    if (state.ageMs !== undefined) recovered.push({ file: state.file, ageMs: state.ageMs });
  }
  return recovered.length > 0 ? { state: 'free', recovered } : { state: 'free' };
}

function clearLockFile(ctx: Ctx, info: RepoInfo, file: string): { state: 'free'; file: string; ageMs?: number } | Extract<IndexLockState, { state: 'busy' }> {
  const staleMs = envMs(ctx, 'GSD_INDEX_LOCK_STALE_MS', 30_000);
  const waitMs = envMs(ctx, 'GSD_INDEX_LOCK_WAIT_MS', 10_000);
  const rel = path.relative(info.top, file).split(path.sep).join('/');
  const start = Date.now();
  let delay = 20;
  for (;;) {
    let ageMs: number;
    try {
      ageMs = Date.now() - fs.statSync(file).mtimeMs;
    } catch {
      return { state: 'free', file: rel };
    }
    if (ageMs > staleMs && !liveGitUnder([info.top, info.gitDir, info.commonDir])) {
      try {
        fs.unlinkSync(file);
      } catch {
        // already gone
      }
      return { state: 'free', file: rel, ageMs: Math.round(ageMs) };
    }
    if (Date.now() - start >= waitMs) {
      return {
        state: 'busy',
        file: rel,
        ageMs: Math.round(ageMs),
        message: `${rel} exists (${Math.round(ageMs / 1000)} s old) and ${ageMs > staleMs ? 'a git process is running in this checkout' : `is younger than ${Math.round(staleMs / 1000)} s`}: another git command holds it. If no git is running, remove the file and retry.`,
      };
    }
    sleepSync(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 200);
  }
}

/** A git call that touches the index: retried a few times with jitter when a foreign git holds index.lock. */
export function gitIndexed(ctx: Ctx, info: RepoInfo, args: string[], opts: GitOptions = {}): GitResult {
  let r = git(ctx, args, { cwd: info.top, ...opts });
  for (let attempt = 0; attempt < 4 && !r.ok && /index\.lock/.test(r.stderr); attempt++) {
    if (clearIndexLock(ctx, info).state === 'busy') return r;
    r = git(ctx, args, { cwd: info.top, ...opts });
  }
  return r;
}
