// worktree create|merge|cleanup|reap: one git worktree per executor of a
// parallel wave, so executors never share an index or run the project's hooks
// over each other's half-done edits.
//
// Layout (all inside the repository's shared git dir, never in a work tree):
//   <git-common-dir>/gsd-worktrees/<plan-id>/       the executor's checkout
//   <git-common-dir>/gsd-worktrees/<plan-id>.json   its record (branch, base, owner)
//   <git-common-dir>/gsd-worktrees/.lock            taken by create/cleanup/reap
//   <git-common-dir>/gsd-worktrees/.hook-run.json   present only while merge runs the hook
// Branch: gsd-wt/<plan-id>, created from the wave's base branch.
//
// Owner: the process that runs the orchestrating agent, found by walking up
// from gsd-tools past shells and wrappers, recorded with its start time (see
// core/lock.ts). A worktree is orphaned when that process is gone, or when it
// is the caller's own session (a run starts with reap, so anything its session
// already owns is left from an earlier run). `reap --dry-run` reports the same
// without changing anything (forensics reads it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bool } from '../cli/parse.ts';
import type { Result } from '../cli/output.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, refused } from '../core/errors.ts';
import { writeAtomic, readTextIfExists, safeUnlink } from '../core/fs.ts';
import { decodeJson } from '../core/json.ts';
import { clearIndexLock, git, gitIndexed, gitVersion, repoInfo, versionAtLeast, withRepoLock, WORKTREE_FOLDER, type RepoInfo } from '../core/git.ts';
import { holderAlive, processStart, withLock } from '../core/lock.ts';
import { loadConfig } from '../config/config.ts';
import type { Handler } from '../cli/handler.ts';

const BRANCH_PREFIX = 'gsd-wt/';
const PLAN_ID = /^[0-9A-Za-z][0-9A-Za-z._-]{0,63}$/;
const LONG = 10 * 60_000;

interface Owner {
  pid: number;
  start: string | null;
  command: string;
}

interface WorktreeRecord {
  version: 1;
  plan: string;
  branch: string;
  path: string;
  base_branch: string;
  base_sha: string;
  created: string;
  owner: Owner | null;
}

// ---------------------------------------------------------------- owner

const WRAPPERS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'busybox', 'env', 'timeout', 'nice', 'nohup', 'stdbuf', 'script', 'sudo', 'doas', 'xargs', 'time', 'strace', 'gsd_run']);

function parentOf(pid: number): { ppid: number; command: string } | null {
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(ppid) ? { ppid, command } : null;
    } catch {
      return null;
    }
  }
  if (process.platform === 'win32') return null;
  const r = spawnSync('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], { encoding: 'utf8', timeout: 5_000 });
  const m = /^\s*(\d+)\s+(.+)$/.exec(r.stdout.trim());
  return m ? { ppid: Number(m[1]), command: path.basename(m[2]!.trim()) } : null;
}

/** The nearest ancestor of this process that is not a shell or a wrapper: the agent's runtime. */
function sessionOwner(): Owner | null {
  let pid = process.ppid;
  for (let depth = 0; depth < 12 && pid > 1; depth++) {
    const p = parentOf(pid);
    if (!p) return null;
    const name = p.command.replace(/^-/, '');
    if (!WRAPPERS.has(name)) return { pid, start: processStart(pid), command: name };
    pid = p.ppid;
  }
  return null;
}

type Standing = 'active' | 'orphaned';

function standingOf(rec: WorktreeRecord, me: Owner | null): Standing {
  const o = rec.owner;
  if (!o || !holderAlive(o.pid, o.start ?? undefined)) return 'orphaned';
  if (me && me.pid === o.pid && holderAlive(me.pid, o.start ?? undefined)) return 'orphaned';
  return 'active';
}

// ---------------------------------------------------------------- repository

interface Repo {
  main: RepoInfo;
  folder: string;
}

function unsupported(reason: string, message: string): Result {
  return { data: { created: false, reason, mode: 'shared', message } };
}

