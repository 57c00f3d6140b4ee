// The bundle manifest and README.txt at the top of every bundle: valid against
// schemas/manifest.schema.json, exact about every other file, and explicit
// about which files are shared config the installer merges.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { allBundles, compile, emitBundles, releaseTexts, REPO_ROOT, type Compiled } from '../pipeline.ts';
import { byteLengthOf, digestOf, type TreeFile, type VirtualTree } from '../emit/virtual-tree.ts';
import { addBundleManifest, bytesOf, isBundleMetadata, manifestLine, MANIFEST_FILE, README_FILE, type BundleManifest, type ManifestFile, type ManifestParts } from '../emit/bundle-manifest.ts';
import { schemaValidator } from '../schemas.ts';
import { contentDigest, encodedText, releaseEncoded, textFacts } from '../emit/content-facts.ts';
import { suite, assert } from './harness.ts';

const manifests = suite('bundle manifest');
let compiled: Compiled;
let bundles: Map<string, VirtualTree>;

manifests.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  bundles = emitBundles(compiled, allBundles(compiled.targets)).bundles;
});

const manifestOf = (key: string): BundleManifest => JSON.parse(String(bundles.get(key)!.get(MANIFEST_FILE)!.contents)) as BundleManifest;

manifests('should validate every bundle manifest against schemas/manifest.schema.json', () => {
  const validate = schemaValidator('manifest.schema.json');
  assert.is(bundles.size, allBundles(compiled.targets).length);
  assert.ok(bundles.size >= 30);
  for (const key of bundles.keys()) {
    const manifest = manifestOf(key);
    assert.ok(validate(manifest), `${key}: ${JSON.stringify(validate.errors)}`);
    const [target, scope] = key.split('/');
    assert.equal([manifest.target, manifest.scope, manifest.version, manifest.manifestVersion], [target, scope, compiled.version, 1]);
  }
});

manifests('should list every other file once, sorted, with its sha256, size and mode', () => {
  for (const [key, tree] of bundles) {
    const manifest = manifestOf(key);
    const listed = manifest.files.map((file) => file.path);
    assert.equal(listed, [...tree.keys()].filter((file) => !isBundleMetadata(file)), key);
    for (const file of manifest.files) {
      const entry = tree.get(file.path)!;
      const bytes = bytesOf(entry);
      assert.is(file.sha256, createHash('sha256').update(bytes).digest('hex'), `${key}/${file.path}`);
      assert.is(file.bytes, bytes.length);
      assert.is(file.mode, entry.executable ? '0755' : '0644', `${key}/${file.path}`);
      assert.is(file.generated ?? false, entry.generated ?? false, `${key}/${file.path}`);
    }
    assert.ok(manifest.files.some((file) => file.path === `${manifest.root}/gsd-core/bin/gsd-tools.cjs` && file.mode === '0755' && file.generated), `${key}: the runtime CLI`);
  }
});

manifests('should mark exactly the shared config files as merged, in their format', () => {
  const merged = (key: string) => Object.fromEntries(manifestOf(key).files.filter((file) => file.merge).map((file) => [file.path, file.merge]));
  assert.equal(merged('claude/global'), { '.claude/settings.json': 'json' });
  assert.equal(merged('codex/global'), { '.codex/config.toml': 'toml', '.codex/hooks.json': 'json' });
  assert.equal(merged('copilot/local'), { '.github/copilot-instructions.md': 'markdown' }, 'hooks/gsd.json is a file GSD owns');
  assert.equal(merged('kimi/global'), { '.kimi-code/config.toml': 'toml' });
  assert.equal(merged('kimi/local'), {});
  assert.equal(merged('opencode/global'), { '.config/opencode/opencode.json': 'json' });
  assert.equal(merged('kilo/global'), { '.config/kilo/kilo.jsonc': 'json' });
  assert.equal(merged('hermes/global'), { '.hermes/config.yaml': 'yaml' }, 'DESCRIPTION.md is owned');
  assert.equal(merged('cline/local'), { '.clinerules/gsd.md': 'markdown' }, 'the hook dispatchers are owned');
});

