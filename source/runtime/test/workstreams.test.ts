// Workstreams and workspaces through the built CLI: two workstreams' phases
// run side by side and neither touches the other's files; session pointers do
// not clobber each other; a workstream's config overlays the project's; every
// .planning path comes from the one resolver; the calls the workstreams
// workflow makes run as written.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { cliPath, codeCacheHome, FIXED_NOW, project, ROADMAP_MD, read, run, STATE_MD, tmpDir } from './helpers.ts';

const s = suite('workstreams');

function twoTracks(): string {
  const root = project({ '.planning/PROJECT.md': '# Demo\n', '.planning/config.json': '{\n  "mode": "interactive"\n}\n' });
  for (const ws of ['alpha', 'beta']) {
    fs.mkdirSync(path.join(root, '.planning/workstreams', ws, 'phases'), { recursive: true });
    fs.writeFileSync(path.join(root, '.planning/workstreams', ws, 'STATE.md'), STATE_MD);
    fs.writeFileSync(path.join(root, '.planning/workstreams', ws, 'ROADMAP.md'), ROADMAP_MD);
  }
  return root;
}

/** sha256 of every file under `dir` by relative path (lock files, which come and go, left out). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (!e.name.endsWith('.lock')) out[path.relative(dir, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

/** One track's phase work: add a phase, start it, write a plan and its summary, advance, complete. */
function trackCalls(ws: string): (string[] | { write: string; text: string })[] {
  const dir = `.planning/workstreams/${ws}/phases/01-foundation`;
  return [
    ['phase', 'add', `${ws} extras`, '--ws', ws],
    ['state', 'begin-phase', '--phase', '1', '--name', 'Foundation', '--plans', '1', '--ws', ws],
    { write: `${dir}/01-01-PLAN.md`, text: `---\nphase: 01-foundation\nplan: 01\nwave: 1\n---\n# ${ws} plan\n` },
    { write: `${dir}/01-01-SUMMARY.md`, text: `---\nphase: 01-foundation\nplan: 01\n---\n# ${ws} summary\n` },
    ['roadmap', 'update-plan-progress', '1', '--ws', ws],
    ['state', 'advance-plan', '--ws', ws],
    ['config-set', 'workflow.research', 'false', '--ws', ws],
    { write: `${dir}/01-VERIFICATION.md`, text: '---\nstatus: passed\n---\n# Verified\n' },
    ['phase', 'complete', '1', '--ws', ws],
  ];
}

/** Run one track's calls in order as child processes; resolves with any failure. */
async function runTrack(root: string, ws: string): Promise<string[]> {
  const cli = await cliPath();
  const failures: string[] = [];
  for (const call of trackCalls(ws)) {
    if (!Array.isArray(call)) {
      fs.mkdirSync(path.dirname(path.join(root, call.write)), { recursive: true });
      fs.writeFileSync(path.join(root, call.write), call.text);
      continue;
    }
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [cli, ...call], { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: root, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (c) => {
        if (c !== 0) failures.push(`${call.join(' ')}: exit ${c}: ${err}`);
        resolve(c ?? -1);
      });
    });
    void code;
  }
  return failures;
}

