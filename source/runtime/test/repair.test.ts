// repair attempt | status through the built CLI: the budget from config, the
// escalation once it is spent, a broken ledger refused with its position,
// and executors asking at the same moment never losing or doubling a count.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { cliPath, codeCacheHome, FIXED_NOW, read, run, standardProject } from './helpers.ts';

const s = suite('runtime repair');
const LEDGER = '.planning/phases/01-foundation/node-repair.json';

s('should count repairs per task against workflow.node_repair_budget and escalate once it is spent', async () => {
  const root = standardProject();
  const ask = (...extra: string[]) => run(['repair', 'attempt', '--phase', '1', '--plan', '2', '--task', '3', ...extra], { cwd: root });
  let r = await ask('--kind', 'retry', '--note', 'use the real import path');
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { plan_id: '01-02', task: 3, attempt: 1, used: 1, budget: 2, remaining: 1, escalate: false, file: LEDGER });
  r = await ask('--kind', 'decompose');
  assert.equal([r.json.attempt, r.json.remaining, r.json.escalate], [2, 0, false]);
  r = await ask();
  assert.equal([r.json.attempt, r.json.used, r.json.remaining, r.json.escalate], [null, 2, 0, true], 'the third repair is refused');
  const ledger = JSON.parse(read(root, LEDGER));
  assert.equal(ledger.tasks['01-02/3'].map((a: { n: number; kind: string }) => [a.n, a.kind]), [[1, 'retry'], [2, 'decompose']], 'an escalation records nothing');
  r = await run(['repair', 'attempt', '--phase', '1', '--plan', '01-02', '--task', '1'], { cwd: root });
  assert.equal([r.json.attempt, r.json.escalate], [1, false], 'another task has its own budget; a plan id works like its number');
  r = await run(['repair', 'status', '--phase', '1', '--plan', '2'], { cwd: root });
  assert.equal(r.json.tasks.map((t: { key: string; used: number; remaining: number }) => [t.key, t.used, t.remaining]), [['01-02/1', 1, 1], ['01-02/3', 2, 0]]);
});

s('should escalate at once when repair is off or the budget is 0', async () => {
  for (const config of ['{"workflow": {"node_repair": false}}', '{"workflow": {"node_repair_budget": 0}}']) {
    const root = standardProject({ '.planning/config.json': config });
    const r = await run(['repair', 'attempt', '--phase', '1', '--plan', '1', '--task', '1'], { cwd: root });
    assert.is(r.code, 0, r.stderr);
    assert.equal([r.json.budget, r.json.escalate], [0, true], config);
    assert.not.ok(fs.existsSync(path.join(root, LEDGER)), 'nothing written');
  }
});

s('should refuse bad arguments and a broken ledger, leaving the file as it was', async () => {
  const root = standardProject();
  let r = await run(['repair', 'attempt', '--phase', '1', '--plan', '../x', '--task', '1'], { cwd: root });
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /--plan "\.\.\/x": expected a plan number like 2 or a plan id like 01-02/);
  r = await run(['repair', 'attempt', '--phase', '1', '--plan', '1', '--task', '0'], { cwd: root });
  assert.match(r.stderr, /--task 0: expected a task number from 1/);
  r = await run(['repair', 'attempt', '--phase', '9', '--plan', '1', '--task', '1'], { cwd: root });
  assert.match(r.stderr, /phase 9 has no folder/);
  const broken = '{"tasks": {\n  "01-01/1": [oops]\n}}\n';
  fs.writeFileSync(path.join(root, LEDGER), broken);
  r = await run(['repair', 'attempt', '--phase', '1', '--plan', '1', '--task', '1'], { cwd: root });
  assert.is(r.code, 2);
  assert.match(r.stderr, /node-repair\.json:2:\d+: invalid JSON/);
  fs.writeFileSync(path.join(root, LEDGER), '{"tasks": {"01-01/1": "three"}}\n');
  r = await run(['repair', 'attempt', '--phase', '1', '--plan', '1', '--task', '1'], { cwd: root });
  assert.match(r.stderr, /expected "<plan>\/<task>": \[attempts\] for "01-01\/1"/);
  assert.is(read(root, LEDGER), '{"tasks": {"01-01/1": "three"}}\n');
});

s('should give executors asking at once distinct attempt numbers and never exceed the budget', async () => {
  const root = standardProject({ '.planning/config.json': '{"workflow": {"node_repair_budget": 5}}' });
  const cli = await cliPath();
  const env = { PATH: process.env.PATH ?? '', HOME: root, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW };
  // Twelve asks on one task and one ask on each of four other tasks, all at once.
  const jobs = [...Array.from({ length: 12 }, () => ['2', '1']), ['1', '1'], ['1', '2'], ['2', '2'], ['2', '3']];
  const answers = await Promise.all(
    jobs.map(
      ([plan, task]) =>
        new Promise<{ plan_id: string; task: number; attempt: number | null; escalate: boolean }>((resolve, reject) => {
          let out = '';
          let err = '';
          const child = spawn(process.execPath, [cli, 'repair', 'attempt', '--phase', '1', '--plan', plan!, '--task', task!], { cwd: root, env });
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (err += d));
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}: ${err}`))));
        }),
    ),
  );
  const hot = answers.filter((a) => a.plan_id === '01-02' && a.task === 1);
  assert.equal(hot.filter((a) => !a.escalate).map((a) => a.attempt).sort(), [1, 2, 3, 4, 5], 'each allowed attempt numbered once');
  assert.is(hot.filter((a) => a.escalate).length, 7);
  assert.ok(answers.filter((a) => a !== undefined && !hot.includes(a)).every((a) => a.attempt === 1 && !a.escalate));
  const ledger = JSON.parse(read(root, LEDGER));
  assert.equal(Object.keys(ledger.tasks), ['01-01/1', '01-01/2', '01-02/1', '01-02/2', '01-02/3']);
  assert.is(ledger.tasks['01-02/1'].length, 5);
});

s.run();