/** The main checkout of the project's repository and our folder in its git dir. */
function openRepo(ctx: Ctx): Repo | string {
  const here = repoInfo(ctx, ctx.root);
  if (!here) return 'not_a_git_repo';
  const list = git(ctx, ['worktree', 'list', '--porcelain'], { cwd: here.top });
  if (!list.ok) return 'unsupported';
  const first = /^worktree (.+)$/m.exec(list.stdout);
  if (!first || /^bare$/m.test(list.stdout.split('\n\n')[0] ?? '')) return 'unsupported';
  const main = repoInfo(ctx, first[1]!);
  if (!main) return 'unsupported';
  return { main, folder: path.join(main.commonDir, WORKTREE_FOLDER) };
}

function repoOrThrow(ctx: Ctx): Repo {
  const repo = openRepo(ctx);
  if (typeof repo === 'string') throw new CliError('failed', repo === 'not_a_git_repo' ? `${ctx.rel(ctx.root)} is not inside a git repository` : 'this repository has no main checkout git worktrees can work from');
  return repo;
}

function checkPlanId(plan: string): string {
  if (!PLAN_ID.test(plan) || plan.includes('..')) throw new CliError('invalid-args', `worktree: "${plan}" is not a plan id like 03-02 (letters, digits, ".", "_", "-")`);
  return plan;
}

const recordFile = (repo: Repo, plan: string) => path.join(repo.folder, `${plan}.json`);

function readRecord(repo: Repo, plan: string): WorktreeRecord | null {
  const text = readTextIfExists(recordFile(repo, plan));
  if (text === null) return null;
  const rec = decodeJson<WorktreeRecord>(text).value;
  return rec && rec.version === 1 && rec.plan === plan ? rec : null;
}

function allRecords(repo: Repo): WorktreeRecord[] {
  let names: string[];
  try {
    names = fs.readdirSync(repo.folder);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .sort()
    .map((n) => readRecord(repo, n.slice(0, -5)))
    .filter((r): r is WorktreeRecord => r !== null);
}

const branchExists = (ctx: Ctx, repo: Repo, branch: string) => git(ctx, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo.main.top }).ok;

/** Checkouts git knows, by real path. */
function registered(ctx: Ctx, repo: Repo): Set<string> {
  const out = new Set<string>();
  for (const m of git(ctx, ['worktree', 'list', '--porcelain'], { cwd: repo.main.top }).stdout.matchAll(/^worktree (.+)$/gm)) {
    try {
      out.add(fs.realpathSync(m[1]!));
    } catch {
      out.add(m[1]!);
    }
  }
  return out;
}

function commitsNotIn(ctx: Ctx, repo: Repo, branch: string, base: string): { hash: string; subject: string }[] {
  const r = git(ctx, ['log', '--no-merges', '--format=%h%x09%s', `${base}..${branch}`], { cwd: repo.main.top });
  if (!r.ok) return [];
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ hash: l.slice(0, l.indexOf('\t')), subject: l.slice(l.indexOf('\t') + 1) }));
}

function dirtyFiles(ctx: Ctx, dir: string): string[] {
  const r = git(ctx, ['status', '--porcelain=v1', '--untracked-files=all'], { cwd: dir });
  return r.ok ? r.stdout.split('\n').filter(Boolean).map((l) => l.slice(3)) : [];
}

const withAdminLock = <T>(repo: Repo, fn: () => T): T => withLock(path.join(repo.folder, '.lock'), fn);

/** Put HEAD back on its branch if a merge was killed while the hook ran (HEAD detached at the wave's base). */
function restoreAfterHookCrash(ctx: Ctx, repo: Repo): string | null {
  const marker = path.join(repo.folder, '.hook-run.json');
  const text = readTextIfExists(marker);
  if (text === null) return null;
  const m = decodeJson<{ ref?: string; head?: string; base?: string }>(text).value ?? {};
  const top = repo.main.top;
  const detached = !git(ctx, ['symbolic-ref', '-q', 'HEAD'], { cwd: top }).ok;
  const at = git(ctx, ['rev-parse', '-q', '--verify', 'HEAD'], { cwd: top }).stdout.trim();
  let restored: string | null = null;
  if (detached && m.ref && at === m.base) {
    git(ctx, ['symbolic-ref', '-m', 'gsd: reattach HEAD after an interrupted wave hook', 'HEAD', m.ref], { cwd: top });
    restored = m.ref;
  }
  safeUnlink(marker);
  return restored;
}

