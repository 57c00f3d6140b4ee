// Parallel executors on one repository, through the built CLI: stand-in
// executors (child processes doing real edits and `gsd-tools commit`) run
// concurrently, with and without wave worktrees; stale locks are recovered;
// a merge conflict becomes a checkpoint.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { cliPath, codeCacheHome, FIXED_NOW, project, run, tmpDir } from './helpers.ts';

const s = suite('parallel executors');

const EXECUTORS = 8;
const TASKS = 8;
const standIn = new URL('./stand-in-executor.mjs', import.meta.url).pathname;

function sh(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' } });
}

/** A git project with .planning tracked and a pre-commit hook that appends one line per run to the returned log. */
function gitProject(config: Record<string, unknown> = {}): { root: string; hookLog: string } {
  const root = project({
    '.planning/STATE.md': '# State\n',
    '.planning/config.json': `${JSON.stringify(config, null, 2)}\n`,
    'README.md': '# demo\n',
    'src/shared.txt': 'base\n',
  });
  sh(root, 'init', '-q', '-b', 'main');
  sh(root, 'config', 'user.email', 'test@example.com');
  sh(root, 'config', 'user.name', 'Test');
  sh(root, 'add', '.');
  sh(root, 'commit', '-q', '-m', 'init');
  const hookLog = path.join(tmpDir('gsd-hooklog-'), 'runs.log');
  fs.writeFileSync(hookLog, '');
  const hook = path.join(root, '.git', 'hooks', 'pre-commit');
  fs.writeFileSync(hook, `#!/bin/sh\necho "run" >> '${hookLog}'\n`, { mode: 0o755 });
  return { root, hookLog };
}

const hookRuns = (log: string) => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length;

const cliEnv = (root: string): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: root, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW, GIT_CONFIG_NOSYSTEM: '1' });

interface Outcome {
  plan: string;
  task: number;
  file: string;
  code: number;
  answer: { committed?: boolean; reason?: string; hash?: string } | null;
  stderr: string;
}

/** Run one stand-in executor per plan, all at once; resolves to every commit outcome. */
async function runWave(root: string, jobs: { plan: string; cwd: string }[]): Promise<Outcome[]> {
  const cli = await cliPath();
  const all = jobs.map(
    (job, i) =>
      new Promise<Outcome[]>((resolve, reject) => {
        let out = '';
        let err = '';
        const child = spawn(process.execPath, [standIn, JSON.stringify({ cli, cwd: job.cwd, plan: job.plan, tasks: TASKS, dir: `src/plan-${i + 1}`, env: cliEnv(root) })]);
        child.stdout.on('data', (d: Buffer) => (out += d));
        child.stderr.on('data', (d: Buffer) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => {
          if (code !== 0) reject(new Error(`stand-in executor ${job.plan} exited ${code}: ${err}`));
          else resolve(out.trim().split('\n').map((l) => JSON.parse(l) as Outcome));
        });
      }),
  );
  return (await Promise.all(all)).flat();
}

const plans = Array.from({ length: EXECUTORS }, (_, i) => `01-${String(i + 1).padStart(2, '0')}`);

