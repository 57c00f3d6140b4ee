// The CI and release workflows under .github/workflows/ lint clean with
// action-validator (a devDependency: WebAssembly, no network), a broken copy
// does not, and each does what the README says: CI runs the README's test
// command on Node 20 and the newest LTS; a version tag releases, checks
// SHA256SUMS and attaches the zips, SHA256SUMS and release-manifest.json.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { temporaryDir } from './fixture-support.ts';

const workflows = suite('workflows');
const DIR = path.join(REPO_ROOT, '.github', 'workflows');
const VALIDATOR = path.join(REPO_ROOT, 'node_modules', '@action-validator', 'cli', 'cli.mjs');

function validate(file: string) {
  const result = spawnSync(process.execPath, [VALIDATOR, file], { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

type Workflow = { on: Record<string, unknown>; jobs: Record<string, { strategy?: { matrix?: { node?: string[] } }; steps: { run?: string; uses?: string; with?: Record<string, string> }[] }> };
const read = (name: string) => YAML.parse(readFileSync(path.join(DIR, name), 'utf8')) as Workflow;
const runs = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.run ?? '')).join('\n');

workflows('should lint every workflow clean with action-validator', () => {
  const files = readdirSync(DIR).filter((file) => file.endsWith('.yml')).sort();
  assert.equal(files, ['ci.yml', 'release.yml']);
  for (const file of files) {
    const result = validate(path.join(DIR, file));
    assert.is(result.status, 0, `${file}: ${result.output}`);
  }
});

workflows('should fail the linter on a workflow with a misspelt key', () => {
  const broken = path.join(temporaryDir('workflow'), 'ci.yml');
  writeFileSync(broken, readFileSync(path.join(DIR, 'ci.yml'), 'utf8').replace('runs-on: ubuntu-latest', 'runs-onn: ubuntu-latest'));
  const result = validate(broken);
  assert.is(result.status, 1);
  assert.match(result.output, /Additional property 'runs-onn' is not allowed/);
});

workflows("should run the README's test command on pushes and pull requests, on Node 20 and the newest LTS", () => {
  const ci = read('ci.yml');
  assert.ok('push' in ci.on && 'pull_request' in ci.on);
  assert.equal(ci.jobs['test']?.strategy?.matrix?.node, ['20', 'lts/*']);
  assert.match(runs(ci), /^npm ci && npm test$/m);
  assert.match(readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8'), /```sh\nnpm ci && npm test\n```/);
});

workflows('should release a version tag: npm run release, check SHA256SUMS, attach the zips, SHA256SUMS and release-manifest.json', () => {
  const release = read('release.yml');
  assert.equal((release.on['push'] as { tags: string[] }).tags, ['v*']);
  const text = runs(release);
  assert.match(text, /npm run release/);
  assert.match(text, /sha256sum --check --strict SHA256SUMS/);
  assert.match(text, /npm publish/);
  const upload = Object.values(release.jobs).flatMap((job) => job.steps).find((step) => step.uses?.startsWith('softprops/action-gh-release@'));
  const files = (upload?.with?.['files'] ?? '').trim().split('\n');
  for (const file of ['dist/release/*.zip', 'dist/release/SHA256SUMS', 'dist/release/release-manifest.json']) assert.ok(files.includes(file), `${file} is attached`);
});

workflows.run();
