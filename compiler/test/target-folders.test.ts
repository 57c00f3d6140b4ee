// One walk over targets/: every runtime is one folder, and each folder is
// complete on its own terms. Its definition (and hook payload, if any) loads
// without a finding; every file in it is one the definition names, its
// README, its payload or its own tests; its README says what it lays out and
// how it differs from upstream, with the vendor pages it followed; each scope
// it declares has a golden bundle and a support-matrix row, and no other
// golden scope exists. Adding a runtime is adding a folder this test accepts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { HOOK_PAYLOAD_FILE, loadTargets } from '../targets/load-targets.ts';
import { SCOPE_IDS, type Target } from '../targets/target-types.ts';
import { suite, assert } from './harness.ts';

const s = suite('target folders');
const TARGETS = path.join(REPO_ROOT, 'targets');
const GOLDEN = path.join(REPO_ROOT, 'golden');

let targets: Target[] = [];
s.before(async () => {
  const loaded = await loadTargets();
  assert.equal(loaded.diagnostics, []);
  targets = loaded.targets;
});

/** Files a definition names (preambles with {scope} filled, wrapper templates, config texts). */
function namedFiles(target: Target): Set<string> {
  return new Set(Object.keys(target.files));
}

s('should load every folder under targets/ as a target', () => {
  const folders = readdirSync(TARGETS, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  assert.equal(targets.map((target) => target.definition.id).sort(), folders);
  assert.ok(folders.length >= 18, `${folders.length} runtimes`);
});

s('should hold only files its definition names, its README, its hook payload and its own tests', () => {
  const strays: string[] = [];
  for (const target of targets) {
    const id = target.definition.id;
    const known = new Set(['target.json', 'README.md', HOOK_PAYLOAD_FILE, ...namedFiles(target)]);
    for (const file of readdirSync(path.join(TARGETS, id))) if (!known.has(file) && !file.endsWith('.test.ts')) strays.push(`${id}/${file}`);
    assert.is(existsSync(path.join(TARGETS, id, HOOK_PAYLOAD_FILE)), target.hookPayload !== undefined, `${id}: a payload file that loads, or none`);
  }
  assert.equal(strays, []);
});

s('should document each runtime: surfaces, differences from upstream, the vendor pages followed', () => {
  for (const target of targets) {
    const id = target.definition.id;
    const readme = readFileSync(path.join(TARGETS, id, 'README.md'), 'utf8');
    const headings = readme.split('\n').filter((line) => line.startsWith('## ')).map((line) => line.slice(3));
    assert.ok(headings.includes('Surfaces'), `${id}/README.md: a "Surfaces" section`);
    assert.ok(headings.includes('Differences from upstream'), `${id}/README.md: a "Differences from upstream" section`);
    assert.ok(headings.includes('Vendor documentation checked') || headings.includes('Checked against'), `${id}/README.md: a "Vendor documentation checked" (or "Checked against") section naming the pages followed`);
  }
});

s('should have a golden bundle and a support-matrix row for each declared scope, and nothing else', () => {
  const matrix = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8').split('\n').filter((line) => line.startsWith('| '));
  for (const target of targets) {
    const { id, name } = target.definition;
    for (const scope of SCOPE_IDS) {
      const declared = target.definition.scopes[scope] !== undefined;
      assert.is(existsSync(path.join(GOLDEN, id, scope, 'gsd-file-manifest.json')), declared, `golden/${id}/${scope}`);
      if (declared) assert.ok(matrix.some((line) => line.startsWith(`| ${name} | ${scope} |`)), `README.md: a matrix row for ${name} ${scope}`);
    }
  }
  const goldenTargets = readdirSync(GOLDEN, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  assert.equal(goldenTargets, targets.map((target) => target.definition.id).sort(), 'golden/ holds the targets there are');
});

s.run();
