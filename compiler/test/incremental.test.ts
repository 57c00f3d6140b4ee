// Incremental builds must be invisible: after any sequence of edits, adds,
// renames and deletes of source files and target definitions, the output of
// a cached build is byte for byte (modes included) what a build from scratch
// writes; and a cache entry that is corrupt or from another compiler is
// ignored and rebuilt, never trusted.
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../pipeline.ts';
import { main, type Io } from '../cli.ts';
import { suite, assert } from './harness.ts';
import { hashParts, keepCacheResident, readCacheEntry, storedBytes, storedText, writeCacheEntry } from '../cache/build-cache.ts';
import { normalizedPath } from '../emit/emit-bundle.ts';
import { defaultCacheDir, StateRecords } from '../incremental.ts';
import { checkClaimed } from '../write/disk-check-thread.ts';
import { SETTLED_MS } from '../util/settled.ts';
import { settledStamp, stampIndex } from '../cache/stamp-index.ts';
import { sourceIndexName } from '../load/read-source-tree.ts';
import { listFiles } from '../util/list-files.ts';
import { MINI_CORPUS as CORPUS, miniSandbox as sandbox, runCli, snapshotTree, temporaryDir, type Sandbox } from './fixture-support.ts';

const incremental = suite('incremental builds');

async function run(args: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (text) => out.push(text), err: (text) => err.push(text) };
  const status = await main(args, io);
  return { status, out: out.join('\n'), err: err.join('\n') };
}

const build = (box: Sandbox, out = box.out, extra: string[] = []) => run(['--all', '--source', box.source, '--targets', box.targets, '--out', out, '--cache', box.cache, ...extra]);

/** The cached build's bundles against a --no-cache build of the same inputs into a fresh folder. */
async function assertSameAsClean(box: Sandbox, step: string, extra: string[] = []): Promise<string> {
  const result = await build(box, box.out, extra);
  assert.is(result.status, 0, `${step}: ${result.err}`);
  const clean = temporaryDir('clean');
  const fresh = await build(box, clean, ['--no-cache', ...extra]);
  assert.is(fresh.status, 0, `${step}: ${fresh.err}`);
  for (const bundle of bundlesOf(clean)) {
    assert.equal([...snapshotTree(path.join(box.out, bundle))], [...snapshotTree(path.join(clean, bundle))], `${step}: ${bundle}`);
  }
  rmSync(clean, { recursive: true, force: true });
  return result.out;
}

function bundlesOf(out: string): string[] {
  return readdirSync(out).flatMap((target) => readdirSync(path.join(out, target)).map((scope) => `${target}/${scope}`));
}

const writtenOf = (stdout: string) => Number(/\((\d+) written\)/.exec(stdout)?.[1] ?? NaN);

