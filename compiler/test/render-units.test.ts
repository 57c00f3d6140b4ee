// Render units (compiler/emit/render-units.ts) reused by an incremental build
// must be invisible: the same trees, manifests and findings as rendering
// every file, with only the units whose input changed rendered again.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { allBundles, compile, emitBundles, releaseTexts, type Compiled, type StoredUnits, type UnitSource } from '../pipeline.ts';
import { bytesOf, MANIFEST_FILE } from '../emit/bundle-manifest.ts';
import { digestOf, byteLengthOf, type VirtualTree } from '../emit/virtual-tree.ts';
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

/** A first emission of the mini corpus, and a source of its first bundle's units with `record` (its own by default) and `heldBack`. */
async function firstBundle() {
  const built = await compiled(miniSandbox());
  const selections = allBundles(built.targets);
  const first = emitBundles(built, selections, undefined, none);
  const [bundle, tree] = [...first.bundles][0]!;
  const source = (record: BundleRecord = recordOf(tree), heldBack?: Set<string>): UnitSource => ({
    previous: (key) => (key === bundle ? { units: parseUnits(unitsText(first.units.get(key)!))!, record, ...(heldBack ? { heldBack } : {}) } : undefined),
  });
  return { built, selections, bundle, tree, source };
}

units('should give the same bytes, facts, findings and units with rendered texts kept as their bytes (a build that writes)', async () => {
  const box = miniSandbox();
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nSee ~/.codex/gsd-core/workflows/x.md \u2014 caf\u00e9 \u{1F600}.\n');
  const before = await compiled(box);
  const selections = allBundles(before.targets);
  const plain = emitBundles(before, selections, undefined, none);
  const same = (run: ReturnType<typeof emitBundles>) => {
    assert.equal(run.diagnostics, plain.diagnostics);
    assert.equal([...run.units], [...plain.units]);
    let encoded = 0;
    let listed = 0;
    for (const [key, tree] of plain.bundles) {
      const other = run.bundles.get(key)!;
      assert.equal([...other.keys()], [...tree.keys()], key);
      for (const [file, entry] of tree) {
        const twin = other.get(file)!;
        if (twin.encoded) encoded += 1;
        if (twin.facts?.listed) listed += 1;
        assert.ok(Buffer.from(bytesOf(twin)).equals(Buffer.from(bytesOf(entry))), `${key}/${file}`);
        assert.equal(twin.facts, entry.facts, `${key}/${file}`);
      }
    }
    return { encoded, listed };
  };
  assert.ok(plain.diagnostics.some((d) => d.code === 'emit-foreign-path') && plain.diagnostics.some((d) => d.code === 'limit-exceeded'), 'the fixture has findings of both kinds');
  const first = emitBundles(before, selections, undefined, none, { encodeTexts: true });
  const counted = same(first);
  assert.ok(counted.encoded > 100 && counted.listed > 0, `rendered texts are kept encoded, listed ones with their fields: ${JSON.stringify(counted)}`);
  // Released (as the writer does once it has a bundle's bytes), their memory holds the next build's texts: those are whole.
  for (const tree of first.bundles.values()) releaseTexts(tree);
  assert.ok([...first.bundles.values()].every((tree) => [...tree.values()].every((file) => !file.encoded)));
  same(emitBundles(before, selections, undefined, none, { encodeTexts: true }));
});

units('should not reuse a unit whose file is missing from the bundle record', async () => {
  const { built, selections, bundle, tree, source } = await firstBundle();
  const record = recordOf(tree);
  const dropped = Object.keys(record).find((file) => file.endsWith('notes.md'))!;
  delete record[dropped];
  const second = emitBundles(built, selections, undefined, source(record));
  const reused = [...second.bundles.get(bundle)!.values()].filter((file) => file.reused).length;
  assert.ok(!second.bundles.get(bundle)!.get(dropped)!.reused, 'the file without a record is rendered');
  assert.ok(reused > 0 && reused < tree.size, `${reused} reused of ${tree.size}`);
  assert.equal(manifests(second), manifests(emitBundles(built, selections)));
});