s('should run two workstreams side by side, each touching only its own files', async () => {
  const alone = { alpha: twoTracks(), beta: twoTracks() };
  const before = snapshot(path.join(alone.alpha, '.planning'));
  assert.equal(await runTrack(alone.alpha, 'alpha'), []);
  assert.equal(await runTrack(alone.beta, 'beta'), []);
  const both = twoTracks();
  // Interleaved: the two tracks' calls race each other in the same project.
  assert.equal(await Promise.all([runTrack(both, 'alpha'), runTrack(both, 'beta')]), [[], []]);
  const shared = (root: string) => Object.fromEntries(Object.entries(snapshot(path.join(root, '.planning'))).filter(([k]) => !k.startsWith('workstreams/')));
  // Running alpha alone left beta and the shared files byte for byte as they were.
  const afterAlpha = snapshot(path.join(alone.alpha, '.planning'));
  for (const [k, v] of Object.entries(before)) if (!k.startsWith('workstreams/alpha/')) assert.is(afterAlpha[k], v, `alpha touched ${k}`);
  assert.equal(Object.keys(afterAlpha).filter((k) => !(k in before) && !k.startsWith('workstreams/alpha/')), [], 'alpha created files outside its folder');
  assert.equal(shared(alone.alpha), shared(twoTracks()));
  // Side by side, each track ends exactly as it did alone.
  for (const ws of ['alpha', 'beta'] as const) assert.equal(snapshot(path.join(both, '.planning/workstreams', ws)), snapshot(path.join(alone[ws], '.planning/workstreams', ws)), ws);
  assert.equal(shared(both), shared(twoTracks()));
  assert.match(read(both, '.planning/workstreams/alpha/ROADMAP.md'), /alpha extras/);
  assert.not.match(read(both, '.planning/workstreams/alpha/ROADMAP.md'), /beta extras/);
  assert.match(read(both, '.planning/workstreams/beta/config.json'), /"research": false/);
  assert.not.match(read(both, '.planning/config.json'), /research/);
});

