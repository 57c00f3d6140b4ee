// Render units (compiler/emit/render-units.ts) reused by an incremental build
// must be invisible: the same trees, manifests and findings as rendering
// every file, with only the units whose input changed rendered again.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { allBundles, compile, emitBundles, type Compiled, type StoredUnits, type UnitSource } from '../pipeline.ts';
import { digestOf, MANIFEST_FILE } from '../emit/bundle-manifest.ts';
import { byteLengthOf, type VirtualTree } from '../emit/virtual-tree.ts';
import type { BundleRecord } from '../write/output-state.ts';
import { parseUnits, unitsText } from '../incremental.ts';
import { suite, assert } from './harness.ts';
import { miniSandbox, type Sandbox } from './fixture-support.ts';

const units = suite('render units');

/** A limit every Markdown file breaks: each file then has a finding its reused units must carry. */
async function compiled(box: Sandbox): Promise<Compiled> {
  const result = await compile({ sourceDir: box.source, targetsDir: box.targets });
  for (const target of result.targets) {
    for (const scope of Object.values(target.definition.scopes)) {
      if (scope) scope.limits = [...(scope.limits ?? []), { files: '\\.md$', maxBytes: 8, reason: 'a test limit' }];
    }
  }
  return result;
}

/** The record writeBundles would keep for a tree (mtimes play no part here). */
function recordOf(tree: VirtualTree): BundleRecord {
  return Object.fromEntries([...tree].map(([file, entry]) => [file, [digestOf(entry), byteLengthOf(entry), entry.executable ? 0o755 : 0o644, 0]]));
}

/** As an incremental build hands them back: stored as text, parsed afresh for each build. */
function sourceFrom(run: ReturnType<typeof emitBundles>): UnitSource {
  return { previous: (bundle) => ({ units: parseUnits(unitsText(run.units.get(bundle)!))!, record: recordOf(run.bundles.get(bundle)!) }) };
}

const none: UnitSource = { previous: () => undefined };
const reusedCount = (run: ReturnType<typeof emitBundles>) => [...run.bundles.values()].reduce((sum, tree) => sum + [...tree.values()].filter((file) => file.reused).length, 0);
const manifests = (run: ReturnType<typeof emitBundles>) => [...run.bundles].map(([key, tree]) => [key, tree.get(MANIFEST_FILE)!.contents]);
const unitFiles = (stored: StoredUnits) => [...stored.units.values()].flat().length;

units('should give back the trees, manifests and findings of rendering, and render again only what changed', async () => {
  const box = miniSandbox();
  // A foreign root in a reference: a leak finding on every bundle but Codex's own.
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nSee ~/.codex/gsd-core/workflows/x.md.\n');
  const before = await compiled(box);
  const selections = allBundles(before.targets);
  const plain = emitBundles(before, selections);
  const first = emitBundles(before, selections, undefined, none);
  assert.is(reusedCount(first), 0);
  assert.equal(first.diagnostics, plain.diagnostics);
  assert.ok(plain.diagnostics.some((d) => d.code === 'emit-foreign-path') && plain.diagnostics.some((d) => d.code === 'limit-exceeded'), 'the fixture has findings of both kinds');
  assert.equal(manifests(first), manifests(plain));

  // Nothing changed: every unit's files come back, with the same findings and manifests.
  const second = emitBundles(before, selections, undefined, sourceFrom(first));
  const unitTotal = [...first.units.values()].reduce((sum, stored) => sum + unitFiles(stored), 0);
  assert.ok(unitTotal > 100, `units hold most files, found ${unitTotal}`);
  assert.is(reusedCount(second), unitTotal);
  assert.equal(second.diagnostics, plain.diagnostics);
  assert.equal(manifests(second), manifests(plain));
  assert.equal([...second.units], [...first.units]);

  // One reference edited (its leak gone): only its files render again, and the findings are a clean emit's.
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nNo foreign root now.\n');
  const after = await compiled(box);
  const third = emitBundles(after, selections, undefined, sourceFrom(first));
  const clean = emitBundles(after, selections);
  assert.equal(third.diagnostics, clean.diagnostics);
  assert.ok(!third.diagnostics.some((d) => d.code === 'emit-foreign-path'), 'the leak went with the edit');
  assert.equal(manifests(third), manifests(clean));
  const rendered = [...third.bundles.values()].flatMap((tree) => [...tree].filter(([, file]) => !file.reused && file.source === 'gsd-core/references/notes.md'));
  assert.is(rendered.length, selections.length, 'the edited reference is rendered once per bundle');
  assert.is(reusedCount(third), unitTotal - selections.length);

  // Another target definition (salt): nothing of the last build is reused.
  after.targets[0]!.definition.name = `${after.targets[0]!.definition.name} (edited)`;
  assert.is(reusedCount(emitBundles(after, selections, undefined, sourceFrom(first))), 0);
});

units('should not reuse a unit whose file is missing from the bundle record', async () => {
  const box = miniSandbox();
  const built = await compiled(box);
  const selections = allBundles(built.targets);
  const first = emitBundles(built, selections, undefined, none);
  const [bundle, tree] = [...first.bundles][0]!;
  const record = recordOf(tree);
  const dropped = Object.keys(record).find((file) => file.endsWith('notes.md'))!;
  delete record[dropped];
  const second = emitBundles(built, selections, undefined, { previous: (key) => (key === bundle ? { units: parseUnits(unitsText(first.units.get(key)!))!, record } : undefined) });
  const reused = [...second.bundles.get(bundle)!.values()].filter((file) => file.reused).length;
  assert.ok(!second.bundles.get(bundle)!.get(dropped)!.reused, 'the file without a record is rendered');
  assert.ok(reused > 0 && reused < tree.size, `${reused} reused of ${tree.size}`);
  assert.equal(manifests(second), manifests(emitBundles(built, selections)));
});

units('should read stored units back as made, and refuse text of any other shape', async () => {
  const box = miniSandbox();
  const built = await compiled(box);
  const first = emitBundles(built, allBundles(built.targets), undefined, none);
  for (const stored of first.units.values()) assert.equal(parseUnits(unitsText(stored)), stored);
  const file = { path: 'a.md', facts: {} };
  const refused = [
    'not json',
    'null',
    JSON.stringify({ units: [] }),
    // The units as an object (an older store) or pairs of another shape.
    JSON.stringify({ salt: 's', units: { key: [file] } }),
    JSON.stringify({ salt: 's', units: [['key']] }),
    JSON.stringify({ salt: 's', units: [[1, [file]]] }),
    JSON.stringify({ salt: 's', units: [['key', [{ path: 'a.md' }]]] }),
    JSON.stringify({ salt: 's', units: [['key', [{ path: 'a.md', facts: { leaks: 'none' } }]]] }),
  ];
  for (const text of refused) assert.equal(parseUnits(text), null, text);
  assert.equal(parseUnits(JSON.stringify({ salt: 's', units: [['key', [file]]] })), { salt: 's', units: new Map([['key', [file]]]) });
});

units.run();
