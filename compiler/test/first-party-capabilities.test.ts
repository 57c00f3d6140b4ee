// The first-party capabilities of source/capabilities/ (tdd, threat-model,
// ui-contract, pattern-mapper): off by default, each composed step selected
// by `init <workflow>` only when its config key is on in the project, and the
// pattern mapper's own agent shipped with the bundle.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const firstParty = suite('first-party capabilities');

const SECTIONS: Record<string, { key: string; workflow: string; sections: string[] }> = {
  tdd: { key: 'workflow.tdd_mode', workflow: 'execute-phase', sections: ['tdd-execute-post'] },
  'threat-model': { key: 'workflow.threat_model_gate', workflow: 'plan-phase', sections: ['threat-model-plan-post'] },
  'ui-contract': { key: 'workflow.ui_contract', workflow: 'execute-phase', sections: ['ui-contract-execute-wave-pre'] },
  'pattern-mapper': { key: 'workflow.pattern_mapper', workflow: 'plan-phase', sections: ['pattern-mapper-plan-pre', 'pattern-mapper-plan-pre-2'] },
};
const OURS = /^(?:tdd|threat-model|ui-contract|pattern-mapper)-/;

firstParty('should select each capability\'s composed steps only when its config key is on', () => {
  const out = temporaryDir('first-party');
  const built = runCli(['--target', 'claude', '--scope', 'global', '--out', out, '--no-cache']);
  assert.is(built.status, 0, built.stderr);
  const core = path.join(out, 'claude', 'global', '.claude', 'gsd-core');
  assert.ok(existsSync(path.join(out, 'claude', 'global', '.claude', 'agents', 'gsd-pattern-mapper.md')), 'the pattern mapper agent ships');
  const plan = readFileSync(path.join(core, 'workflows', 'plan-phase.md'), 'utf8');
  // The mapper's step comes before the planner's contribution that consumes its PATTERNS.md.
  assert.ok(plan.indexOf('`pattern-mapper-plan-pre`') < plan.indexOf('`pattern-mapper-plan-pre-2`'));
  // Every one fits inline: its fragment is in the workflow, no step file ships for it.
  for (const [id, { workflow, sections }] of Object.entries(SECTIONS)) {
    const host = readFileSync(path.join(core, 'workflows', `${workflow}.md`), 'utf8');
    assert.ok(host.includes(`<capability id="${id}" version="1.0.0"`), `${id} inline in ${workflow}`);
    for (const section of sections) assert.ok(!existsSync(path.join(core, 'workflows', workflow, 'steps', `${section}.md`)), `${section}: no step file`);
  }

  const project = temporaryDir('first-party-project');
  mkdirSync(path.join(project, '.planning'));
  writeFileSync(path.join(project, '.planning', 'config.json'), '{}\n');
  const gsd = (...args: string[]) => spawnSync(process.execPath, [path.join(core, 'bin', 'gsd-tools.cjs'), ...args], { cwd: project, encoding: 'utf8', env: { ...process.env, GSD_NO_CODE_CACHE: '1' } });
  // A call that fails or prints nothing fails the test: an empty answer must not read as "none selected".
  const picked = (workflow: string, field: string) => {
    const run = gsd('init', workflow, '1', '--pick', field);
    assert.is(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as unknown;
  };
  const selected = (workflow: string) => (picked(workflow, 'section_manifest.included') as string[]).filter((id) => OURS.test(id));
  assert.equal([...selected('plan-phase'), ...selected('execute-phase')], [], 'all off by default');
  const read = picked('plan-phase', 'section_manifest.read') as string[];
  assert.ok(Array.isArray(read) && !read.some((file) => /nyquist|pattern-mapper|threat-model/.test(file)), 'an inline section has no file to read');
  for (const [id, { key, workflow, sections }] of Object.entries(SECTIONS)) {
    const on = gsd('config-set', key, 'true');
    assert.is(on.status, 0, on.stderr);
    assert.equal(selected(workflow), sections, `${id} on`);
    const off = gsd('config-set', key, 'false');
    assert.is(off.status, 0, off.stderr);
    assert.equal(selected(workflow), [], `${id} off again`);
  }
  const listed = gsd('capability', 'list', '--raw');
  assert.match(listed.stdout, /^off pattern-mapper 1\.0\.0 \(first-party\): workflow\.pattern_mapper=false$/m);
});

firstParty.run();