s('should resolve the workstream from --ws, then GSD_WORKSTREAM, then the session pointer, then the project pointer', async () => {
  const root = twoTracks();
  const where = async (env: Record<string, string>, ...extra: string[]) => (await run(['init', 'progress', '--pick', 'state_path', ...extra], { cwd: root, env })).stdout;
  assert.is(await where({}), '.planning/STATE.md');
  assert.is((await run(['workstreams', 'switch', 'alpha'], { cwd: root, env: { GSD_SESSION_KEY: 'one' } })).json.scope, 'session');
  assert.is((await run(['workstreams', 'switch', 'beta'], { cwd: root, env: { GSD_SESSION_KEY: 'two' } })).json.scope, 'session');
  // Two sessions, two pointers: neither moved the other.
  assert.is(await where({ GSD_SESSION_KEY: 'one' }), '.planning/workstreams/alpha/STATE.md');
  assert.is(await where({ GSD_SESSION_KEY: 'two' }), '.planning/workstreams/beta/STATE.md');
  assert.is(await where({}), '.planning/STATE.md');
  assert.is(await where({ GSD_SESSION_KEY: 'one', GSD_WORKSTREAM: 'beta' }), '.planning/workstreams/beta/STATE.md');
  assert.is(await where({ GSD_WORKSTREAM: 'beta' }, '--ws', 'alpha'), '.planning/workstreams/alpha/STATE.md');
  // No session variable: the project's pointer, which sessions without their own follow.
  const sw = await run(['workstreams', 'switch', 'beta'], { cwd: root });
  assert.equal([sw.json.scope, sw.json.pointer, sw.json.shared_with_other_sessions], ['project', '.planning/active-workstream', true]);
  assert.is(await where({}), '.planning/workstreams/beta/STATE.md');
  assert.is(await where({ GSD_SESSION_KEY: 'one' }), '.planning/workstreams/alpha/STATE.md');
  assert.is(read(root, '.planning/workstreams/.sessions/.gitignore'), '*\n');
  // A stale pointer is a warning and no workstream; an explicit unknown one is an error.
  fs.writeFileSync(path.join(root, '.planning/active-workstream'), 'gone\n');
  const stale = await run(['init', 'progress', '--pick', 'state_path'], { cwd: root });
  assert.equal([stale.code, stale.stdout], [0, '.planning/STATE.md']);
  assert.match(stale.stderr, /active-workstream points to workstream "gone", which does not exist/);
  const unknown = await run(['state', 'json', '--ws', 'gone'], { cwd: root });
  assert.is(unknown.code, 1);
  assert.match(unknown.stderr, /--ws: no workstream "gone" under \.planning\/workstreams\/ \(known: alpha, beta/);
  for (const bad of ['../x', '.sessions', 'Alpha', 'a/b', '']) {
    const r = await run(['workstreams', 'create', bad], { cwd: root });
    assert.is(r.code, 2, bad);
    assert.match(r.stderr, /expected a name of 1-48 lowercase letters/, bad);
  }
  assert.is((await run(['state', 'json', '--ws', '../../etc'], { cwd: root })).code, 2);
});

s('should overlay a workstream config on the project config', async () => {
  const root = twoTracks();
  fs.writeFileSync(path.join(root, '.planning/workstreams/alpha/config.json'), '{\n  "workflow": { "research": false }\n}\n');
  const get = async (key: string, ...extra: string[]) => (await run(['config-get', key, ...extra], { cwd: root })).json;
  assert.is(await get('workflow.research', '--ws', 'alpha'), false);
  assert.is(await get('mode', '--ws', 'alpha'), 'interactive');
  assert.is(await get('workflow.research'), true);
  const set = await run(['config-set', 'mode', 'yolo', '--ws', 'beta'], { cwd: root });
  assert.is(set.code, 0, set.stderr);
  assert.is(read(root, '.planning/workstreams/beta/config.json'), '{\n  "mode": "yolo"\n}\n');
  assert.is(await get('mode'), 'interactive');
  assert.is((await run(['init', 'plan-phase', '1', '--ws', 'beta', '--pick', 'config_path'], { cwd: root })).stdout, '.planning/workstreams/beta/config.json');
});

s('should list, report and complete workstreams, clearing pointers to a completed one', async () => {
  const root = twoTracks();
  await runTrack(root, 'alpha');
  await run(['workstreams', 'switch', 'alpha'], { cwd: root, env: { GSD_SESSION_KEY: 'one' } });
  const list = await run(['workstreams', 'list'], { cwd: root, env: { GSD_SESSION_KEY: 'one' } });
  assert.equal(list.json.workstreams.map((w: { name: string; active: boolean }) => [w.name, w.active]), [['alpha', true], ['beta', false]]);
  assert.is(list.json.active_source, 'session');
  const st = await run(['workstreams', 'status', 'alpha'], { cwd: root });
  assert.equal(st.json.phases.map((p: { number: string; disk_status: string }) => [p.number, p.disk_status]), [['1', 'complete'], ['2', 'no_directory'], ['3', 'no_directory'], ['4', 'empty']]);
  const prog = await run(['workstreams', 'progress'], { cwd: root });
  assert.equal([prog.json.total_phases, prog.json.completed_phases], [7, 1]);
  const refusedRun = await run(['workstreams', 'complete', 'alpha'], { cwd: root });
  assert.is(refusedRun.code, 1);
  assert.match(refusedRun.stderr, /phases not complete: 2, 3, 4; finish them or pass --force/);
  const done = await run(['workstreams', 'complete', 'alpha', '--force'], { cwd: root });
  assert.equal([done.json.archived_to, done.json.pointers_cleared, done.json.remaining], ['.planning/milestones/workstreams/alpha-2025-03-04', 1, ['beta']]);
  assert.ok(fs.existsSync(path.join(root, '.planning/milestones/workstreams/alpha-2025-03-04/ROADMAP.md')));
  assert.is((await run(['init', 'progress', '--pick', 'state_path'], { cwd: root, env: { GSD_SESSION_KEY: 'one' } })).stdout, '.planning/STATE.md');
  const again = await run(['workstreams', 'create', 'beta'], { cwd: root });
  assert.equal([again.json.created, again.json.reason], [false, 'already_exists']);
});

s('should run the calls the workstreams workflow makes, as written', async () => {
  const text = fs.readFileSync(new URL('../../gsd-core/workflows/workstreams.md', import.meta.url), 'utf8');
  const calls = [...text.matchAll(/^\s*node "\$HOME\/\.claude\/gsd-core\/bin\/gsd-tools\.cjs" (workstreams .*)$/gm)].map((m) => m[1]!);
  const verbs = new Set(calls.map((c) => c.split(' ')[1]));
  assert.equal([...verbs].sort(), ['complete', 'create', 'list', 'progress', 'status', 'switch']);
  const root = project({ '.planning/PROJECT.md': '# Demo\n' });
  const order = ['create', 'list', 'status', 'switch', 'progress', 'complete'];
  for (const verb of order) {
    for (const call of calls.filter((c) => c.split(' ')[1] === verb)) {
      const words = call.replace(/\{name\}/g, 'alpha').split(/\s+/);
      const r = await run(words, { cwd: root });
      assert.is(r.code, 0, `${call}: ${r.stderr}`);
    }
  }
});

s('should send every .planning path through the one resolver', () => {
  const dir = new URL('..', import.meta.url).pathname;
  const offenders: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'test') walk(p);
      } else if (p.endsWith('.ts') && !p.endsWith(path.join('planning', 'layout.ts'))) {
        fs.readFileSync(p, 'utf8').split('\n').forEach((line, i) => {
          if (/['"`]\.planning[/'"`]/.test(line) && !/^\s*(\/\/|\/?\*)/.test(line)) offenders.push(`${path.relative(dir, p)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
  };
  walk(dir);
  assert.equal(offenders, []);
});

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' } });

function repo(name: string): string {
  const root = path.join(tmpDir('gsd-repo-'), name);
  fs.mkdirSync(root);
  sh(root, 'init', '-q', '-b', 'main');
  sh(root, 'config', 'user.email', 'test@example.com');
  sh(root, 'config', 'user.name', 'Test');
  fs.writeFileSync(path.join(root, 'README.md'), `# ${name}\n`);
  sh(root, 'add', '.');
  sh(root, 'commit', '-q', '-m', 'init');
  return root;
}

s('should make, list and remove workspaces of several repositories', async () => {
  const api = repo('api');
  const web = repo('web');
  const home = tmpDir('gsd-home-');
  const env = { GSD_WORKSPACES_DIR: path.join(home, 'ws') };
  const made = await run(['workspace', 'new', 'billing', '--repos', api, web], { cwd: home, env });
  assert.is(made.code, 0, made.stderr);
  assert.equal(made.json.repos.map((r: { name: string }) => r.name), ['api', 'web']);
  const wsDir = path.join(home, 'ws', 'billing');
  assert.is(sh(path.join(wsDir, 'api'), 'branch', '--show-current').trim(), 'workspace/billing');
  assert.ok(fs.existsSync(path.join(wsDir, '.planning')));
  const cloned = await run(['workspace', 'new', 'docs', '--repos', web, '--strategy', 'clone'], { cwd: home, env });
  assert.is(cloned.code, 0, cloned.stderr);
  const listed = await run(['workspace', 'list'], { cwd: home, env });
  assert.equal(listed.json.workspaces.map((w: { name: string; strategy: string }) => [w.name, w.strategy]), [['billing', 'worktree'], ['docs', 'clone']]);
  // A failed repository leaves nothing behind.
  const bad = await run(['workspace', 'new', 'broken', '--repos', api, home], { cwd: home, env });
  assert.is(bad.code, 2);
  assert.not.ok(fs.existsSync(path.join(home, 'ws', 'broken')));
  fs.writeFileSync(path.join(wsDir, 'api', 'wip.txt'), 'unsaved\n');
  const dirty = await run(['workspace', 'remove', 'billing'], { cwd: home, env });
  assert.is(dirty.code, 1);
  assert.match(dirty.stderr, /uncommitted changes in api; commit them or pass --force/);
  const gone = await run(['workspace', 'remove', 'billing', '--force'], { cwd: home, env });
  assert.is(gone.code, 0, gone.stderr);
  assert.not.ok(fs.existsSync(wsDir));
  assert.not.match(sh(api, 'worktree', 'list'), /billing/);
  assert.match(sh(api, 'branch'), /workspace\/billing/);
  assert.is((await run(['workspace', 'remove', 'nope'], { cwd: home, env })).code, 1);
});

s.run();