/** Edits, adds, renames and deletes of sources and targets, a profile and a hand edit in the output, each build checked against a clean one. */
async function editSequence(box: Sandbox): Promise<void> {
  const first = await assertSameAsClean(box, 'first build');
  assert.ok(writtenOf(first) > 100, first);
  // Nothing changed: nothing written.
  assert.is(writtenOf(await assertSameAsClean(box, 'no change')), 0);
  // One edited file: its rendering and each bundle's manifest, nothing else.
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nOther notes.\n');
  const edited = writtenOf(await assertSameAsClean(box, 'edit'));
  const bundles = bundlesOf(box.out).length;
  assert.ok(edited > 0 && edited <= 2 * bundles, `expected at most the edited file and the manifest per bundle, found ${edited} written`);
  // Again: the files the last build wrote in place are trusted as it recorded them (a resident build's disk check holds a patched listing).
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nOther notes, again.\n');
  const again = writtenOf(await assertSameAsClean(box, 'edit again'));
  assert.ok(again > 0 && again <= 2 * bundles, `expected at most the edited file and the manifest per bundle, found ${again} written`);
  // A file that build wrote in place, changed by hand: found and put back.
  const writtenInPlace = path.join(box.out, 'claude/global/.claude/gsd-core/references/notes.md');
  assert.ok(existsSync(writtenInPlace), writtenInPlace);
  writeFileSync(writtenInPlace, readFileSync(writtenInPlace, 'utf8').replace('again', 'AGAIN'));
  await assertSameAsClean(box, 'hand edit of a file written in place');
  // Added, renamed and deleted files.
  writeFileSync(path.join(box.source, 'gsd-core/references/added.md'), '# Added\n\nNew.\n');
  await assertSameAsClean(box, 'add');
  renameSync(path.join(box.source, 'gsd-core/references/added.md'), path.join(box.source, 'gsd-core/references/renamed.md'));
  await assertSameAsClean(box, 'rename');
  rmSync(path.join(box.source, 'gsd-core/references/renamed.md'));
  await assertSameAsClean(box, 'delete');
  // A profile chosen, then the default again: every bundle records its profile in its manifest.
  writeFileSync(path.join(box.source, 'profiles.json'), JSON.stringify({ default: 'full', profiles: { full: { description: 'Everything.', all: true }, pair: { description: 'Both commands.', commands: ['demo', 'other'] } } }));
  await assertSameAsClean(box, 'profiles added');
  const profiled = writtenOf(await assertSameAsClean(box, 'profile chosen', ['--profile', 'pair']));
  assert.ok(profiled >= bundles, `expected every bundle's manifest rewritten for the profile, found ${profiled} written`);
  await assertSameAsClean(box, 'default profile again');
  // A target definition edited, then a target removed.
  // The runtime's name, in its definition and in the facts checked against it.
  for (const file of ['claude/target.json', 'claude/facts.json']) {
    const full = path.join(box.targets, file);
    writeFileSync(full, readFileSync(full, 'utf8').replace(/("(?:name|runtime)": )"Claude Code"/, '$1"Claude Code (edited)"'));
  }
  await assertSameAsClean(box, 'target edit');
  rmSync(path.join(box.targets, 'zcode'), { recursive: true });
  rmSync(path.join(box.out, 'zcode'), { recursive: true });
  await assertSameAsClean(box, 'target delete');
  // A file changed by hand in the output is put back.
  const manifest = path.join(box.out, 'claude/global/gsd-file-manifest.json');
  writeFileSync(manifest, 'tampered');
  await assertSameAsClean(box, 'hand edit in the output');
}