function figures(label: string, outcomes: Outcome[], root: string): { committed: number; lost: number } {
  const inHead = new Set(sh(root, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n'));
  const committed = outcomes.filter((o) => o.answer?.committed === true).length;
  const lost = outcomes.filter((o) => !inHead.has(o.file)).length;
  console.log(`${label}: attempted ${outcomes.length}, committed ${committed}, lost ${lost}`);
  return { committed, lost };
}

s('should land 8 executors x 8 task commits from wave worktrees on the base branch, with the hook run once', async () => {
  const { root, hookLog } = gitProject();
  const env = cliEnv(root);
  assert.is((await run(['worktree', 'reap'], { cwd: root, env })).code, 0);
  const base = sh(root, 'rev-parse', 'HEAD').trim();
  const jobs: { plan: string; cwd: string }[] = [];
  for (const plan of plans) {
    const r = await run(['worktree', 'create', plan], { cwd: root, env });
    assert.is(r.code, 0, r.stderr);
    assert.is(r.json.created, true);
    assert.is(r.json.branch, `gsd-wt/${plan}`);
    assert.ok(r.json.path.startsWith(path.join(root, '.git', 'gsd-worktrees')), r.json.path);
    jobs.push({ plan, cwd: r.json.path });
  }
  const outcomes = await runWave(root, jobs);
  for (const o of outcomes) {
    assert.is(o.code, 0, `${o.plan} task ${o.task}: ${o.stderr}`);
    assert.is(o.answer?.committed, true, `${o.plan} task ${o.task}: ${JSON.stringify(o.answer)}`);
  }
  assert.is(hookRuns(hookLog), 0, 'executor commits in worktrees skip the hook');
  const merged = await run(['worktree', 'merge', ...plans], { cwd: root, env });
  assert.is(merged.code, 0, merged.stdout + merged.stderr);
  assert.is(merged.json.status, 'merged');
  assert.equal(merged.json.merged.map((m: { plan: string }) => m.plan), plans);
  assert.is(merged.json.hooks.ran, true);
  assert.is(merged.json.hooks.ok, true);
  assert.is(hookRuns(hookLog), 1, 'the pre-commit hook ran once for the wave');
  const count = Number(sh(root, 'rev-list', '--count', '--no-merges', `${base}..main`).trim());
  assert.is(count, EXECUTORS * TASKS);
  const { committed, lost } = figures('with worktrees', outcomes, root);
  assert.is(committed, EXECUTORS * TASKS);
  assert.is(lost, 0);
  console.log(`with worktrees: pre-commit hook runs for the wave: ${hookRuns(hookLog)}`);
  assert.is(sh(root, 'status', '--porcelain').trim(), '');
  assert.is(sh(root, 'symbolic-ref', '--short', 'HEAD').trim(), 'main');
  const cleaned = await run(['worktree', 'cleanup', ...plans], { cwd: root, env });
  assert.is(cleaned.code, 0, cleaned.stderr);
  assert.equal(cleaned.json.removed, plans);
  assert.is(sh(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 1);
  assert.is(sh(root, 'branch', '--list', 'gsd-wt/*').trim(), '');
});

s('should land 8 executors x 8 task commits through the repository lock without worktrees, none lost or falsely reported', async () => {
  const { root, hookLog } = gitProject({ workflow: { use_worktrees: false } });
  const env = cliEnv(root);
  const off = await run(['worktree', 'create', plans[0]!], { cwd: root, env });
  assert.is(off.code, 0);
  assert.is(off.json.created, false);
  assert.is(off.json.reason, 'disabled');
  const base = sh(root, 'rev-parse', 'HEAD').trim();
  const outcomes = await runWave(root, plans.map((plan) => ({ plan, cwd: root })));
  const { committed, lost } = figures('without worktrees', outcomes, root);
  const inHead = new Set(sh(root, 'ls-tree', '-r', '--name-only', 'HEAD').split('\n'));
  for (const o of outcomes) {
    assert.is(o.code, 0, `${o.plan} task ${o.task}: ${o.stderr}`);
    assert.is(o.answer?.committed, true, `${o.plan} task ${o.task}: ${JSON.stringify(o.answer)}`);
    assert.ok(inHead.has(o.file), `${o.file} is in HEAD`);
  }
  assert.is(committed, EXECUTORS * TASKS);
  assert.is(lost, 0);
  assert.is(Number(sh(root, 'rev-list', '--count', `${base}..HEAD`).trim()), EXECUTORS * TASKS);
  console.log(`without worktrees: pre-commit hook runs: ${hookRuns(hookLog)} (one per commit)`);
  assert.is(hookRuns(hookLog), EXECUTORS * TASKS);
  assert.is(sh(root, 'status', '--porcelain').trim(), '');
});

s('should answer nothing_to_commit only for content already in HEAD, and fail with exit 1 otherwise', async () => {
  const { root } = gitProject();
  const env = cliEnv(root);
  const same = await run(['commit', 'docs: again', '--files', 'README.md'], { cwd: root, env });
  assert.is(same.code, 0);
  assert.is(same.json.reason, 'nothing_to_commit');
  fs.writeFileSync(path.join(root, '.gitignore'), 'ignored.txt\n');
  sh(root, 'add', '.gitignore');
  sh(root, 'commit', '-q', '-m', 'ignore');
  fs.writeFileSync(path.join(root, 'ignored.txt'), 'x\n');
  const ignored = await run(['commit', 'feat: ignored', '--files', 'ignored.txt'], { cwd: root, env });
  assert.is(ignored.code, 1);
  assert.is(ignored.json.committed, false);
  assert.is(ignored.json.reason, 'staging_failed');
  fs.writeFileSync(path.join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho "lint: no" >&2\nexit 1\n', { mode: 0o755 });
  fs.writeFileSync(path.join(root, 'src', 'shared.txt'), 'changed\n');
  const hooked = await run(['commit', 'feat: blocked', '--files', 'src/shared.txt'], { cwd: root, env });
  assert.is(hooked.code, 1);
  assert.is(hooked.json.reason, 'commit_failed');
  assert.match(hooked.json.error, /lint: no/);
  assert.is(sh(root, 'diff', '--cached', '--name-only').trim(), '', 'the failed commit left nothing staged');
  fs.rmSync(path.join(root, 'src', 'shared.txt'));
  const deleted = await run(['commit', 'chore: drop shared', '--files', 'src/shared.txt', '--no-verify'], { cwd: root, env });
  assert.is(deleted.code, 0, deleted.stderr);
  assert.is(deleted.json.committed, true);
  assert.not.ok(sh(root, 'ls-tree', '-r', '--name-only', 'HEAD').includes('src/shared.txt'));
});

s('should recover an index.lock left by a dead git, and report a fresh one instead of committing', async () => {
  const { root } = gitProject();
  const env = cliEnv(root);
  const lock = path.join(root, '.git', 'index.lock');
  fs.writeFileSync(lock, '');
  const old = new Date(Date.now() - 3_600_000);
  fs.utimesSync(lock, old, old);
  fs.writeFileSync(path.join(root, 'src', 'a.txt'), 'a\n');
  const r = await run(['commit', 'feat: a', '--files', 'src/a.txt'], { cwd: root, env });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.is(r.json.committed, true);
  assert.ok(r.json.recovered_index_lock, JSON.stringify(r.json));
  assert.not.ok(fs.existsSync(lock));
  fs.writeFileSync(lock, '');
  fs.writeFileSync(path.join(root, 'src', 'b.txt'), 'b\n');
  const busy = await run(['commit', 'feat: b', '--files', 'src/b.txt'], { cwd: root, env: { ...env, GSD_INDEX_LOCK_WAIT_MS: '300' } });
  assert.is(busy.code, 1);
  assert.is(busy.json.committed, false);
  assert.is(busy.json.reason, 'index_locked');
  assert.match(busy.json.error, /\.git\/index\.lock exists/);
  assert.ok(fs.existsSync(lock), 'a young index.lock is left alone');
  fs.rmSync(lock);
});

s('should recover the branch ref and HEAD locks a killed commit leaves, and report a fresh one', async () => {
  const { root } = gitProject();
  const env = cliEnv(root);
  const branch = sh(root, 'symbolic-ref', '--short', 'HEAD').trim();
  const refLock = path.join(root, '.git', 'refs', 'heads', `${branch}.lock`);
  const headLock = path.join(root, '.git', 'HEAD.lock');
  const old = new Date(Date.now() - 3_600_000);
  for (const file of [refLock, headLock]) {
    fs.writeFileSync(file, '');
    fs.utimesSync(file, old, old);
  }
  fs.writeFileSync(path.join(root, 'src', 'r.txt'), 'r\n');
  const r = await run(['commit', 'feat: r', '--files', 'src/r.txt'], { cwd: root, env });
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.is(r.json.committed, true);
  assert.equal(
    (r.json.recovered_index_lock as { file: string }[]).map((entry) => entry.file),
    ['.git/HEAD.lock', `.git/refs/heads/${branch}.lock`],
  );
  assert.ok(sh(root, 'ls-tree', '-r', '--name-only', 'HEAD').includes('src/r.txt'));
  fs.writeFileSync(refLock, '');
  fs.writeFileSync(path.join(root, 'src', 's.txt'), 's\n');
  const busy = await run(['commit', 'feat: s', '--files', 'src/s.txt'], { cwd: root, env: { ...env, GSD_INDEX_LOCK_WAIT_MS: '300' } });
  assert.is(busy.code, 1);
  assert.is(busy.json.committed, false);
  assert.is(busy.json.reason, 'index_locked');
  assert.match(busy.json.error, new RegExp(`refs/heads/${branch}\\.lock exists`));
  assert.is(sh(root, 'diff', '--cached', '--name-only').trim(), '', 'nothing was left staged');
  assert.ok(fs.existsSync(refLock), 'a young ref lock is left alone');
  fs.rmSync(refLock);
});

/** The start reading core/lock.ts records for a pid ('-', unknown, off Linux). */
function startOf(pid: number): string {
  if (process.platform !== 'linux') return '-';
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return `linux:${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}`;
}

s('should take over a lock whose pid now belongs to another live process', async () => {
  const { root } = gitProject();
  const env = cliEnv(root);
  // A live process that is not the lock's writer: same pid, other start time.
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    const lockFile = path.join(root, '.git', 'gsd-commit.lock');
    fs.writeFileSync(lockFile, `${other.pid}\nlinux:1\nstale-token\n`);
    fs.writeFileSync(path.join(root, '.planning', 'STATE.md.lock'), `${other.pid}\nlinux:1\nstale-token\n`);
    fs.writeFileSync(path.join(root, 'src', 'c.txt'), 'c\n');
    // With a 5 s bound, a lock judged live would fail here rather than after 30 s.
    const quick = { ...env, GSD_LOCK_TIMEOUT_MS: '5000', GSD_COMMIT_LOCK_TIMEOUT_MS: '5000' };
    const r = await run(['commit', 'feat: c', '--files', 'src/c.txt'], { cwd: root, env: quick });
    if (process.platform === 'linux') {
      assert.is(r.code, 0, r.stdout + r.stderr);
      assert.is(r.json.committed, true);
      assert.not.ok(fs.existsSync(lockFile));
      const st = await run(['state', 'json'], { cwd: root, env: quick });
      assert.is(st.code, 0, st.stderr);
    }
    // A lock holding a live, correctly identified holder is still respected.
    fs.writeFileSync(lockFile, `${other.pid}\n${startOf(other.pid!)}\nlive-token\n`);
    fs.writeFileSync(path.join(root, 'src', 'd.txt'), 'd\n');
    const held = await run(['commit', 'feat: d', '--files', 'src/d.txt'], { cwd: root, env: { ...env, GSD_COMMIT_LOCK_TIMEOUT_MS: '300' } });
    assert.is(held.code, 1);
    assert.is(held.json.reason, 'lock_timeout');
    fs.rmSync(lockFile);
  } finally {
    other.kill();
  }
});

s('should turn a merge conflict into a checkpoint naming plans and files, leaving the base branch as it was', async () => {
  const { root, hookLog } = gitProject();
  // This one runs the hook file itself, as on git older than 2.36.
  const env = { ...cliEnv(root), GSD_HOOK_RUNNER: 'direct' };
  const paths: Record<string, string> = {};
  for (const plan of ['02-01', '02-02', '02-03']) {
    const r = await run(['worktree', 'create', plan], { cwd: root, env });
    assert.is(r.code, 0, r.stderr);
    paths[plan] = r.json.path;
  }
  const edit = async (plan: string, file: string, text: string) => {
    fs.writeFileSync(path.join(paths[plan]!, file), text);
    const c = await run(['commit', `feat(${plan}): edit ${file}`, '--files', file], { cwd: paths[plan]!, env });
    assert.is(c.json.committed, true, c.stdout + c.stderr);
  };
  await edit('02-01', 'src/shared.txt', 'from 02-01\n');
  await edit('02-02', 'src/shared.txt', 'from 02-02\n');
  await edit('02-03', 'src/other.txt', 'from 02-03\n');
  const m = await run(['worktree', 'merge', '02-01', '02-02', '02-03'], { cwd: root, env });
  assert.is(m.code, 1);
  assert.is(m.json.status, 'conflict');
  assert.equal(m.json.merged.map((x: { plan: string }) => x.plan), ['02-01']);
  assert.is(m.json.conflict.plan, '02-02');
  assert.equal(m.json.conflict.files, ['src/shared.txt']);
  assert.equal(m.json.conflict.with_plans, ['02-01']);
  assert.is(m.json.conflict.aborted, true);
  assert.equal(m.json.pending, ['02-02', '02-03']);
  assert.is(sh(root, 'status', '--porcelain').trim(), '', 'no conflict markers or staged files left');
  assert.not.ok(fs.existsSync(path.join(root, '.git', 'MERGE_HEAD')));
  assert.is(fs.readFileSync(path.join(root, 'src', 'shared.txt'), 'utf8'), 'from 02-01\n');
  assert.is(sh(root, 'rev-parse', '--short', 'HEAD').trim(), m.json.conflict.head);
  assert.is(m.json.hooks.ran, true, 'the hook still covered what was merged');
  assert.is(m.json.hooks.method, 'direct');
  assert.is(hookRuns(hookLog), 1);
  // Cleanup keeps the unmerged branch and says what is on it.
  const c = await run(['worktree', 'cleanup', '02-02'], { cwd: root, env });
  assert.is(c.json.kept[0].kept, 'unmerged');
  assert.is(c.json.kept[0].unmerged_commits.length, 1);
  assert.ok(sh(root, 'branch', '--list', 'gsd-wt/02-02').includes('gsd-wt/02-02'));
});

s('should report a failing wave hook with its output, keep the merges and put HEAD back on the branch', async () => {
  const { root } = gitProject();
  const env = cliEnv(root);
  const r = await run(['worktree', 'create', '05-01'], { cwd: root, env });
  fs.writeFileSync(path.join(r.json.path, 'src', 'bad.txt'), 'TODO\n');
  assert.is((await run(['commit', 'feat(05-01): bad', '--files', 'src/bad.txt'], { cwd: r.json.path, env })).json.committed, true);
  // The hook sees the wave's files as staged against the wave's start.
  fs.writeFileSync(path.join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nif git diff --cached --name-only | grep -q bad.txt; then echo "bad.txt has a TODO" >&2; exit 1; fi\n', { mode: 0o755 });
  const m = await run(['worktree', 'merge', '05-01'], { cwd: root, env });
  assert.is(m.code, 1);
  assert.is(m.json.status, 'hooks_failed');
  assert.match(m.json.hooks.output, /bad\.txt has a TODO/);
  assert.equal(m.json.merged.map((x: { plan: string }) => x.plan), ['05-01']);
  assert.is(sh(root, 'symbolic-ref', '--short', 'HEAD').trim(), 'main');
  assert.is(sh(root, 'rev-parse', 'HEAD').trim().slice(0, 12), m.json.head);
  assert.is(sh(root, 'status', '--porcelain').trim(), '');
});

s('should reap the worktrees of a run that died, keep unmerged work, and leave a live run alone', async () => {
  const { root } = gitProject();
  const env = cliEnv(root);
  const cli = await cliPath();
  // A stand-in orchestrator: creates two worktrees, commits in one, then dies.
  const script = `
    const { spawnSync } = require('node:child_process');
    const fs = require('node:fs');
    const env = ${JSON.stringify(env)};
    const run = (args, cwd) => JSON.parse(spawnSync(process.execPath, [${JSON.stringify(cli)}, ...args], { cwd, env, encoding: 'utf8' }).stdout);
    const a = run(['worktree', 'create', '03-01'], ${JSON.stringify(root)});
    run(['worktree', 'create', '03-02'], ${JSON.stringify(root)});
    fs.writeFileSync(a.path + '/src/work.txt', 'work\\n');
    run(['commit', 'feat(03-01): work', '--files', 'src/work.txt'], a.path);
    if (process.argv[1] === 'linger') setInterval(() => {}, 1000); else process.exit(0);
  `;
  const dead = spawnSync(process.execPath, ['-e', script, 'die'], { encoding: 'utf8' });
  assert.is(dead.status, 0, dead.stderr);
  // --dry-run gives the same verdicts and removes nothing.
  const worktreesBefore = sh(root, 'worktree', 'list', '--porcelain');
  const preview = await run(['worktree', 'reap', '--dry-run'], { cwd: root, env });
  assert.is(preview.code, 0, preview.stderr);
  assert.is(preview.json.dry_run, true);
  assert.equal(preview.json.reaped.map((x: { plan: string; worktree_removed: boolean }) => [x.plan, x.worktree_removed]), [['03-02', false]]);
  assert.equal(preview.json.kept.map((x: { plan: string; kept: string }) => [x.plan, x.kept]), [['03-01', 'unmerged']]);
  assert.is(sh(root, 'worktree', 'list', '--porcelain'), worktreesBefore);
  assert.ok(fs.existsSync(path.join(root, '.git', 'gsd-worktrees', '03-02.json')), 'the record stays');
  const r = await run(['worktree', 'reap'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.reaped.map((x: { plan: string }) => x.plan), ['03-02']);
  assert.is(r.json.kept.length, 1);
  assert.is(r.json.kept[0].plan, '03-01');
  assert.is(r.json.kept[0].kept, 'unmerged');
  assert.equal(r.json.kept[0].unmerged_commits.map((x: { subject: string }) => x.subject), ['feat(03-01): work']);
  assert.ok(sh(root, 'branch', '--list', 'gsd-wt/03-01').includes('gsd-wt/03-01'), 'unmerged work is kept');
  // Re-creating the plan resumes on its kept branch.
  const again = await run(['worktree', 'create', '03-01'], { cwd: root, env });
  assert.is(again.json.reused, true);
  assert.is(again.json.commits, 1);
  assert.ok(fs.existsSync(path.join(again.json.path, 'src', 'work.txt')));
  await run(['worktree', 'cleanup', '03-01', '--discard'], { cwd: root, env });
  // A run whose orchestrator is alive is reported as active and left alone.
  const live = spawn(process.execPath, ['-e', script.replace("'03-01'", "'04-01'").replace("'03-02'", "'04-02'"), 'linger'], { stdio: 'ignore' });
  try {
    const record = path.join(root, '.git', 'gsd-worktrees', '04-02.json');
    for (let i = 0; i < 200 && !fs.existsSync(record); i++) await new Promise((res) => setTimeout(res, 50));
    await new Promise((res) => setTimeout(res, 300));
    const r2 = await run(['worktree', 'reap'], { cwd: root, env });
    assert.equal(r2.json.active.map((x: { plan: string }) => x.plan).sort(), ['04-01', '04-02']);
    assert.is(r2.json.reaped.length, 0);
  } finally {
    live.kill();
  }
});

s.run();
