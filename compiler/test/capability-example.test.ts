// The example third-party capability (examples/changelog-capability/) compiled
// into every target and scope by `gsd-build --capability`: composed where it
// says, recorded in each bundle manifest with origin and digest, its config
// key known to the bundled runtime CLI, and toggled per project.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const example = suite('capability example');

example('should compile the changelog capability into every target and scope and toggle it per project', () => {
  const out = temporaryDir('caps-example');
  const built = runCli(['--all', '--out', out, '--capability', 'examples/changelog-capability']);
  assert.is(built.status, 0, built.stderr);
  assert.match(built.stdout, /built 36 bundle\(s\)/);

  const bundle = path.join(out, 'claude', 'global');
  const manifest = JSON.parse(readFileSync(path.join(bundle, 'gsd-file-manifest.json'), 'utf8')) as { capabilities: { id: string; origin: string; source: string; digest: string; hooks: boolean; files: string[] }[] };
  const third = manifest.capabilities.find((entry) => entry.id === 'changelog-capability')!;
  assert.equal({ ...third, digest: third.digest.slice(0, 7) }, {
    id: 'changelog-capability',
    version: '0.1.0',
    origin: 'third-party',
    source: 'examples/changelog-capability',
    digest: 'sha256:',
    hooks: false,
    // Both contributions fit inline: no step file of its own.
    files: [],
  });
  assert.ok(manifest.capabilities.some((entry) => entry.id === 'nyquist-validation' && entry.origin === 'first-party'));

  const core = path.join(bundle, '.claude', 'gsd-core');
  const host = readFileSync(path.join(core, 'workflows', 'execute-phase.md'), 'utf8');
  assert.ok(host.includes('`changelog-capability-execute-wave-pre` as included'), 'inline at execute:wave:pre');
  assert.ok(host.includes('`changelog-capability-execute-post` as included'), 'inline at execute:post');
  assert.ok(!host.includes('gsd:loop') && !host.includes('gsd:section'), 'loop and section markers never reach a bundle');
  assert.match(host, /\n<capability id="changelog-capability" version="0\.1\.0" point="execute:wave:pre">\nOnly when `section_manifest` is null or lists `changelog-capability-execute-wave-pre` as included, do what this block says; otherwise skip to its end\.\nWhen you spawn gsd-executor at this point/);

  // The bundled CLI knows the capability's key: default true, settable, and it drives the section selection.
  const project = temporaryDir('caps-project');
  mkdirSync(path.join(project, '.planning'));
  const tools = path.join(core, 'bin', 'gsd-tools.cjs');
  const gsd = (...args: string[]) => spawnSync(process.execPath, [tools, ...args], { cwd: project, encoding: 'utf8', env: { ...process.env, GSD_NO_CODE_CACHE: '1' } });
  const selected = () => {
    const run = gsd('init', 'execute-phase', '1', '--pick', 'section_manifest.included');
    assert.is(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as string[];
  };
  assert.equal(selected().filter((id) => id.startsWith('changelog')), ['changelog-capability-execute-wave-pre', 'changelog-capability-execute-post']);
  const refused = gsd('config-set', 'changelog.per_plan', 'sometimes');
  assert.is(refused.status, 1, 'a typed key refuses a value of another type');
  writeFileSync(path.join(project, '.planning', 'config.json'), '{}\n');
  const set = gsd('config-set', 'changelog.per_plan', 'false');
  assert.is(set.status, 0, set.stderr);
  assert.equal(selected().filter((id) => id.startsWith('changelog')), []);
  const listed = gsd('capability', 'list', '--raw');
  assert.match(listed.stdout, /^off changelog-capability 0\.1\.0 \(third-party\): changelog\.per_plan=false$/m);
});

example.run();
