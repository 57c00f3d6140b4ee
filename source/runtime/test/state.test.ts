import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { cliPath, FIXED_NOW, project, read, run, standardProject, STATE_MD, summary } from './helpers.ts';
import { readFrontmatter } from '../md/frontmatter.ts';

const s = suite('runtime state');

s('should return the derived frontmatter from state json, keeping unknown keys', async () => {
  const root = standardProject();
  const r = await run(['state', 'json'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.current_phase, '1');
  assert.is(r.json.current_phase_name, 'Foundation');
  assert.is(r.json.current_plan, 1);
  assert.is(r.json.status, 'planning'); // preserved: the Status line did not change in this read
  assert.is(r.json.custom_key, 'keep me');
  assert.equal(r.json.progress, { total_phases: 3, completed_phases: 0, total_plans: 2, completed_plans: 0, percent: 0 });
  assert.ok(!r.stdout.endsWith('\n'), 'JSON output has no trailing newline');
});

s('should update one body field and list exactly what changed', async () => {
  const root = standardProject();
  const r = await run(['state', 'update', 'Status', 'In progress'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.updated, ['Status']);
  assert.ok(r.json.frontmatter.includes('status'));
  assert.ok(r.json.frontmatter.includes('last_updated'));
  const text = read(root, '.planning/STATE.md');
  assert.match(text, /^Status: In progress$/m);
  const fm = readFrontmatter(text, 'STATE.md').data;
  assert.is(fm.status, 'executing');
  assert.is(fm.last_updated, FIXED_NOW);
  assert.is(fm.custom_key, 'keep me');
});

s('should not write when an update changes nothing', async () => {
  const root = standardProject();
  const before = read(root, '.planning/STATE.md');
  const r = await run(['state', 'update', 'Status', 'Ready to execute'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.updated, []);
  assert.equal(r.json.frontmatter, []);
  assert.is(read(root, '.planning/STATE.md'), before);
});

s('should answer a missing field with updated [] and a reason, exit 0', async () => {
  const root = standardProject();
  const before = read(root, '.planning/STATE.md');
  const r = await run(['state', 'update', 'Nope', 'x'], { cwd: root });
  assert.is(r.code, 0);
  assert.equal(r.json.updated, []);
  assert.match(r.json.reason, /not found/);
  assert.is(read(root, '.planning/STATE.md'), before);
});

s('should get a field, a section, and fail on a missing one', async () => {
  const root = standardProject();
  let r = await run(['state', 'get', 'Status', '--raw'], { cwd: root });
  assert.is(r.stdout, 'Ready to execute');
  r = await run(['state', 'get', 'Decisions'], { cwd: root });
  assert.is(r.json.Decisions, 'None yet.');
  r = await run(['state', 'get', 'Missing thing'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^Error: .*STATE\.md: no field or section "Missing thing"/);
});

s('should patch several fields at once and report unchanged and failed ones', async () => {
  const root = standardProject();
  const r = await run(['state', 'patch', '--Status', 'Planning', '--Current-focus', 'Phase 2', '--Plan', '1 of 2 in current phase', '--Ghost', 'x'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.updated, ['Status', 'Current focus']);
  assert.equal(r.json.unchanged, ['Plan']);
  assert.equal(r.json.failed, ['Ghost']);
  assert.match(read(root, '.planning/STATE.md'), /\*\*Current focus:\*\* Phase 2/);
});

s('should refuse prototype-polluting JSON in state patch and leave the file alone', async () => {
  const root = standardProject();
  const before = read(root, '.planning/STATE.md');
  const r = await run(['state', 'patch', '{"__proto__": {"Status": "x"}}'], { cwd: root });
  assert.is(r.code, 2);
  assert.match(r.stderr, /"__proto__" is not allowed/);
  assert.is(read(root, '.planning/STATE.md'), before);
});

s('should refuse to advance a plan that has no summary, then advance once it has one', async () => {
  const root = standardProject();
  let r = await run(['state', 'advance-plan'], { cwd: root });
  assert.is(r.code, 0);
  assert.is(r.json.advanced, false);
  assert.is(r.json.reason, 'plans_outstanding');
  assert.equal(r.json.outstanding_plans, ['01-01', '01-02']);
  assert.match(r.stderr, /warning: state advance-plan skipped/);
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-01-SUMMARY.md'), summary('01', '01'));
  r = await run(['state', 'advance-plan'], { cwd: root });
  assert.is(r.json.advanced, true, r.stdout);
  assert.is(r.json.current_plan, 2);
  assert.equal(r.json.updated, ['Plan', 'Status', 'Last activity']);
  const text = read(root, '.planning/STATE.md');
  assert.match(text, /^Plan: 2 of 2 in current phase$/m);
  assert.match(text, /^Status: In progress$/m, 'mid-phase the phase is still being executed');
  assert.match(text, /^Last activity: 2025-03-04 — Plan 1 of phase 1 complete$/m);
  const fm = readFrontmatter(text, 'x').data;
  assert.is((fm.progress as Record<string, number>).completed_plans, 1);
});

s('should move the position when a phase is planned and when it starts', async () => {
  const root = standardProject();
  let r = await run(['state', 'planned-phase', '--phase', '2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.updated, ['Phase', 'Plan', 'Last activity']);
  let text = read(root, '.planning/STATE.md');
  assert.match(text, /^Phase: 2 of 3 \(Features\)$/m);
  assert.match(text, /^Plan: 0 of 0 in current phase$/m);
  assert.match(text, /^Status: Ready to execute$/m);
  r = await run(['state', 'begin-phase', '--phase', '1', '--plans', '2'], { cwd: root });
  assert.is(r.json.plan_count, 2);
  text = read(root, '.planning/STATE.md');
  assert.match(text, /^Phase: 1 of 3 \(Foundation\)$/m);
  assert.match(text, /^Plan: 1 of 2 in current phase$/m);
  assert.match(text, /^Status: In progress$/m);
  assert.match(text, /^Last activity: 2025-03-04 — Phase 1 started \(2 plans\)$/m);
  assert.is(readFrontmatter(text, 'x').data.status, 'executing');
});

s('should record a session, decisions, blockers and metrics in their sections', async () => {
  const root = standardProject();
  let r = await run(['state', 'record-session', '--stopped-at', 'Plan 1 task 2', '--resume-file', '.planning/phases/01-foundation/01-01-PLAN.md'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.updated, ['Last session', 'Stopped at', 'Resume file']);
  r = await run(['state', 'add-decision', '--phase', '1', '--summary', 'Use zod', '--rationale', 'validation at the edge'], { cwd: root });
  assert.is(r.json.decision, '[Phase 1]: Use zod — validation at the edge');
  r = await run(['state', 'add-blocker', '--text', 'Waiting on API keys'], { cwd: root });
  assert.is(r.json.added, true);
  r = await run(['state', 'record-metric', '--phase', '1', '--plan', '01', '--duration', '7min', '--tasks', '3'], { cwd: root });
  assert.is(r.json.row, 'added');
  r = await run(['state', 'record-metric', '--phase', '1', '--plan', '01', '--duration', '8min'], { cwd: root });
  assert.is(r.json.row, 'replaced');
  let text = read(root, '.planning/STATE.md');
  assert.match(text, /### Decisions\n\n- \[Phase 1\]: Use zod — validation at the edge\n/);
  assert.not.match(text, /None yet\.\n\n### Blockers/);
  assert.match(text, /### Blockers\/Concerns\n\n- Waiting on API keys\n/);
  assert.match(text, /Stopped at: Plan 1 task 2/);
  assert.match(text, /## Performance Metrics\n\n### By Plan\n\n\| Phase \| Plan \| Duration \| Tasks \| Files \|\n\|---\|---\|---\|---\|---\|\n\| 1 \| 01 \| 8min \| - \| - \|/);
  assert.is(readFrontmatter(text, 'x').data.stopped_at, 'Plan 1 task 2');
  r = await run(['state', 'resolve-blocker', '--text', 'api keys'], { cwd: root });
  assert.is(r.json.resolved, true);
  text = read(root, '.planning/STATE.md');
  assert.match(text, /### Blockers\/Concerns\n\nNone\.\n/);
  r = await run(['state', 'resolve-blocker', '--text', 'api keys'], { cwd: root });
  assert.is(r.json.resolved, false);
});

s('should read --summary-file only from inside the project', async () => {
  const root = standardProject({ 'notes/d.md': 'From a file\n' });
  let r = await run(['state', 'add-decision', '--summary-file', 'notes/d.md'], { cwd: root });
  assert.is(r.json.decision, 'From a file');
  const before = read(root, '.planning/STATE.md');
  r = await run(['state', 'add-decision', '--summary-file', '../../../etc/passwd'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /contains "\.\."/);
  r = await run(['state', 'add-decision', '--summary-file', '/etc/passwd'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /outside the project/);
  fs.symlinkSync('/etc', path.join(root, 'escape'));
  r = await run(['state', 'add-decision', '--summary-file', 'escape/hostname'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /symlink/);
  assert.is(read(root, '.planning/STATE.md'), before);
});

s('should name file and line for a malformed STATE.md frontmatter, read it from the body, and rebuild it on write', async () => {
  const cases: [string, RegExp][] = [
    [`---\nstatus: planning\n# Project State\n\nStatus: x\n`, /STATE\.md:1:1: warning state-frontmatter-rebuilt frontmatter does not parse \(frontmatter opened with "---" is never closed/],
    [`---\nstatus: planning\nthis is not yaml\n---\n\nStatus: x\n`, /STATE\.md:3:1: warning state-frontmatter-rebuilt frontmatter does not parse \(expected "key: value"/],
    [`---\nstatus: a\nstatus: b\n---\nStatus: x\n`, /STATE\.md:3:1: warning state-frontmatter-rebuilt frontmatter does not parse \(duplicate key "status"/],
    [`---\n__proto__: x\n---\nStatus: x\n`, /STATE\.md:2:1: warning state-frontmatter-rebuilt frontmatter does not parse \(key "__proto__" is not allowed/],
  ];
  for (const [text, re] of cases) {
    const root = project({ '.planning/STATE.md': text });
    const r = await run(['state', 'json'], { cwd: root });
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, re);
    assert.is(read(root, '.planning/STATE.md'), text, 'a read leaves it byte-identical');
    const w = await run(['state', 'add-blocker', '--text', 'b'], { cwd: root });
    assert.is(w.code, 0, w.stderr);
    assert.match(w.stderr, re);
    assert.not.match(read(root, '.planning/STATE.md'), /__proto__/);
    assert.ok(fs.readdirSync(path.join(root, '.planning')).some((n) => n.startsWith('STATE.md.broken-')), 'old bytes kept');
    assert.not.ok(fs.existsSync(path.join(root, '.planning/STATE.md.lock')), 'lock released');
  }
});

s('should lose no update when 8 processes each make 100 updates of different fields', async () => {
  const fields = [];
  for (let w = 0; w < 8; w++) for (let i = 0; i < 100; i++) fields.push(`F${w}x${i}: pending`);
  const root = project({ '.planning/STATE.md': `${STATE_MD}\n## Test Fields\n\n${fields.join('\n')}\n` });
  const cli = await cliPath();
  const worker = `
    const { main } = require(${JSON.stringify(cli)});
    (async () => {
      const w = Number(process.argv[1]);
      for (let i = 0; i < 100; i++) {
        const code = await main(['state', 'update', 'F' + w + 'x' + i, 'done'], { cwd: ${JSON.stringify(root)}, stdout: () => {}, stderr: (s) => process.stderr.write(s) });
        if (code !== 0) { process.exitCode = 3; return; }
      }
    })();`;
  const codes = await Promise.all(
    Array.from({ length: 8 }, (_, w) =>
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, ['-e', worker, String(w)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, GSD_NOW: FIXED_NOW } });
        child.on('exit', (code) => resolve(code ?? -1));
      }),
    ),
  );
  assert.equal(codes, [0, 0, 0, 0, 0, 0, 0, 0]);
  const text = read(root, '.planning/STATE.md');
  const pending = text.split('\n').filter((l) => /^F\dx\d+: pending$/.test(l));
  assert.is(pending.length, 0, `lost updates: ${pending.slice(0, 5).join(', ')}`);
  assert.is(text.split('\n').filter((l) => /^F\dx\d+: done$/.test(l)).length, 800);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/STATE.md.lock')));
  assert.equal(fs.readdirSync(path.join(root, '.planning')).filter((n) => n.includes('gsd-tmp')), []);
});

s('should leave a valid STATE.md when the writer is killed mid-write, and recover its lock', async () => {
  const root = standardProject();
  const before = read(root, '.planning/STATE.md');
  const killed = await run(['state', 'update', 'Status', 'Half written'], { cwd: root, env: { GSD_FAULT: 'kill-before-rename' } });
  assert.is(killed.code, -1, 'the writer died from SIGKILL');
  assert.is(read(root, '.planning/STATE.md'), before, 'old file intact');
  const lock = path.join(root, '.planning/STATE.md.lock');
  assert.ok(fs.existsSync(lock), 'the dead writer left its lock');
  const temps = fs.readdirSync(path.join(root, '.planning')).filter((n) => n.endsWith('.gsd-tmp'));
  assert.is(temps.length, 1, 'and its temp file');
  let h = await run(['health'], { cwd: root });
  assert.is(h.json.status, 'degraded');
  assert.ok(h.json.warnings.some((w: { code: string }) => w.code === 'leftover-temp'));
  assert.ok(h.json.warnings.some((w: { code: string }) => w.code === 'stale-lock'));
  const r = await run(['state', 'update', 'Status', 'In progress'], { cwd: root, env: { GSD_LOCK_TIMEOUT_MS: '3000' } });
  assert.is(r.code, 0, r.stderr);
  assert.match(read(root, '.planning/STATE.md'), /^Status: In progress$/m);
  assert.not.ok(fs.existsSync(lock));
  h = await run(['health', '--repair'], { cwd: root });
  assert.ok(h.json.repaired.some((x: string) => x.includes('temp file')), JSON.stringify(h.json));
  assert.equal(fs.readdirSync(path.join(root, '.planning')).filter((n) => n.endsWith('.gsd-tmp')), []);
});

s('should recover stale locks (dead holder, dead-man age) and time out on a live one', async () => {
  const root = standardProject();
  const lock = path.join(root, '.planning/STATE.md.lock');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.writeFileSync(lock, `${dead.stdout}\n`);
  let r = await run(['state', 'update', 'Status', 'A'], { cwd: root, env: { GSD_LOCK_TIMEOUT_MS: '2000' } });
  assert.is(r.code, 0, r.stderr);
  // A live holder: this test process. Fresh → locked; old → stolen by the dead-man rule.
  fs.writeFileSync(lock, `${process.pid}\n`);
  r = await run(['state', 'update', 'Status', 'B'], { cwd: root, env: { GSD_LOCK_TIMEOUT_MS: '300' } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /lock held by live process \d+; gave up after 300 ms/);
  r = await run(['state', 'update', 'Status', 'B', '--json-errors'], { cwd: root, env: { GSD_LOCK_TIMEOUT_MS: '300' } });
  assert.is(JSON.parse(r.stderr).reason, 'locked');
  assert.match(read(root, '.planning/STATE.md'), /^Status: A$/m);
  const old = new Date(Date.now() - 120_000);
  fs.utimesSync(lock, old, old);
  r = await run(['state', 'update', 'Status', 'C'], { cwd: root, env: { GSD_LOCK_TIMEOUT_MS: '2000' } });
  assert.is(r.code, 0, r.stderr);
  assert.match(read(root, '.planning/STATE.md'), /^Status: C$/m);
});

s('should refuse oversized JSON input and leave STATE.md alone', async () => {
  const root = standardProject();
  const before = read(root, '.planning/STATE.md');
  const big = JSON.stringify({ Status: 'x'.repeat(1_100_000) });
  const errs: string[] = [];
  const { main } = await import('../main.ts');
  const code = await main(['state', 'patch', big], { cwd: root, env: {}, stdout: () => {}, stderr: (t) => errs.push(t) });
  assert.is(code, 2);
  assert.match(errs.join(''), /over the 1048576-byte limit/);
  assert.is(read(root, '.planning/STATE.md'), before);
});

s('should load config, raw state and existence flags', async () => {
  const root = standardProject({ '.planning/config.json': '{"workflow": {"research": false}}\n' });
  let r = await run(['state', 'load'], { cwd: root });
  assert.is(r.json.config.research, false);
  assert.is(r.json.config.plan_checker, true);
  assert.is(r.json.state_exists, true);
  assert.is(r.json.config_exists, true);
  assert.match(r.json.state_raw, /# Project State/);
  r = await run(['state', 'load', '--raw'], { cwd: root });
  assert.match(r.stdout, /^research=false$/m);
  assert.match(r.stdout, /^state_exists=true$/m);
});

s.run();