manifests('should ship a README.txt with the install, update and uninstall commands for the bundle', () => {
  const readme = (key: string) => String(bundles.get(key)!.get(README_FILE)!.contents);
  const global = readme('claude/global');
  assert.match(global, /^GSD \d+\.\d+\.\d+ for Claude Code, global scope \(gsd-claude-global-/);
  assert.ok(global.includes('  node .claude/gsd-core/bin/gsd-tools.cjs install --global\n'));
  assert.ok(global.includes('  node ~/.claude/gsd-core/bin/gsd-tools.cjs uninstall\n'));
  assert.ok(global.includes('$CLAUDE_CONFIG_DIR'));
  assert.ok(global.includes('    .claude/settings.json\n'), 'names the files it merges');
  const local = readme('opencode/local');
  assert.match(local, /node \/path\/to\/gsd-opencode-local-[^/]+\/\.opencode\/gsd-core\/bin\/gsd-tools\.cjs install --local/);
  assert.ok(local.includes('(none in this bundle)'));
  for (const [key, tree] of bundles) assert.ok(/^[\x09\x0a\x20-\x7e]*$/.test(String(tree.get(README_FILE)!.contents)), `${key}: README.txt is plain ASCII`);
});

manifests('should digest the UTF-8 bytes of every file, the same for equal contents however they were made', () => {
  const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  const text = 'naïve — 漢字 \u{1F600}\n'.repeat(3);
  assert.is(digestOf({ contents: text }), sha(Buffer.from(text, 'utf8')));
  // An equal string built another way (no shared object) gets the same digest; a one-character change another.
  const rebuilt = ['naïve — 漢字 \u{1F600}\n', 'naïve — 漢字 \u{1F600}\n', 'naïve — 漢字 \u{1F600}\n'].join('');
  assert.is(digestOf({ contents: rebuilt }), digestOf({ contents: text }));
  assert.is.not(digestOf({ contents: `${text}x` }), digestOf({ contents: text }));
  const bytes = new Uint8Array([0, 255, 10, 13]);
  assert.is(digestOf({ contents: bytes }), sha(bytes));
  assert.is(digestOf({ contents: bytes }), sha(bytes));
});

manifests('should write each manifest line exactly as JSON.stringify writes the entry, for every shape of value', () => {
  const sha = 'ab'.repeat(32);
  const entries: ManifestFile[] = [];
  for (const path of ['a/b.md', 'quote " and \\ back', 'tab\tnewline\n', 'ünïcødé/😀.md', '\u2028\u0000']) {
    for (const sha256 of [sha, sha.toUpperCase(), 'ab', `${sha}"`]) {
      for (const bytes of [0, 1, 123456789, -0, 2 ** 60, 1.5]) {
        for (const mode of ['0644', '0755', '0700'] as ManifestFile['mode'][]) {
          entries.push({ path, sha256, bytes, mode });
          entries.push({ path, sha256, bytes, mode, merge: 'json' as ManifestFile['merge'] });
          entries.push({ path, sha256, bytes, mode, generated: true });
          entries.push({ path, sha256, bytes, mode, merge: 'toml' as ManifestFile['merge'], generated: true });
        }
      }
    }
  }
  for (const entry of entries) assert.is(manifestLine(entry), JSON.stringify(entry), JSON.stringify(entry));
  // And every line of every emitted manifest reads back as its entry.
  for (const key of bundles.keys()) for (const file of manifestOf(key).files) assert.is(manifestLine(file), JSON.stringify(file));
});

manifests('should give each text the digest and size of its UTF-8 bytes, whatever its characters and length', () => {
  // ASCII, Latin-1 (one-byte strings in V8), BMP and astral characters, lone surrogates (written as U+FFFD), and
  // texts past the encoding scratch's first size, growing it, then small again.
  const texts = ['', 'plain ascii\n', 'caf\u00e9 \u00ff', 'em \u2014 dash \u2713', 'astral \u{1F600}', 'lone \ud800 high', 'lone \udc00 low', 'x'.repeat(70_000), '\u2014'.repeat(90_000) + 'tail', 'after'];
  for (const text of texts) {
    const bytes = Buffer.from(text, 'utf8');
    assert.is(textFacts(text).bytes, bytes.length, JSON.stringify(text.slice(0, 20)));
    assert.is(contentDigest(text), createHash('sha256').update(bytes).digest('hex'), JSON.stringify(text.slice(0, 20)));
    assert.is(contentDigest(bytes), contentDigest(text));
  }
});

manifests('should keep a text encoded whole until it is released, whatever its length, and a text released twice counted once', () => {
  const texts = ['', 'plain ascii\n', 'em \u2014 dash \u2713', 'astral \u{1F600}', 'lone \ud800 high', '\u2014'.repeat(1_500_000) + 'past an arena', 'after'];
  const kept = texts.map((text) => ({ text, ...encodedText(text) }));
  for (const { text, sha256, bytes, encoded } of kept) {
    const expected = Buffer.from(text, 'utf8');
    assert.ok(Buffer.from(encoded).equals(expected), JSON.stringify(text.slice(0, 20)));
    assert.is(bytes, expected.length);
    assert.is(sha256, createHash('sha256').update(expected).digest('hex'));
  }
  // Texts of 2.1 MB (700,000 three-byte characters): no arena (4 MiB) holds two. The second starts another arena (A),
  // `one` and `two` follow it there, and the third starts another, so A is no longer the one being filled.
  const large = '\u2014'.repeat(700_000);
  encodedText(large);
  const inA = encodedText(large);
  const one = encodedText('one');
  const two = encodedText('two');
  encodedText(large);
  // `one` released twice and the large text once: `two` still holds A, which must not be filled again.
  releaseEncoded(inA.encoded);
  releaseEncoded(one.encoded);
  releaseEncoded(one.encoded);
  // Arenas freed by then are filled from their start: a large text, then two short ones where `one` and `two` were.
  for (let round = 0; round < 3; round += 1) {
    encodedText(large);
    encodedText('111');
    encodedText('222');
  }
  assert.is(Buffer.from(two.encoded).toString('utf8'), 'two');
  for (const { text, encoded } of kept) assert.ok(Buffer.from(encoded).equals(Buffer.from(text, 'utf8')), JSON.stringify(text.slice(0, 20)));
});

manifests('should fill the digest and size of a text file together, and keep both when the writer has taken its text', () => {
  const text = 'caf\u00e9 \u{1F600}\n';
  const bytes = Buffer.from(text, 'utf8');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  // Asked for its size, a text file has its digest too (one encoding gives both); asked for its digest, its size.
  const sized: TreeFile = { contents: text };
  assert.is(byteLengthOf(sized), bytes.length);
  assert.is(sized.facts?.sha256, sha256);
  const digested: TreeFile = { contents: text };
  assert.is(digestOf(digested), sha256);
  assert.is(digested.facts?.bytes, bytes.length);
  // A byte array's size is its length: no digest until one is asked for.
  const asset: TreeFile = { contents: bytes, verbatim: true };
  assert.is(byteLengthOf(asset), bytes.length);
  assert.is(asset.facts?.sha256, undefined);
  // Released, each rendered file is its facts alone; the asset, shared by every bundle, stays as it is.
  const tree: VirtualTree = new Map([
    ['a.md', { contents: text, executable: true, source: 'src/a.md' }],
    ['b.bin', asset],
  ]);
  releaseTexts(tree);
  const released = tree.get('a.md')!;
  assert.ok(released.reused);
  assert.is(released.contents, '');
  assert.equal([digestOf(released), byteLengthOf(released), released.executable, released.source], [sha256, bytes.length, true, 'src/a.md']);
  assert.is(tree.get('b.bin'), asset);
  // And a released tree's manifest entries are the ones its texts gave.
  const bundle = [...bundles.values()][0]!;
  const copy: VirtualTree = new Map([...bundle].map(([file, entry]) => [file, { ...entry, facts: undefined } as TreeFile]));
  const before = [...copy].map(([file, entry]) => [file, digestOf(entry), byteLengthOf(entry)]);
  releaseTexts(copy);
  assert.equal([...copy].map(([file, entry]) => [file, digestOf(entry), byteLengthOf(entry)]), before);
});

manifests('should make a delta\'s manifest from the last one\'s bytes, the same as one made whole, whatever the lines\' lengths', () => {
  const target = compiled.targets.find((candidate) => candidate.definition.id === 'claude')!;
  // Files whose lines change length (a size of 2 bytes, then 20; 4, then 400), some named past ASCII, some between them unchanged.
  const text = (length: number) => 'x'.repeat(length);
  const names = ['a.md', 'b caf\u00e9.md', 'c.md', 'd \u2014 \u{1F600}.md', 'e.md', 'f.md'];
  const treeOf = (sizes: readonly number[]): VirtualTree => new Map(names.map((name, index) => [`.claude/${name}`, { contents: text(sizes[index]!) }] as [string, TreeFile]));
  let parts: ManifestParts | undefined;
  let last: number[] | null = null;
  for (const sizes of [[1, 2, 3, 4, 5, 6], [1, 20, 3, 400, 5, 6], [100, 2, 3, 4, 5, 6000], [1, 2, 3, 4, 5, 6], [1, 99999, 3, 0, 5, 6]]) {
    const tree = treeOf(sizes);
    const changed = last === null ? [] : names.filter((_, index) => sizes[index] !== last![index]).map((name) => `.claude/${name}`);
    const made = addBundleManifest(tree, target, 'global', '1.0.0', [], undefined, { last: parts, changed, bytes: true, keep: (kept) => (parts = kept) });
    const whole = addBundleManifest(treeOf(sizes), target, 'global', '1.0.0');
    const manifest = made.get(MANIFEST_FILE)!;
    assert.ok(Buffer.from(bytesOf(manifest)).equals(Buffer.from(bytesOf(whole.get(MANIFEST_FILE)!))), `sizes ${sizes}`);
    assert.equal([digestOf(manifest), byteLengthOf(manifest)], [digestOf(whole.get(MANIFEST_FILE)!), byteLengthOf(whole.get(MANIFEST_FILE)!)]);
    if (last !== null) assert.ok(manifest.contents instanceof Uint8Array, 'a delta\'s manifest is its bytes');
    last = sizes;
  }
});

manifests.run();