// ---------------------------------------------------------------- create

const create: Handler = (inv, ctx) => {
  const plan = checkPlanId(inv.args.plan!);
  const cfg = loadConfig(ctx);
  const wf = (cfg.resolved.workflow ?? {}) as Record<string, unknown>;
  if (wf.use_worktrees === false) return unsupported('disabled', 'workflow.use_worktrees is false: executors share the working tree and commits queue on the repository lock');
  if (!versionAtLeast(gitVersion(ctx), 2, 17)) return unsupported('unsupported', 'git 2.17 or newer is needed for worktrees');
  const repo = openRepo(ctx);
  if (typeof repo === 'string') return unsupported(repo, repo === 'not_a_git_repo' ? 'not a git repository' : 'no main checkout to branch worktrees from');
  const top = repo.main.top;
  const base = (inv.flags['--base'] as string | undefined) ?? git(ctx, ['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top }).stdout.trim();
  if (base === '') return unsupported('detached_head', 'the main checkout is not on a branch, so there is no base branch to merge the wave back into');
  const baseSha = git(ctx, ['rev-parse', '-q', '--verify', `refs/heads/${base}^{commit}`], { cwd: top }).stdout.trim();
  if (baseSha === '') return unsupported('no_base', `branch "${base}" has no commit yet`);
  const branch = `${BRANCH_PREFIX}${plan}`;
  const dir = path.join(repo.folder, plan);
  fs.mkdirSync(repo.folder, { recursive: true });
  return withAdminLock(repo, () => {
    const owner = sessionOwner();
    const rec = readRecord(repo, plan);
    const hasBranch = branchExists(ctx, repo, branch);
    const live = registered(ctx, repo).has(dir) && fs.existsSync(dir);
    const out = (r: WorktreeRecord, reused: boolean, extra: Record<string, unknown> = {}): Result => ({
      data: { created: true, reused, plan, branch: r.branch, path: r.path, base_branch: r.base_branch, base_sha: r.base_sha, ...extra },
      raw: r.path,
    });
    if (rec && hasBranch) {
      if (rec.base_branch !== base) throw refused(`worktree ${plan}: branch ${branch} was made from ${rec.base_branch}, not ${base}; merge or clean it up first (worktree cleanup ${plan} --discard drops it)`);
      if (!live) {
        git(ctx, ['worktree', 'prune'], { cwd: top });
        const add = git(ctx, ['worktree', 'add', dir, branch], { cwd: top, timeoutMs: LONG });
        if (!add.ok) throw new CliError('failed', `worktree ${plan}: git worktree add failed: ${add.stderr}`);
      }
      const next = { ...rec, path: dir, owner };
      writeAtomic(recordFile(repo, plan), `${JSON.stringify(next, null, 2)}\n`);
      return out(next, true, { commits: commitsNotIn(ctx, repo, branch, base).length });
    }
    if (hasBranch) throw refused(`worktree ${plan}: branch ${branch} exists but GSD has no record of it; rename or delete it, then retry`);
    if (fs.existsSync(dir)) {
      if (live || fs.readdirSync(dir).length > 0) throw refused(`worktree ${plan}: ${dir} exists without its branch; remove it, then retry`);
      fs.rmdirSync(dir);
    }
    git(ctx, ['worktree', 'prune'], { cwd: top });
    const add = git(ctx, ['worktree', 'add', '-b', branch, dir, baseSha], { cwd: top, timeoutMs: LONG });
    if (!add.ok) throw new CliError('failed', `worktree ${plan}: git worktree add failed: ${add.stderr}`);
    const next: WorktreeRecord = { version: 1, plan, branch, path: fs.realpathSync(dir), base_branch: base, base_sha: baseSha, created: ctx.now().toISOString(), owner };
    writeAtomic(recordFile(repo, plan), `${JSON.stringify(next, null, 2)}\n`);
    return out(next, false);
  });
};

// ---------------------------------------------------------------- merge

interface HookOutcome {
  hook: 'pre-commit';
  ran: boolean;
  reason?: string;
  method?: string;
  ok?: boolean;
  exit_code?: number;
  output?: string;
  changed_files?: string[];
}

function hookFile(ctx: Ctx, main: RepoInfo): string | null {
  const configured = git(ctx, ['config', '--path', 'core.hooksPath'], { cwd: main.top }).stdout.trim();
  const dir = configured ? path.resolve(main.top, configured) : path.join(main.commonDir, 'hooks');
  const file = path.join(dir, 'pre-commit');
  try {
    const st = fs.statSync(file);
    return st.isFile() && (process.platform === 'win32' || (st.mode & 0o111) !== 0) ? file : null;
  } catch {
    return null;
  }
}

const tail = (s: string, n = 4000) => (s.length > n ? `…${s.slice(-n)}` : s);

/**
 * Run the project's pre-commit hook once over everything merged in
 * `from..to`: HEAD is detached at `from` while the hook runs, so the index
 * (which holds `to`) shows the whole wave as staged changes, in the main
 * checkout where the project's tools are installed. HEAD goes back on its
 * branch afterwards, also on error; a kill in between is repaired by the next
 * merge or reap (.hook-run.json).
 */
function runWaveHook(ctx: Ctx, repo: Repo, from: string, to: string): HookOutcome {
  const main = repo.main;
  const file = hookFile(ctx, main);
  if (!file) return { hook: 'pre-commit', ran: false, reason: 'no_hook' };
  const viaGit = versionAtLeast(gitVersion(ctx), 2, 36) && (ctx.env.GSD_HOOK_RUNNER ?? process.env.GSD_HOOK_RUNNER) !== 'direct';
  const ref = git(ctx, ['symbolic-ref', '-q', 'HEAD'], { cwd: main.top }).stdout.trim();
  const statusBefore = new Set(dirtyFiles(ctx, main.top));
  const marker = path.join(repo.folder, '.hook-run.json');
  writeAtomic(marker, `${JSON.stringify({ ref, head: to, base: from, pid: process.pid })}\n`);
  const detach = git(ctx, ['update-ref', '--no-deref', '-m', 'gsd: run pre-commit over the merged wave', 'HEAD', from], { cwd: main.top });
  if (!detach.ok) {
    if (ref) git(ctx, ['symbolic-ref', 'HEAD', ref], { cwd: main.top });
    safeUnlink(marker);
    return { hook: 'pre-commit', ran: false, reason: 'detach_failed', output: tail(detach.stderr) };
  }
  let run: { ok: boolean; code: number; output: string };
  try {
    const env = { GSD_WAVE_BASE: from, GSD_WAVE_HEAD: to };
    if (viaGit) {
      const r = git(ctx, ['hook', 'run', '--ignore-missing', 'pre-commit'], { cwd: main.top, timeoutMs: LONG, env });
      run = { ok: r.ok, code: r.code, output: `${r.stdout}${r.stderr}` };
    } else {
      const r = spawnSync(file, [], { cwd: main.top, encoding: 'utf8', timeout: LONG, env: { ...process.env, ...ctx.env, ...env } as NodeJS.ProcessEnv });
      run = { ok: r.status === 0, code: r.status ?? 1, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
    }
  } finally {
    if (ref) git(ctx, ['symbolic-ref', '-m', 'gsd: back on the branch after the wave hook', 'HEAD', ref], { cwd: main.top });
    safeUnlink(marker);
  }
  const changed = dirtyFiles(ctx, main.top).filter((f) => !statusBefore.has(f));
  return { hook: 'pre-commit', ran: true, method: viaGit ? 'git hook run' : 'direct', ok: run.ok, exit_code: run.code, output: tail(run.output.trim()), changed_files: changed };
}

const merge: Handler = (inv, ctx) => {
  const plans = (inv.words.plans ?? []).map(checkPlanId);
  const repo = repoOrThrow(ctx);
  const top = repo.main.top;
  const recs = plans.map((p) => {
    const rec = readRecord(repo, p);
    if (!rec) throw new CliError('not-found', `worktree merge: no worktree record for plan ${p} (was it created with worktree create?)`);
    return rec;
  });
  const base = recs[0]!.base_branch;
  const other = recs.find((r) => r.base_branch !== base);
  if (other) throw refused(`worktree merge: plan ${other.plan} was branched from ${other.base_branch}, plan ${recs[0]!.plan} from ${base}; merge each wave into its own base`);
  const restored = restoreAfterHookCrash(ctx, repo);
  const current = git(ctx, ['symbolic-ref', '--short', '-q', 'HEAD'], { cwd: top }).stdout.trim();
  if (current !== base) throw refused(`worktree merge: the main checkout (${top}) is on ${current || 'a detached HEAD'}, the wave's base branch is ${base}; switch to ${base} first`);
  if (!git(ctx, ['diff', '--cached', '--quiet'], { cwd: top }).ok) throw refused(`worktree merge: the main checkout has staged changes; commit or unstage them before merging the wave`);
  const cfg = loadConfig(ctx);
  const skipHooks = bool(inv, '--no-hooks') || ((cfg.resolved.workflow ?? {}) as Record<string, unknown>).worktree_skip_hooks === true;
  return withRepoLock(ctx, repo.main, (): Result => {
    const lock = clearIndexLock(ctx, repo.main);
    if (lock.state === 'busy') throw new CliError('locked', `worktree merge: ${lock.message}`);
    const head = () => git(ctx, ['rev-parse', '-q', '--verify', 'HEAD'], { cwd: top }).stdout.trim();
    const waveStart = head();
    const merged: Record<string, unknown>[] = [];
    const already: string[] = [];
    const mergedRecs: WorktreeRecord[] = [];
    let conflict: Record<string, unknown> | null = null;
    let failure: Record<string, unknown> | null = null;
    let stoppedAt = plans.length;
    for (const [i, rec] of recs.entries()) {
      if (!branchExists(ctx, repo, rec.branch)) {
        failure = { plan: rec.plan, error: `branch ${rec.branch} does not exist` };
        stoppedAt = i;
        break;
      }
      if (git(ctx, ['merge-base', '--is-ancestor', rec.branch, 'HEAD'], { cwd: top }).ok) {
        already.push(rec.plan);
        continue;
      }
      const before = head();
      const commits = Number(git(ctx, ['rev-list', '--count', '--no-merges', `HEAD..${rec.branch}`], { cwd: top }).stdout.trim()) || 0;
      const m = gitIndexed(ctx, repo.main, ['merge', '--no-ff', '--no-verify', '--no-edit', '-m', `merge(${rec.plan}): plan ${rec.plan} from its wave worktree`, rec.branch], { timeoutMs: LONG, env: { GIT_MERGE_AUTOEDIT: 'no' } });
      if (m.ok) {
        merged.push({ plan: rec.plan, branch: rec.branch, commits, merge_commit: git(ctx, ['rev-parse', '--short', 'HEAD'], { cwd: top }).stdout.trim() });
        mergedRecs.push(rec);
        continue;
      }
      const files = git(ctx, ['diff', '--name-only', '--diff-filter=U'], { cwd: top }).stdout.split('\n').filter(Boolean);
      if (fs.existsSync(path.join(repo.main.gitDir, 'MERGE_HEAD'))) gitIndexed(ctx, repo.main, ['merge', '--abort']);
      const restoredClean = head() === before && !fs.existsSync(path.join(repo.main.gitDir, 'MERGE_HEAD'));
      stoppedAt = i;
      if (files.length > 0) {
        const touches = (from: string, to: string) => git(ctx, ['diff', '--name-only', from, to, '--', ...files], { cwd: top }).stdout.split('\n').filter(Boolean);
        const withPlans = [...mergedRecs, ...recs.slice(0, i).filter((r) => already.includes(r.plan))]
          .filter((r) => touches(r.base_sha, r.branch).length > 0)
          .map((r) => r.plan);
        const baseChanged = touches(rec.base_sha, waveStart).length > 0;
        conflict = {
          plan: rec.plan,
          files,
          with_plans: withPlans,
          base_changed: baseChanged,
          aborted: restoredClean,
          head: git(ctx, ['rev-parse', '--short', 'HEAD'], { cwd: top }).stdout.trim(),
          message: `plan ${rec.plan} conflicts with ${[...withPlans.map((p) => `plan ${p}`), ...(baseChanged ? [`${base} since the wave started`] : [])].join(', ') || base} in ${files.join(', ')}; its merge was aborted and ${base} is as it was before it`,
        };
      } else {
        failure = { plan: rec.plan, error: m.stderr || m.stdout.trim(), aborted: restoredClean };
      }
      break;
    }
    const pending = plans.slice(stoppedAt);
    const end = head();
    const hooks: HookOutcome =
      end === waveStart ? { hook: 'pre-commit', ran: false, reason: 'nothing_merged' } : skipHooks ? { hook: 'pre-commit', ran: false, reason: 'skipped' } : runWaveHook(ctx, repo, waveStart, end);
    const status = conflict ? 'conflict' : failure ? 'failed' : (hooks.ran && !hooks.ok) || hooks.reason === 'detach_failed' ? 'hooks_failed' : 'merged';
    return {
      data: {
        status,
        base_branch: base,
        from: waveStart.slice(0, 12),
        head: end.slice(0, 12),
        merged,
        already_merged: already,
        pending,
        conflict,
        failure,
        hooks,
        ...(restored ? { restored_head: restored } : {}),
      },
      raw: status,
      ...(status === 'merged' ? {} : { exitCode: 1 }),
    };
  });
};

// ---------------------------------------------------------------- cleanup and reap

interface Retired {
  plan: string;
  branch: string;
  worktree_removed: boolean;
  branch_deleted: boolean;
  kept?: 'dirty' | 'unmerged';
  dirty_files?: string[];
  unmerged_commits?: { hash: string; subject: string }[];
  discarded_commits?: { hash: string; subject: string }[];
}

/** What a worktree holds that is not on its base branch: uncommitted files (when checked out) and commits. Reads only. */
function holdings(ctx: Ctx, repo: Repo, rec: WorktreeRecord) {
  const live = registered(ctx, repo).has(rec.path) && fs.existsSync(rec.path);
  const hasBranch = branchExists(ctx, repo, rec.branch);
  const baseRef = branchExists(ctx, repo, rec.base_branch) ? rec.base_branch : rec.base_sha;
  return { live, hasBranch, dirty: live ? dirtyFiles(ctx, rec.path) : [], unmerged: hasBranch ? commitsNotIn(ctx, repo, rec.branch, baseRef) : [] };
}

/** What retire would do, done by nobody: the same record shape with nothing removed. */
function preview(ctx: Ctx, repo: Repo, rec: WorktreeRecord, discard: boolean): Retired {
  const { dirty, unmerged } = holdings(ctx, repo, rec);
  const out: Retired = { plan: rec.plan, branch: rec.branch, worktree_removed: false, branch_deleted: false };
  if (dirty.length > 0 && !discard) return { ...out, kept: 'dirty', dirty_files: dirty, unmerged_commits: unmerged };
  if (unmerged.length > 0 && !discard) return { ...out, kept: 'unmerged', unmerged_commits: unmerged };
  return { ...out, ...(dirty.length ? { dirty_files: dirty } : {}), ...(unmerged.length ? { discarded_commits: unmerged } : {}) };
}

/** Remove a worktree and its branch; keep what holds work that is not on the base branch unless `discard`. */
function retire(ctx: Ctx, repo: Repo, rec: WorktreeRecord, discard: boolean): Retired {
  const top = repo.main.top;
  const out: Retired = { plan: rec.plan, branch: rec.branch, worktree_removed: false, branch_deleted: false };
  const { live, hasBranch, dirty, unmerged } = holdings(ctx, repo, rec);
  if (live) {
    if (dirty.length > 0 && !discard) return { ...out, kept: 'dirty', dirty_files: dirty, unmerged_commits: unmerged };
    const rm = git(ctx, ['worktree', 'remove', ...(discard ? ['--force'] : []), rec.path], { cwd: top });
    if (!rm.ok) throw new CliError('failed', `worktree ${rec.plan}: git worktree remove failed: ${rm.stderr}`);
  }
  git(ctx, ['worktree', 'prune'], { cwd: top });
  out.worktree_removed = true;
  if (unmerged.length > 0 && !discard) return { ...out, kept: 'unmerged', unmerged_commits: unmerged };
  if (hasBranch) {
    const del = git(ctx, ['branch', '-D', rec.branch], { cwd: top });
    if (!del.ok) throw new CliError('failed', `worktree ${rec.plan}: could not delete branch ${rec.branch}: ${del.stderr}`);
  }
  out.branch_deleted = true;
  if (unmerged.length > 0) out.discarded_commits = unmerged;
  safeUnlink(recordFile(repo, rec.plan));
  return out;
}

const cleanup: Handler = (inv, ctx) => {
  const plans = (inv.words.plans ?? []).map(checkPlanId);
  const repo = repoOrThrow(ctx);
  const discard = bool(inv, '--discard');
  return withAdminLock(repo, () => {
    const results = plans.map((p) => {
      const rec = readRecord(repo, p);
      if (!rec) throw new CliError('not-found', `worktree cleanup: no worktree record for plan ${p}`);
      return retire(ctx, repo, rec, discard);
    });
    return { data: { removed: results.filter((r) => !r.kept).map((r) => r.plan), kept: results.filter((r) => r.kept), results } };
  });
};

const reap: Handler = (inv, ctx) => {
  const opened = openRepo(ctx);
  if (typeof opened === 'string') return { data: { reaped: [], kept: [], active: [], stray_branches: [], reason: opened } };
  const repo = opened;
  const discard = bool(inv, '--discard');
  const dryRun = bool(inv, '--dry-run');
  if (!fs.existsSync(repo.folder)) return { data: { reaped: [], kept: [], active: [], stray_branches: [], ...(dryRun ? { dry_run: true } : {}) } };
  // --dry-run: the same answer, with no lock taken, no prune, no hook-crash restore and nothing removed.
  const run = <T>(fn: () => T): T => (dryRun ? fn() : withAdminLock(repo, fn));
  return run(() => {
    const restored = dryRun ? null : restoreAfterHookCrash(ctx, repo);
    if (!dryRun) git(ctx, ['worktree', 'prune'], { cwd: repo.main.top });
    const me = sessionOwner();
    const reaped: Retired[] = [];
    const kept: Retired[] = [];
    const active: { plan: string; branch: string; owner: Owner | null }[] = [];
    const records = allRecords(repo);
    for (const rec of records) {
      if (standingOf(rec, me) === 'active') {
        active.push({ plan: rec.plan, branch: rec.branch, owner: rec.owner });
        continue;
      }
      const r = (dryRun ? preview : retire)(ctx, repo, rec, discard);
      (r.kept ? kept : reaped).push(r);
    }
    // Branches in our namespace that no record explains: reported, never deleted.
    const known = new Set(records.map((r) => r.branch));
    const stray = git(ctx, ['for-each-ref', '--format=%(refname:short)', `refs/heads/${BRANCH_PREFIX}`], { cwd: repo.main.top })
      .stdout.split('\n')
      .filter((b) => b && !known.has(b));
    return { data: { reaped, kept, active, stray_branches: stray, ...(restored ? { restored_head: restored } : {}), ...(dryRun ? { dry_run: true } : {}) } };
  });
};

export const handlers: Record<string, Handler> = {
  'worktree create': create,
  'worktree merge': merge,
  'worktree cleanup': cleanup,
  'worktree reap': reap,
};