units('should render again a unit holding a file held back, though its record is whole', async () => {
  const { built, selections, bundle, tree, source } = await firstBundle();
  const held = [...tree.keys()].find((file) => file.endsWith('notes.md'))!;
  const whole = emitBundles(built, selections, undefined, source());
  assert.ok(whole.bundles.get(bundle)!.get(held)!.reused, 'without holding back, the file is taken back');
  const second = emitBundles(built, selections, undefined, source(undefined, new Set([held])));
  const rendered = second.bundles.get(bundle)!;
  assert.ok(!rendered.get(held)!.reused && rendered.get(held)!.contents === tree.get(held)!.contents, 'the file held back is rendered, as before');
  assert.is([...rendered.values()].filter((file) => file.reused).length, [...whole.bundles.get(bundle)!.values()].filter((file) => file.reused).length - 1, 'its unit alone');
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
    // A listed entry as an older store kept it (the prose), or of another shape.
    JSON.stringify({ salt: 's', units: [['key', [{ path: 'a.md', facts: { listed: { name: 'gsd-x', description: 'Does x' } } }]]] }),
    JSON.stringify({ salt: 's', units: [['key', [{ path: 'a.md', facts: { listed: { named: true, bytes: '12', chars: 12 } } }]]] }),
    JSON.stringify({ salt: 's', units: [['key', [{ path: 'a.md', facts: { listed: null } }]]] }),
  ];
  for (const text of refused) assert.equal(parseUnits(text), null, text);
  assert.equal(parseUnits(JSON.stringify({ salt: 's', units: [['key', [file]]] })), { salt: 's', units: new Map([['key', [file]]]) });
  const listed = { path: 'a.md', facts: { listed: { named: false, bytes: 9, chars: 7 } } };
  assert.equal(parseUnits(JSON.stringify({ salt: 's', units: [['key', [listed]]] })), { salt: 's', units: new Map([['key', [listed]]]) });
});


/** Each file as the manifest and the record see it: path, digest, size, mode, in tree order. */
const filesOf = (tree: VirtualTree) => [...tree].map(([file, entry]) => [file, digestOf(entry), byteLengthOf(entry), entry.executable === true]);

/** A resident build's source: the last run's units and records, and its emissions (what watch keeps between rebuilds). */
function residentFrom(run: ReturnType<typeof emitBundles>): UnitSource {
  return { ...sourceFrom(run), emission: (bundle) => run.emissions.get(bundle) };
}