incremental('should write byte-identical output to a clean build after edits, adds, renames and deletes of sources and targets', async () => {
  const box = sandbox();
  await editSequence(box);
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental('should report two paths that are one file on macOS or Windows when an incremental build adds the second, the first taken back from the cache', async () => {
  const box = sandbox();
  await assertSameAsClean(box, 'first build');
  const bundles = bundlesOf(box.out);
  // notes.md's units are the last build's (no text rendered again), NOTES.md's are new: the check reads the whole tree's paths.
  writeFileSync(path.join(box.source, 'gsd-core/references/NOTES.md'), '# Notes\n\nLouder.\n');
  for (const step of ['the colliding file added', 'nothing changed since']) {
    const failed = await build(box);
    assert.is(failed.status, 1, `${step}: ${failed.err}`);
    const collisions = failed.err.split('\n').filter((line) => line.includes(' error emit-path-collision '));
    assert.equal(collisions.map((line) => bundles.find((bundle) => line.startsWith(`${path.join(box.out, bundle)}/`))).sort(), [...bundles].sort(), `${step}: one per bundle\n${failed.err}`);
    for (const line of collisions) {
      assert.match(line, /\/gsd-core\/references\/notes\.md:1:1: error emit-path-collision expected .*, found "[^"]+\/gsd-core\/references\/notes\.md" from gsd-core\/references\/notes\.md and "[^"]+\/gsd-core\/references\/NOTES\.md" from gsd-core\/references\/NOTES\.md: one file there, differing only in case$/, step);
    }
  }
  // Taken away again: a clean build's output.
  rmSync(path.join(box.source, 'gsd-core/references/NOTES.md'));
  await assertSameAsClean(box, 'the colliding file removed');
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental("should take settled source files' digests from their stamps, and read one only where a unit of it is rendered again (upstream corpus, verbatim files)", async () => {
  const root = temporaryDir('stamped-sources');
  const source = path.join(root, 'corpus');
  cpSync(path.join(REPO_ROOT, 'node_modules/@opengsd/gsd-core'), source, { recursive: true });
  const build = (out: string, cache: string[]) => run(['--target', 'claude', '--scope', 'global', '--source', source, '--out', out, ...cache]);
  const out = path.join(root, 'out');
  const cache = ['--cache', path.join(root, 'cache')];
  assert.is((await build(out, cache)).status, 0);
  // Settled: the next build takes every unchanged file's digest from the stamp index and reads none of them for it.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SETTLED_MS + 100);
  assert.is((await build(out, cache)).status, 0, 'indexed');
  const bundle = path.join(out, 'claude/global');
  const sameAsClean = async (step: string) => {
    const clean = path.join(root, 'clean');
    assert.is((await build(clean, ['--no-cache'])).status, 0);
    assert.equal([...snapshotTree(bundle)], [...snapshotTree(path.join(clean, 'claude/global'))], step);
    rmSync(clean, { recursive: true, force: true });
  };
  // A verbatim file and a workflow edited: read (their stamps changed), every other unit reused with the indexed facts.
  appendFileSync(path.join(source, 'gsd-core/bin/lib/adapter-declarative.cjs'), '\n// edited\n');
  appendFileSync(path.join(source, 'gsd-core/workflows/add-backlog.md'), '\nOne more line.\n');
  const edited = await build(out, cache);
  assert.is(edited.status, 0, edited.err);
  assert.ok(writtenOf(edited.out) <= 3, `expected the two edited files and the manifest written, found ${edited.out}`);
  assert.match(readFileSync(path.join(bundle, '.claude/gsd-core/bin/lib/adapter-declarative.cjs'), 'utf8'), /\/\/ edited\n$/);
  await sameAsClean('edits');
  // A file removed from the output by hand: the bundle is written whole again, every verbatim file from bytes read now.
  rmSync(path.join(bundle, '.claude/gsd-core/bin/lib/adapter-imperative.cjs'));
  const rewritten = await build(out, cache);
  assert.is(rewritten.status, 0, rewritten.err);
  assert.ok(writtenOf(rewritten.out) > 900, rewritten.out);
  await sameAsClean('a file removed from the output');
  rmSync(root, { recursive: true, force: true });
});

incremental('should stop, writing nothing, when a source file is not the bytes its stamp promised, and trust that index no more', async () => {
  const box = sandbox();
  assert.is((await build(box)).status, 0);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SETTLED_MS + 100);
  // A stamp index that lies (as one would for a file saved between the listing and its read): every settled file's
  // stamp with a digest of no bytes it has.
  const index = stampIndex(box.cache, sourceIndexName(box.source));
  for (const file of listFiles(box.source)) index.learn(file, settledStamp(statSync(path.join(box.source, file), { bigint: true })), 'f'.repeat(64));
  index.save();
  const before = [...snapshotTree(box.out)];
  const refused = await build(box);
  assert.is(refused.status, 1);
  assert.match(refused.err, new RegExp(`^gsd-build: ${box.source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[^\n]+: changed since this build took its digest \\(saved while the build ran\\); nothing was written: build again$`));
  assert.equal([...snapshotTree(box.out)], before, 'the output as it was, no temporary folder left');
  // The index is not trusted again: the next build reads every file and writes what a clean build does.
  await assertSameAsClean(box, 'after a lying index');
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental('should write the same output with the cache kept in memory (watch), and leave a state on disk that the next build trusts', async () => {
  const box = sandbox();
  const cache = keepCacheResident();
  try {
    await editSequence(box);
    // Nothing of the state reached the disk yet: the output state entry was dropped before the first write and kept in memory since.
    const listed = existsSync(box.cache) ? readdirSync(box.cache) : [];
    assert.not.ok(listed.some((name) => name.startsWith('output-')), listed.join(', '));
    // Another process builds the same output meanwhile, after an edit: its state on disk wins over the one in memory.
    writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nEdited for another process.\n');
    const other = spawnSync(process.execPath, [path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), '--all', '--source', box.source, '--targets', box.targets, '--out', box.out, '--cache', box.cache], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.is(other.status, 0, other.stderr);
    assert.ok(writtenOf(other.stdout) > 0, other.stdout);
    assert.is(writtenOf(await assertSameAsClean(box, 'after another process built')), 0, 'its state and output are taken as they are');
    writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nEdited in memory again.\n');
    await assertSameAsClean(box, 'an edit after another process built');
  } finally {
    cache.close();
  }
  assert.ok(readdirSync(box.cache).some((name) => name.startsWith('output-')), 'the state is written as the cache stops being resident');
  const after = await build(box);
  assert.is(writtenOf(after.out), 0, `the flushed state is trusted by the next build, found ${after.out}`);
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental("should let another process's write or removal of a cache entry win over the one kept in memory", () => {
  const dir = temporaryDir('resident');
  const file = path.join(dir, 'entry.v8');
  writeCacheEntry(dir, 'entry', 'k', 'theirs');
  const theirs = readFileSync(file);
  const cache = keepCacheResident();
  try {
    // Kept in memory, not written: the disk still has their value.
    writeCacheEntry(dir, 'entry', 'k', 'ours');
    assert.is(readCacheEntry(dir, 'entry', 'k'), 'ours');
    assert.is(readCacheEntry(dir, 'entry', 'other key'), null);
    // Another process replaces the file (a new file renamed into place, as writes are): theirs is read, and flush does not overwrite it.
    writeFileSync(`${file}.new`, theirs);
    renameSync(`${file}.new`, file);
    assert.is(readCacheEntry(dir, 'entry', 'k'), 'theirs');
    writeCacheEntry(dir, 'entry', 'k', 'ours again');
    writeFileSync(`${file}.new`, theirs);
    renameSync(`${file}.new`, file);
    cache.flush();
    assert.equal(readFileSync(file), theirs, 'a flush leaves an entry another process wrote since');
    // Read from disk and kept; then removed by another process: no longer served from memory.
    assert.is(readCacheEntry(dir, 'entry', 'k'), 'theirs');
    rmSync(file);
    assert.is(readCacheEntry(dir, 'entry', 'k'), null);
    // Written and flushed: on disk for a process without the resident cache.
    writeCacheEntry(dir, 'entry', 'k', 'flushed');
  } finally {
    cache.close();
  }
  assert.is(readCacheEntry(dir, 'entry', 'k'), 'flushed');
  rmSync(dir, { recursive: true, force: true });
});

incremental('should ignore a corrupt or foreign cache entry and rebuild it', async () => {
  const box = sandbox();
  await assertSameAsClean(box, 'first build');
  const entries = readdirSync(box.cache).filter((name) => name.endsWith('.v8'));
  assert.ok(entries.some((name) => name.startsWith('nodes-')) && entries.some((name) => name.startsWith('output-')), entries.join(', '));
  // Corrupt bytes: every entry unreadable.
  for (const name of entries) writeFileSync(path.join(box.cache, name), 'not a cache entry');
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nChanged while the cache was corrupt.\n');
  const afterCorrupt = await assertSameAsClean(box, 'corrupt cache');
  assert.ok(writtenOf(afterCorrupt) > 100, `a corrupt output state is not trusted: everything is written, found ${afterCorrupt}`);
  // Foreign entries: another build's entries under these names (swapped), so every key mismatches.
  const nodes = entries.find((name) => name.startsWith('nodes-'))!;
  const output = entries.find((name) => name.startsWith('output-'))!;
  const nodesBytes = readFileSync(path.join(box.cache, nodes));
  writeFileSync(path.join(box.cache, nodes), readFileSync(path.join(box.cache, output)));
  writeFileSync(path.join(box.cache, output), nodesBytes);
  writeFileSync(path.join(box.source, 'agents/gsd-tiny.md'), CORPUS['agents/gsd-tiny.md']!.replace('small thing', 'smaller thing'));
  const afterForeign = await assertSameAsClean(box, 'foreign cache');
  assert.ok(writtenOf(afterForeign) > 100, afterForeign);
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental('should store a one-file edit as a patch on the state (the head), and trust a head only with the base it names', async () => {
  const box = sandbox();
  // Enough files that one edit's patch (its file, manifests and unit in each bundle) stays under a quarter of the base, as in a real corpus.
  for (let n = 0; n < 30; n += 1) writeFileSync(path.join(box.source, `gsd-core/references/extra-${n}.md`), `# Extra ${n}\n\nA reference.\n`);
  await assertSameAsClean(box, 'first build');
  const entryOf = (suffix: string) => path.join(box.cache, readdirSync(box.cache).find((name) => name.startsWith('output-') && name.endsWith(suffix))!);
  const baseFile = readdirSync(box.cache).filter((name) => name.startsWith('output-') && !name.endsWith('-head.v8')).map((name) => path.join(box.cache, name));
  assert.is(baseFile.length, 1, readdirSync(box.cache).join(', '));
  const head = entryOf('-head.v8');
  const baseBytes = readFileSync(baseFile[0]!);
  // Edits: each build writes its head, the base stays as the first build wrote it, and the output is a clean build's.
  for (const text of ['# Notes\n\nOne.\n', '# Notes\n\nTwo.\n', '# Notes\n\nThree.\n']) {
    writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), text);
    const edited = writtenOf(await assertSameAsClean(box, `edit ${text}`));
    assert.ok(edited > 0, String(edited));
    assert.ok(readFileSync(baseFile[0]!).equals(baseBytes), `the base is not written again for a one-file edit (${readdirSync(box.cache).join(', ')})`);
  }
  // A file removed and then put back as it was: the patch drops it from the record, so the next build writes it again.
  const extra = path.join(box.source, 'gsd-core/references/extra-0.md');
  const extraText = readFileSync(extra, 'utf8');
  rmSync(extra);
  await assertSameAsClean(box, 'a reference removed');
  writeFileSync(extra, extraText);
  assert.ok(writtenOf(await assertSameAsClean(box, 'the reference put back')) > 0);
  assert.ok(readFileSync(baseFile[0]!).equals(baseBytes), 'the removal and the return are patches too');
  // Nothing changed since: the check of the output reads each record as stored with the head's patch on it, and trusts
  // every bundle; a hand edit after that is still found.
  assert.is(writtenOf(await assertSameAsClean(box, 'no change on a patched state')), 0);
  const [bundle] = bundlesOf(box.out);
  appendFileSync(path.join(box.out, bundle!, 'gsd-file-manifest.json'), ' ');
  assert.ok(writtenOf(await assertSameAsClean(box, 'a hand edit on a patched state')) > 0);
  // A head the disk holds for another base (here: the base replaced by an older build's) trusts nothing: everything is written.
  const headBytes = readFileSync(head);
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nFour.\n');
  writeCacheEntry(box.cache, path.basename(baseFile[0]!, '.v8'), 'another compiler', { id: 'x', weight: 1, bundles: {}, units: {} });
  const foreign = writtenOf(await assertSameAsClean(box, 'base of another compiler'));
  assert.ok(foreign > 100, `expected every file written without a base the head names, found ${foreign}`);
  // The old head on the new base: ids differ, nothing trusted.
  writeFileSync(head, headBytes);
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nFive.\n');
  const mismatched = writtenOf(await assertSameAsClean(box, 'head of an older base'));
  assert.ok(mismatched > 100, `expected every file written with a head of another base, found ${mismatched}`);
  // A head cut short or corrupt reads as no state.
  writeFileSync(head, readFileSync(head).subarray(0, 200));
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nSix.\n');
  const corrupt = writtenOf(await assertSameAsClean(box, 'corrupt head'));
  assert.ok(corrupt > 100, `expected every file written with a corrupt head, found ${corrupt}`);
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental('should fold a patch that outgrows a quarter of the base into a new base, the output still a clean build\'s', async () => {
  const box = sandbox();
  await assertSameAsClean(box, 'first build');
  const baseOf = () => readdirSync(box.cache).filter((name) => name.startsWith('output-') && !name.endsWith('-head.v8')).map((name) => readFileSync(path.join(box.cache, name)));
  const first = baseOf();
  // The mini corpus has few files per bundle: an edit to every reference changes more than a quarter of them.
  const references = readdirSync(path.join(box.source, 'gsd-core/references'));
  let rebased = false;
  for (let round = 0; round < 6 && !rebased; round += 1) {
    for (const name of references) writeFileSync(path.join(box.source, 'gsd-core/references', name), `# ${name}\n\nRound ${round}.\n`);
    await assertSameAsClean(box, `round ${round}`);
    rebased = !first[0]!.equals(baseOf()[0]!);
  }
  assert.ok(rebased, 'a new base once the patch outweighs a quarter of it');
  // And a build after it reads the new base with its head: nothing to write.
  assert.is(writtenOf(await assertSameAsClean(box, 'no change after the new base')), 0);
  rmSync(path.dirname(box.source), { recursive: true, force: true });
});

incremental('should trust no record whose stored text does not read as one, in the build or in the check of the output', () => {
  const base = { id: 'base', weight: 2, bundles: { 'a/global': storedBytes('not JSON'), 'b/global': storedBytes('[["x", "sha", 1, 420, 0]]'), 'c/global': storedBytes('null') }, units: {} };
  const records = new StateRecords(base, { bundles: new Map([['b/global', { y: ['sha', 1, 0o644, 0] as [string, number, number, number] }]]), units: new Map() }, true);
  assert.equal(records.keys().sort(), ['a/global', 'b/global', 'c/global']);
  for (const key of records.keys()) assert.is(records.get(key), undefined, key);
  assert.equal(records.all(), {});
  // The check reads the same text (with the patch), and trusts none of them.
  const out = temporaryDir('records');
  const answers: [string, boolean][] = [];
  checkClaimed(out, records.keys().map((key) => ({ key, ...records.listing(key) })), new Int32Array(new SharedArrayBuffer(4)), (key, ok) => answers.push([key, ok]));
  assert.equal(answers.sort(), [['a/global', false], ['b/global', false], ['c/global', false]]);
  rmSync(out, { recursive: true, force: true });
});

incremental('should read back every stored record and its listing as written, ASCII or not', () => {
  // JSON.stringify escapes lone surrogates, so a stored JSON text is well-formed UTF-16 and its UTF-8 exact.
  const texts = ['', '{"a.md":["sha",1,420,0]}', JSON.stringify({ 'caf\u00e9 \u2014 \u{1F600}.md': ['sha', 2, 420, 0], 'x\ud800.md': ['sha', 3, 420, 0] })];
  for (const text of texts) assert.is(storedText(storedBytes(text)), text);
  // One view among others over the same bytes, as the entry's file is read back.
  const whole = Buffer.concat([Buffer.from('prefix'), storedBytes(texts[2]!), Buffer.from('suffix')]);
  const view = new Uint8Array(whole.buffer, whole.byteOffset + 6, whole.length - 12);
  assert.is(storedText(view), texts[2]);
  const records = new StateRecords({ id: 'base', weight: 2, bundles: { 'a/global': view }, units: {} }, { bundles: new Map(), units: new Map() }, true);
  assert.is(records.listing('a/global').listing, texts[2]);
  assert.equal(Object.keys(records.get('a/global')!), ['caf\u00e9 \u2014 \u{1F600}.md', 'x\ud800.md']);
});

incremental('should load no compiler stage and no parser for a build with nothing changed, or a check that replays its pass', () => {
  const box = sandbox();
  const dir = path.dirname(box.source);
  // Every module the CLI's process resolves, logged by a resolve hook installed ahead of the TypeScript loader.
  const log = path.join(dir, 'resolved.log');
  const hooks = `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');\n  return result;\n}\n`;
  const logger = path.join(dir, 'log-resolved.mjs');
  writeFileSync(logger, `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});\n`);
  const resolvedBy = (args: string[]) => {
    rmSync(log, { force: true });
    const result = spawnSync(process.execPath, ['--import', logger, path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, GSD_BUILD_TS: '1' } });
    assert.is(result.status, 0, result.stderr);
    return { out: result.stdout, modules: readFileSync(log, 'utf8').split('\n') };
  };
  const args = ['--all', '--source', box.source, '--targets', box.targets, '--out', box.out, '--cache', box.cache];
  const heavy = (modules: string[]) => modules.filter((url) => url.endsWith('/compiler/pipeline.ts') || url.includes('/node_modules/yaml/') || url.includes('/node_modules/diff/'));
  assert.ok(heavy(resolvedBy(args).modules).length > 0, 'a first build loads the stages');
  const unchanged = resolvedBy(args);
  assert.is(writtenOf(unchanged.out), 0, unchanged.out);
  assert.equal(heavy(unchanged.modules), [], 'nothing changed: no stage, no YAML parser');
  writeFileSync(path.join(box.source, 'gsd-core/references/notes.md'), '# Notes\n\nEdited.\n');
  const edited = resolvedBy(args);
  assert.ok(writtenOf(edited.out) > 0, edited.out);
  assert.ok(heavy(edited.modules).length > 0, 'an edit loads them');
  // A check: its first run compares (and records the pass), the next one replays it.
  const golden = path.join(dir, 'golden');
  const check = ['check', '--golden', golden, '--source', box.source, '--targets', box.targets, '--cache', box.cache];
  resolvedBy([...check, '--update']);
  // A pass is recorded only over goldens settled since they were written.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SETTLED_MS + 200);
  assert.ok(heavy(resolvedBy(check).modules).length > 0, 'a first check loads the stages');
  const replayed = resolvedBy(check);
  assert.match(replayed.out, /golden check passed/);
  assert.equal(heavy(replayed.modules), [], 'a pass replayed: no stage, no parser, no diff');
  rmSync(dir, { recursive: true, force: true });
});

incremental('should hash a string part as its UTF-8 bytes, lone surrogates included, as a buffer of them hashes', () => {
  for (const text of ['', 'abc', 'ünïcødé 😀', '\ud800x', 'x\udc00', '\ud83d', `${'a'.repeat(70_000)}\ud800`]) {
    assert.is(hashParts([text, 'next']), hashParts([Buffer.from(text, 'utf8'), Buffer.from('next')]), JSON.stringify(text.slice(0, 12)));
  }
});

incremental('should skip normalizing only the paths path.posix.normalize returns unchanged', () => {
  const segments = ['a', 'b', '.', '..', '', 'c.d', '.x', 'x.', '..y'];
  let tried = 0;
  const visit = (file: string, depth: number) => {
    tried += 1;
    assert.is(normalizedPath(file), path.posix.normalize(file), JSON.stringify(file));
    if (depth < 4) for (const segment of segments) for (const separator of ['/', '']) visit(`${file}${separator}${segment}`, depth + 1);
  };
  visit('', 0);
  visit('/', 0);
  assert.ok(tried > 200_000, String(tried));
});

incremental('should keep the cache where --cache, else $GSD_BUILD_CACHE, else $XDG_CACHE_HOME/gsd-build, else ~/.cache/gsd-build says', () => {
  assert.is(defaultCacheDir({ GSD_BUILD_CACHE: 'rel/cache', XDG_CACHE_HOME: '/xdg' }), path.resolve('rel/cache'));
  assert.is(defaultCacheDir({ XDG_CACHE_HOME: '/xdg' }), '/xdg/gsd-build');
  assert.is(defaultCacheDir({ XDG_CACHE_HOME: '' }), path.join(os.homedir(), '.cache', 'gsd-build'));
  // As the CLI runs: no --cache, a home of its own.
  const box = sandbox();
  const home = temporaryDir('cache-home');
  const xdg = temporaryDir('cache-xdg');
  const build = (env: Record<string, string>, ...extra: string[]) => runCli(['--target', 'claude', '--source', box.source, '--targets', box.targets, '--out', box.out, ...extra], { env: { HOME: home, GSD_BUILD_CACHE: '', XDG_CACHE_HOME: '', ...env } });
  let run = build({ XDG_CACHE_HOME: xdg });
  assert.is(run.status, 0, run.stderr);
  assert.ok(readdirSync(path.join(xdg, 'gsd-build')).length > 0, 'the cache under $XDG_CACHE_HOME');
  assert.not.ok(existsSync(path.join(home, '.cache')));
  run = build({});
  assert.is(run.status, 0, run.stderr);
  assert.ok(readdirSync(path.join(home, '.cache', 'gsd-build')).length > 0, 'the cache under ~/.cache');
  const explicit = path.join(temporaryDir('cache-flag'), 'c');
  run = build({ XDG_CACHE_HOME: xdg, GSD_BUILD_CACHE: path.join(xdg, 'env') }, '--cache', explicit);
  assert.is(run.status, 0, run.stderr);
  assert.ok(readdirSync(explicit).length > 0, 'the cache under --cache');
  assert.not.ok(existsSync(path.join(xdg, 'env')));
  // --no-cache: every file written again (the output is already the build's), nothing stored anywhere.
  const none = temporaryDir('cache-none');
  run = build({ XDG_CACHE_HOME: none }, '--no-cache');
  assert.is(run.status, 0, run.stderr);
  const [, files, written] = /(\d+) files \((\d+) written\)/.exec(run.stdout)!;
  assert.ok(Number(files) > 0 && written === files, run.stdout);
  assert.equal(readdirSync(none), []);
  assert.not.ok(existsSync(path.join(home, '.cache', 'gsd-build', 'gsd-build')));
});

incremental.run();
