// Capabilities at run time: a composed section's config:<key> atom follows the
// project's config, and `capability list` reports the same state.
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { run, standardProject, tmpDir } from './helpers.ts';

const s = suite('runtime capability');

/** A gsd-core folder as a bundle built with one capability carries it. */
function coreDir(when: string, placed: Record<string, unknown> = { inline: true }): string {
  const dir = tmpDir('gsd-core-');
  fs.mkdirSync(path.join(dir, 'workflows'), { recursive: true });
  // Composed inline (the workflow's own text, nothing to read), as the first-party capabilities are.
  const section = { id: 'nyquist-validation-plan-post', when: `config:${when}`, ...placed };
  fs.writeFileSync(path.join(dir, 'workflows', 'section-manifest.json'), JSON.stringify({ workflows: { 'plan-phase': [{ id: 'prd-express', when: 'flag:--prd', read: 'x.md' }, section] } }, null, 2));
  const list = {
    capabilities: [
      {
        id: 'nyquist-validation',
        version: '1.0.0',
        origin: 'first-party',
        digest: `sha256:${'0'.repeat(64)}`,
        description: 'Validation map.',
        config: { [when]: { type: 'boolean', default: true } },
        contributions: [{ point: 'plan:post', kind: 'contribution', workflow: 'plan-phase', section: section.id, when }],
      },
    ],
  };
  fs.writeFileSync(path.join(dir, 'capabilities.json'), JSON.stringify(list, null, 2));
  return dir;
}

s('should select a capability section by its config key, default and toggled, and list it the same way', async () => {
  const env = { GSD_CORE_DIR: coreDir('workflow.nyquist_validation') };
  const root = standardProject({});
  let r = await run(['init', 'plan-phase', '1', '--pick', 'section_manifest.included'], { cwd: root, env });
  assert.is(r.stdout, '["nyquist-validation-plan-post"]', 'the key defaults to true');
  r = await run(['init', 'plan-phase', '1', '--pick', 'section_manifest.read'], { cwd: root, env });
  assert.is(r.stdout, '[]', 'an inline section has no file to read');
  r = await run(['capability', 'list', '--raw'], { cwd: root, env });
  assert.is(r.stdout, 'on  nyquist-validation 1.0.0 (first-party): workflow.nyquist_validation=true');

  fs.writeFileSync(path.join(root, '.planning/config.json'), '{"workflow": {"nyquist_validation": false}}\n');
  r = await run(['init', 'plan-phase', '1', '--pick', 'section_manifest.included'], { cwd: root, env });
  assert.is(r.stdout, '[]', 'turned off in this project');
  r = await run(['init', 'plan-phase', '1', '--pick', 'section_manifest.excluded'], { cwd: root, env });
  assert.is(r.stdout, '["prd-express","nyquist-validation-plan-post"]');
  r = await run(['capability', 'list'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  const listed = r.json.capabilities[0];
  assert.is(listed.active, false);
  assert.equal(listed.config, { 'workflow.nyquist_validation': { type: 'boolean', default: true, value: false } });
  assert.equal(listed.contributions.map((entry: { active: boolean }) => entry.active), [false]);
});

s('should read the step file of a section moved out of line, and refuse a section both inline and read', async () => {
  const root = standardProject({});
  const step = 'gsd-core/workflows/plan-phase/steps/nyquist-validation-plan-post.md';
  let r = await run(['init', 'plan-phase', '1', '--pick', 'section_manifest.read'], { cwd: root, env: { GSD_CORE_DIR: coreDir('workflow.nyquist_validation', { read: step }) } });
  assert.is(r.stdout, JSON.stringify([step]));
  for (const placed of [{ inline: true, read: step }, { inline: 'yes' }, {}]) {
    r = await run(['init', 'plan-phase', '1'], { cwd: root, env: { GSD_CORE_DIR: coreDir('workflow.nyquist_validation', placed) } });
    assert.is(r.code, 1, JSON.stringify(placed));
    assert.match(r.stderr, /section-manifest\.json:\d+: .*a string read or inline: true/);
  }
});

s('should fail closed on a config atom whose key the bundled schema does not have', async () => {
  const env = { GSD_CORE_DIR: coreDir('made_up.enabled') };
  const r = await run(['init', 'plan-phase', '1'], { cwd: standardProject({}), env });
  assert.is(r.code, 1);
  assert.match(r.stderr, /section-manifest\.json:\d+: .*unknown when atom "config:made_up\.enabled"/);
});

s('should list no capabilities from a bundle built without any', async () => {
  const dir = tmpDir('gsd-core-');
  const r = await run(['capability', 'list', '--raw'], { cwd: standardProject({}), env: { GSD_CORE_DIR: dir } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'no capabilities in this bundle');
});

s.run();