units('should emit in a resident build only what changed since the last emission, the same trees and findings as a whole emit', async () => {
  const box = miniSandbox();
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nSee ~/.codex/gsd-core/workflows/x.md.\n');
  // A file whose path names Claude Code's root: every other runtime's manifest names it too (a delta's manifest keeps the
  // hits of the lines it did not change and scans the others).
  const oddName = 'gsd-core/references/a .claude b.md';
  writeFileSync(path.join(box.source, oddName), '# Odd\n\nIts name is the finding.\n');
  // A name past ASCII: a delta's manifest is patched by byte, and its lines after this one start further in bytes than in characters.
  writeFileSync(path.join(box.source, 'gsd-core/references/caf\u00e9 \u2014 \u{1F600}.md'), '# Caf\u00e9\n');
  // A router: where a runtime nests routed commands (a namespace), other lives under it.
  const router = (requires: string) => `---\nname: gsd:ns-route\ndescription: "Routes to the other command"\nallowed-tools:\n  - Read\n${requires}---\nRoutes /gsd-other.\n`;
  writeFileSync(path.join(box.source, 'commands/gsd/ns-route.md'), router('requires:\n  - other\n'));
  const selections = allBundles((await compiled(box)).targets);
  let last = emitBundles(await compiled(box), selections, undefined, { previous: () => undefined, emission: () => undefined });
  assert.is(last.emissions.size, selections.length, 'a resident source keeps every emission');
  assert.is(last.deltas.length, 0);
  const step = async (name: string, file: string, text: string, expected: 'delta' | 'whole') => {
    writeFileSync(path.join(box.source, file), text);
    const now = await compiled(box);
    const run = emitBundles(now, selections, undefined, residentFrom(last));
    const clean = emitBundles(now, selections);
    assert.equal(run.diagnostics, clean.diagnostics, name);
    for (const [key, tree] of clean.bundles) {
      assert.equal(filesOf(run.bundles.get(key)!), filesOf(tree), `${name}: ${key}`);
      assert.ok(Buffer.from(bytesOf(run.bundles.get(key)!.get(MANIFEST_FILE)!)).equals(Buffer.from(bytesOf(tree.get(MANIFEST_FILE)!))), `${name}: ${key} manifest`);
    }
    for (const [key, tree] of run.bundles) {
      // A delta's changed files are all there is to write: every other file is the last emission's own (reused).
      const changed = new Set(run.changedFiles.get(key) ?? [...tree.keys()]);
      for (const [file, entry] of tree) if (!changed.has(file)) assert.ok(entry.reused, `${name}: ${key}/${file} is the last emission's`);
    }
    if (expected === 'delta') assert.is(run.deltas.length, selections.length, `${name}: every bundle a delta`);
    else assert.ok(run.deltas.length < selections.length, `${name}: the delta does not hold where files moved`);
    last = run;
    return run;
  };
  const manifestHits = (run: ReturnType<typeof emitBundles>) => run.diagnostics.filter((d) => d.code === 'emit-foreign-path' && d.file.endsWith(`/${MANIFEST_FILE}`));
  const hitsBefore = manifestHits(last);
  assert.ok(hitsBefore.length > 0, 'a manifest names a foreign root');
  const oddEdited = await step('the file with the odd name edited: its manifest line is scanned again', oddName, '# Odd\n\nIts name is still the finding.\n', 'delta');
  assert.equal(manifestHits(oddEdited), hitsBefore);
  const edited = await step('reference edited, its leak gone', 'gsd-core/references/notes.md', '# Notes\n\nNo foreign root now.\n', 'delta');
  assert.not.ok(edited.diagnostics.some((d) => d.code === 'emit-foreign-path' && d.file.endsWith('/notes.md')));
  assert.equal(manifestHits(edited), hitsBefore, 'the manifests still name the odd file');
  // Only the edited reference, each manifest and README are written.
  for (const key of edited.deltas) assert.equal(edited.changedFiles.get(key)!.filter((file) => file !== MANIFEST_FILE && file !== 'README.txt').length, 1, key);
  await step('command body edited', 'commands/gsd/other.md', '---\nname: gsd:other\ndescription: "The other command"\nallowed-tools:\n  - Read\n---\nRead ~/.claude/gsd-core/references/notes.md twice.\n', 'delta');
  await step('agent description edited (the agent listing changes)', 'agents/gsd-tiny.md', '---\nname: gsd-tiny\ndescription: A smaller agent. Spawned by /gsd-demo.\ntools: Read, Grep\ncolor: blue\n---\nDo the small thing.\n', 'delta');
  // The router no longer routes other: where runtimes nest routed commands, other's file moves to the top.
  const dropped = await step('a router drops its route', 'commands/gsd/ns-route.md', router(''), 'whole');
  assert.ok(dropped.deltas.length > 0, 'runtimes that do not nest commands still take the delta');
  await step('the route back', 'commands/gsd/ns-route.md', router('requires:\n  - other\n'), 'whole');
  await step('workflow edited after a whole emit', 'gsd-core/workflows/demo.md', '<purpose>\nThe demo, edited.\n</purpose>\n\nRead `~/.claude/gsd-core/references/notes.md` first.\n', 'delta');
});

units.run();
