// An incremental build trusts a bundle folder only while it is exactly what
// the last build recorded (write/output-state.ts bundlesOnDisk): any change
// by hand or by another program there makes the next build write it whole.
import { appendFileSync, chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundlesOnDisk, DiskChecker, recordsOf, writeBundles, type BundleRecord } from '../write/output-state.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { suite, assert } from './harness.ts';
import { snapshotTree, temporaryDir } from './fixture-support.ts';
import { treeWriter } from '../write/write-tree.ts';
import { REPO_ROOT } from '../pipeline.ts';
import { checkClaimed, diskCheckThread, dropSpareDiskCheckThread, prestartDiskCheckThread, type DiskCheckJob } from '../write/disk-check-thread.ts';
import { once } from 'node:events';

const state = suite('output state');

const TREE: VirtualTree = new Map([
  ['README.txt', { contents: 'read me\n' }],
  ['bin/tool.cjs', { contents: '#!/usr/bin/env node\n', executable: true }],
  ['skills/gsd-a/SKILL.md', { contents: '# A\n' }],
  ['skills/gsd-b/SKILL.md', { contents: '# B\n' }],
]);

/** A fresh output folder with the tree written as bundle t/global, and its record. */
async function written(): Promise<{ out: string; root: string; record: BundleRecord }> {
  const out = temporaryDir('output-state');
  const { records } = await writeBundles(out, new Map([['t/global', TREE]]), {});
  return { out, root: path.join(out, 't/global'), record: records['t/global']! };
}

const CHANGES: [string, (root: string) => void][] = [
  ['bytes changed', (root) => writeFileSync(path.join(root, 'skills/gsd-a/SKILL.md'), '# A, edited\n')],
  ['same bytes, new mtime', (root) => utimesSync(path.join(root, 'README.txt'), 1, 1)],
  ['mode changed', (root) => chmodSync(path.join(root, 'bin/tool.cjs'), 0o644)],
  ['file added', (root) => writeFileSync(path.join(root, 'skills/extra.md'), 'x')],
  ['empty folder added', (root) => mkdirSync(path.join(root, 'skills/gsd-c'))],
  ['file removed', (root) => rmSync(path.join(root, 'skills/gsd-b/SKILL.md'))],
  ['folder removed', (root) => rmSync(path.join(root, 'skills/gsd-b'), { recursive: true })],
  ['file replaced by a folder', (root) => (rmSync(path.join(root, 'README.txt')), mkdirSync(path.join(root, 'README.txt')))],
  ['file replaced by a symlink to the same bytes', (root) => (renameSync(path.join(root, 'README.txt'), path.join(root, '..', 'moved.txt')), symlinkSync(path.join(root, '..', 'moved.txt'), path.join(root, 'README.txt')))],
  ['folder replaced by a symlink', (root) => (renameSync(path.join(root, 'skills'), path.join(root, '..', 'skills')), symlinkSync(path.join(root, '..', 'skills'), path.join(root, 'skills')))],
  ['bundle folder removed', (root) => rmSync(root, { recursive: true })],
];

state('should trust an untouched bundle and no bundle changed in any way', async () => {
  const intact = await written();
  assert.equal([...(await bundlesOnDisk(intact.out, { 't/global': intact.record }))], ['t/global']);
  rmSync(intact.out, { recursive: true, force: true });
  for (const [what, change] of CHANGES) {
    const { out, root, record } = await written();
    change(root);
    assert.equal([...(await bundlesOnDisk(out, { 't/global': record }))], [], what);
    rmSync(out, { recursive: true, force: true });
  }
});

state('should not trust a record that names a file the folder lacks', async () => {
  const { out, record } = await written();
  const forged: BundleRecord = { ...record, 'skills/gsd-a/more.md': record['skills/gsd-a/SKILL.md']! };
  assert.equal([...(await bundlesOnDisk(out, { 't/global': forged, 'other/local': record }))], []);
  rmSync(out, { recursive: true, force: true });
});

state('should link a file that two bundles share, and never write through the link', async () => {
  const out = temporaryDir('output-state');
  const other: VirtualTree = new Map([...TREE, ['skills/gsd-a/SKILL.md', { contents: '# A, other\n' }]]);
  const first = await writeBundles(out, new Map([['t/global', TREE], ['t/local', other]]), {});
  const at = (key: string, file: string) => path.join(out, key, file);
  const inode = (key: string, file: string) => lstatSync(at(key, file)).ino;
  assert.equal(inode('t/global', 'README.txt'), inode('t/local', 'README.txt'));
  assert.equal(lstatSync(at('t/local', 'bin/tool.cjs')).mode & 0o777, 0o755);
  assert.ok(inode('t/global', 'skills/gsd-a/SKILL.md') !== inode('t/local', 'skills/gsd-a/SKILL.md'), 'different bytes, different files');
  // An update of one bundle replaces its file; the other bundle keeps its bytes.
  const edited: VirtualTree = new Map([...TREE, ['README.txt', { contents: 'read me, edited\n' }]]);
  await writeBundles(out, new Map([['t/global', edited]]), { 't/global': first.records['t/global']! });
  assert.equal(readFileSync(at('t/global', 'README.txt'), 'utf8'), 'read me, edited\n');
  assert.equal(readFileSync(at('t/local', 'README.txt'), 'utf8'), 'read me\n');
  assert.equal([...(await bundlesOnDisk(out, { 't/local': first.records['t/local']! }))], ['t/local']);
  // A hand edit through one link shows in every bundle that shares the file: none of them is trusted.
  const again = await writeBundles(out, new Map([['a/global', TREE], ['a/local', TREE]]), {});
  appendFileSync(at('a/local', 'skills/gsd-b/SKILL.md'), 'by hand\n');
  assert.equal([...(await bundlesOnDisk(out, again.records))], []);
  rmSync(out, { recursive: true, force: true });
});


state('should fail whole when one writer thread fails its part, and leave the output as it was', async () => {
  const { out } = await written();
  const before = snapshotTree(out);
  // 'n/x' is a file in one tree and a folder in another's paths: whichever thread writes 'n/x/…', the other's file is in
  // its way (or it is in the other's). Twenty such pairs, so the failing parts fall to both threads.
  const clashing: VirtualTree = new Map();
  for (let index = 0; index < 20; index += 1) {
    clashing.set(`n${index}/x`, { contents: `file ${index}\n` });
    clashing.set(`n${index}/x/inner.md`, { contents: `inner ${index}\n` });
  }
  const writer = treeWriter(out, 2);
  writer.add('t/global', new Map([...TREE, ['README.txt', { contents: 'read me, edited\n' }]]));
  writer.add('c/local', clashing);
  let failed = '';
  await writer.finish().catch((error: Error) => (failed = error.message));
  assert.match(failed, /^cannot write .*c\/local: /);
  assert.equal(snapshotTree(out), before, 't/global keeps its old bytes, no .tmp folder is left');
  rmSync(out, { recursive: true, force: true });
});

state('should split trees between writer threads by their bytes: one file per content, the record as one thread makes it', async () => {
  // 60 contents, each in both trees at other paths and in another order, plus one a tree repeats: which thread writes a
  // file must follow its bytes, not its place, or a shared file is written twice (or linked to a file not yet written).
  const shared = Array.from({ length: 60 }, (_, index) => `shared text ${index}\n`);
  const first: VirtualTree = new Map(shared.map((text, index) => [`a/${String(index).padStart(2, '0')}.md`, { contents: text }]));
  first.set('a/again.md', { contents: shared[7]! });
  const second: VirtualTree = new Map(shared.map((_, index) => [`b/${index % 7}/${index}.md`, { contents: shared[59 - index]! }]));
  second.set('b/run.sh', { contents: shared[3]!, executable: true });
  const records = async (threads: number) => {
    const out = temporaryDir('output-state');
    const writer = treeWriter(out, threads);
    writer.add('t/global', first);
    writer.add('t/local', second);
    const written = await writer.finish();
    const inodes = new Set<number>();
    for (const [key, tree] of [['t/global', first], ['t/local', second]] as const) {
      for (const [file, entry] of tree) {
        const at = path.join(out, key, file);
        assert.equal(readFileSync(at, 'utf8'), entry.contents, `${threads} threads: ${key}/${file}`);
        if (!entry.executable) inodes.add(lstatSync(at).ino);
      }
    }
    assert.equal(inodes.size, shared.length, `${threads} threads: each shared text is one file on disk`);
    assert.equal(lstatSync(path.join(out, 't/local/b/run.sh')).mode & 0o777, 0o755, 'the same bytes with another mode are a file of their own');
    rmSync(out, { recursive: true, force: true });
    // Sizes and modes, in tree order (each mtime is the moment its file was written).
    return Object.fromEntries(Object.entries(written).map(([key, record]) => [key, Object.entries(record).map(([file, [sha256, size, mode]]) => [file, sha256, size, mode])]));
  };
  const one = await records(1);
  assert.equal(one['t/global']!.map(([file]) => file), [...first.keys()]);
  for (const threads of [2, 3]) assert.equal(await records(threads), one, `${threads} threads`);
});
state('should write every text as its UTF-8 bytes, however many bytes a character takes', async () => {
  // The writer thread gets each tree's new texts encoded into one buffer: each file's slice must be exactly its own bytes.
  const texts: [string, string][] = [
    ['empty.md', ''],
    ['ascii.md', 'plain\n'],
    ['two-byte.md', 'café, naïve — ½\n'],
    ['astral.md', '🚀 launch 𝔊\n'],
    ['lone-surrogate.md', 'broken \ud800 pair\n'],
    ['after.md', 'the file after the odd ones\n'],
  ];
  const tree: VirtualTree = new Map(texts.map(([file, text]) => [file, { contents: text }]));
  tree.set('same-text-executable.sh', { contents: 'café, naïve — ½\n', executable: true });
  tree.set('bytes.bin', { contents: new Uint8Array([0, 255, 10]) });
  const out = temporaryDir('output-state');
  const { records } = await writeBundles(out, new Map([['t/global', tree], ['t/local', tree]]), {});
  for (const key of ['t/global', 't/local']) {
    for (const [file, entry] of tree) {
      const expected = typeof entry.contents === 'string' ? Buffer.from(entry.contents, 'utf8') : Buffer.from(entry.contents);
      assert.equal(readFileSync(path.join(out, key, file)).equals(expected), true, `${key}/${file}`);
      assert.equal(records[key]![file]![1], expected.length, `${key}/${file} size in the record`);
    }
  }
  rmSync(out, { recursive: true, force: true });
});

state('should swap nothing in and leave no temporary folder when writing fails or is abandoned', async () => {
  const { out } = await written();
  writeFileSync(path.join(out, 'x'), 'a file where a target folder would go');
  const before = snapshotTree(out);
  const edited: VirtualTree = new Map([...TREE, ['README.txt', { contents: 'read me, edited\n' }]]);
  let failed = '';
  await writeBundles(out, new Map([['t/global', edited], ['x/local', TREE]]), {}).catch((error: Error) => (failed = error.message));
  assert.match(failed, /^cannot write .*x\/local: /);
  assert.equal(snapshotTree(out), before, 't/global keeps its old bytes, no .tmp folder is left');
  const abandoned = treeWriter(out);
  abandoned.add('t/global', edited);
  abandoned.add('t/local', TREE);
  await abandoned.abandon();
  assert.equal(snapshotTree(out), before);
  rmSync(out, { recursive: true, force: true });
});

state('should find every change with a kept checker, which lists a folder again only when its settled stamp changed', async () => {
  for (const [what, change] of CHANGES) {
    const { out, root, record } = await written();
    // Settled at once (0 ms), so the second check takes each folder's entries from its stamp.
    const checker = new DiskChecker({ keepFolderStamps: true, settledMs: 0 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal([...(await checker.check(out, { 't/global': record }))], ['t/global'], what);
      assert.equal([...(await checker.check(out, { 't/global': record }))], ['t/global'], `${what}: again, from the stamps`);
      change(root);
      // Settled too: a folder's new stamp must not vouch for entries a check found wrong.
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal([...(await checker.check(out, { 't/global': record }))], [], what);
      assert.equal([...(await checker.check(out, { 't/global': record }))], [], `${what}: again`);
    } finally {
      await checker.stop();
    }
  }
});

/** Changes to a file in place: the inode every link of it shares, so every bundle holding a link has changed. */
const SHARED_CHANGES: [string, (file: string) => void][] = [
  ['bytes appended', (file) => appendFileSync(file, 'more\n')],
  ['same bytes, new mtime', (file) => utimesSync(file, 1, 1)],
  ['mode changed', (file) => chmodSync(file, 0o600)],
];

state('should find a change to a file that bundles share as links, with a kept checker that reads each file once a check', async () => {
  const keys = ['t/global', 't/local', 'u/global'];
  for (const [what, change] of [...SHARED_CHANGES, ['replaced in one bundle', (file: string) => (rmSync(file), writeFileSync(file, '# A, by hand\n'))] as const]) {
    const out = temporaryDir('output-state');
    const { records } = await writeBundles(out, new Map(keys.map((key) => [key, TREE])), {});
    const shared = (key: string) => path.join(out, key, 'skills/gsd-a/SKILL.md');
    assert.equal(new Set(keys.map((key) => lstatSync(shared(key)).ino)).size, 1, 'one file, linked into every bundle');
    // Settled at once: the second check takes each folder's entries from its stamp, and each file's inode from the first.
    const checker = new DiskChecker({ keepFolderStamps: true, settledMs: 0, threads: 2 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const round of ['first', 'second', 'third']) assert.equal([...(await checker.check(out, records))].sort(), keys, `${what}: ${round} check`);
      change(shared('t/local'));
      // The change shows through whichever link a check reads the file by; a replaced link only in its own bundle.
      const expected = what === 'replaced in one bundle' ? ['t/global', 'u/global'] : [];
      assert.equal([...(await checker.check(out, records))].sort(), expected, what);
      assert.equal([...(await checker.check(out, records))].sort(), expected, `${what}: again`);
    } finally {
      await checker.stop();
    }
    rmSync(out, { recursive: true, force: true });
  }
});

state('should leave no descriptor open after an update in place, of the files it replaced or wrote', async () => {
  if (!existsSync('/proc/self/fd')) return;
  const { out, record } = await written();
  const open = () => readdirSync('/proc/self/fd').length;
  const before = open();
  let records = { 't/global': record };
  for (let round = 0; round < 5; round += 1) {
    const edited: VirtualTree = new Map([...TREE, ['skills/gsd-a/SKILL.md', { contents: `# A, round ${round}\n` }], ['README.txt', { contents: `read me, round ${round}\n` }]]);
    const result = await writeBundles(out, new Map([['t/global', edited]]), records);
    assert.equal(Object.keys(result.changes['t/global'] ?? {}).sort(), ['README.txt', 'skills/gsd-a/SKILL.md'], 'updated in place');
    records = { 't/global': result.records['t/global']! };
  }
  // The replaced files' descriptors close on libuv's threads: give them a moment.
  for (let waited = 0; waited < 100 && open() > before; waited += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.is(open(), before);
  assert.is(readFileSync(path.join(out, 't/global/README.txt'), 'utf8'), 'read me, round 4\n');
  rmSync(out, { recursive: true, force: true });
});

state('should never write through a link put at the name of the temporary file of an update', async () => {
  for (const kind of ['hard link', 'symbolic link'] as const) {
    const { out, record } = await written();
    const victim = path.join(out, 'victim.txt');
    writeFileSync(victim, 'not from the build\n');
    const temporary = path.join(out, 't/global', `.README.txt.tmp-${process.pid}`);
    if (kind === 'hard link') linkSync(victim, temporary);
    else symlinkSync(victim, temporary);
    const edited: VirtualTree = new Map([...TREE, ['README.txt', { contents: 'read me, edited\n' }]]);
    const result = await writeBundles(out, new Map([['t/global', edited]]), { 't/global': record });
    assert.ok(result.changes['t/global'], `${kind}: updated in place`);
    assert.is(readFileSync(victim, 'utf8'), 'not from the build\n', kind);
    assert.is(readFileSync(path.join(out, 't/global/README.txt'), 'utf8'), 'read me, edited\n', kind);
    assert.not.ok(existsSync(temporary), `${kind}: no temporary left`);
    rmSync(out, { recursive: true, force: true });
  }
});

state('should replace, not wait on, a FIFO put where an update in place writes a file', async () => {
  if (process.platform === 'win32') return;
  const { out, record } = await written();
  const file = path.join(out, 't/global/README.txt');
  rmSync(file);
  execFileSync('mkfifo', [file]);
  // In a child, with a time limit: an update that opened the FIFO to read and waited would never end.
  const script = `import { writeBundles } from ${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'compiler/write/output-state.ts')).href)};
const record = ${JSON.stringify(record)};
const tree = new Map(${JSON.stringify([...TREE])}.map(([file, entry]) => [file, file === 'README.txt' ? { contents: 'read me, after the FIFO\\n' } : entry]));
await writeBundles(${JSON.stringify(out)}, new Map([['t/global', tree]]), { 't/global': record });`;
  const run = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(REPO_ROOT, 'compiler/bin/register.mjs')).href, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.is(run.signal, null, 'the update finished');
  assert.is(run.status, 0, run.stderr);
  assert.ok(lstatSync(file).isFile());
  assert.is(readFileSync(file, 'utf8'), 'read me, after the FIFO\n');
  rmSync(out, { recursive: true, force: true });
});

/**
 * TREE written as each of `keys`, and their records. Bundles share a file as
 * links of one inode: each gets its own README.txt, so a change stays in its bundle.
 */
async function bundlesApart(out: string, keys: readonly string[]): Promise<Record<string, BundleRecord>> {
  const { records } = await writeBundles(out, new Map(keys.map((key) => [key, TREE])), {});
  for (const key of keys) {
    const file = path.join(out, key, 'README.txt');
    const text = readFileSync(file, 'utf8');
    rmSync(file);
    writeFileSync(file, text);
    const stats = lstatSync(file);
    records[key]!['README.txt'] = [records[key]!['README.txt']![0], stats.size, stats.mode & 0o777, stats.mtimeMs];
  }
  return records;
}

state('should check each bundle on one of its threads, each answer its own, and patch the thread that holds it', async () => {
  const out = temporaryDir('output-state');
  const keys = ['a/global', 'a/local', 'b/global', 'b/local', 'c/global'];
  const records = await bundlesApart(out, keys);
  const checker = new DiskChecker({ keepFolderStamps: true, settledMs: 0, threads: 3 });
  try {
    const first = checker.checkEach(out, recordsOf(records));
    assert.equal([...(await first.all)].sort(), keys);
    for (const key of keys) assert.is(await first.each.get(key), true, key);
    // A change in two bundles, on different threads: only they are found changed, by their own answers.
    appendFileSync(path.join(out, 'a/local/README.txt'), 'by hand\n');
    rmSync(path.join(out, 'c/global/skills/gsd-b/SKILL.md'));
    const second = checker.checkEach(out, recordsOf(records));
    assert.equal([...(await second.all)].sort(), ['a/global', 'b/global', 'b/local']);
    for (const key of keys) assert.is(await second.each.get(key), !['a/local', 'c/global'].includes(key), key);
    // An update in place, sent as a patch to the thread that holds the bundle (not the first): the next check finds it as recorded.
    const file = path.join(out, 'b/global/skills/gsd-a/SKILL.md');
    rmSync(file);
    writeFileSync(file, '# A, updated\n');
    const stats = lstatSync(file);
    const updated: BundleRecord = { ...records['b/global']!, 'skills/gsd-a/SKILL.md': ['digest', stats.size, stats.mode & 0o777, stats.mtimeMs] };
    checker.updated('b/global', records['b/global']!, updated, { 'skills/gsd-a/SKILL.md': updated['skills/gsd-a/SKILL.md']! });
    const third = await checker.check(out, { ...records, 'b/global': updated });
    assert.equal([...third].sort(), ['a/global', 'b/global', 'b/local']);
  } finally {
    await checker.stop();
  }
  rmSync(out, { recursive: true, force: true });
});

/** A job of the disk check for a record, as DiskChecker sends it. */
const jobOf = (key: string, record: BundleRecord): DiskCheckJob => ({ key, ...recordsOf({ [key]: record }).listing(key) });
const freshClaims = () => new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));

state('should find every change on the calling thread as on the check thread (checkClaimed)', async () => {
  const answers = (out: string, jobs: DiskCheckJob[], claims = freshClaims()) => {
    const got: [string, boolean][] = [];
    checkClaimed(out, jobs, claims, (key, ok) => got.push([key, ok]));
    return got;
  };
  const intact = await written();
  assert.equal(answers(intact.out, [jobOf('t/global', intact.record)]), [['t/global', true]]);
  // A listing that does not read as one trusts nothing.
  assert.equal(answers(intact.out, [{ key: 't/global', listing: '{"not":"a listing"}' }]), [['t/global', false]]);
  rmSync(intact.out, { recursive: true, force: true });
  for (const [what, change] of CHANGES) {
    const { out, root, record } = await written();
    change(root);
    assert.equal(answers(out, [jobOf('t/global', record)]), [['t/global', false]], what);
    rmSync(out, { recursive: true, force: true });
  }
});

state('should share one check between its thread and the calling thread, each bundle answered once and rightly', async () => {
  const out = temporaryDir('output-state');
  const keys = ['a/global', 'a/local', 'b/global', 'b/local', 'c/global', 'c/local'];
  const records = await bundlesApart(out, keys);
  appendFileSync(path.join(out, 'b/local/README.txt'), 'by hand\n');
  rmSync(path.join(out, 'c/global/skills/gsd-a/SKILL.md'));
  const expected = keys.filter((key) => key !== 'b/local' && key !== 'c/global');
  // The places already taken (by the thread) are not the calling thread's: it answers only the rest.
  const claims = freshClaims();
  claims[0] = 2;
  const got: string[] = [];
  checkClaimed(out, keys.map((key) => jobOf(key, records[key]!)), claims, (key, ok) => got.push(`${key} ${ok}`));
  assert.equal(got, ['b/global true', 'b/local false', 'c/global false', 'c/local true']);
  assert.ok(claims[0]! >= keys.length, 'every place taken');
  // A check assisted at once (its thread still starting: the calling thread takes most or all), and one left to its thread.
  for (const assisted of [true, false]) {
    const checker = new DiskChecker();
    try {
      const check = checker.checkEach(out, recordsOf(records));
      if (assisted) check.assist();
      assert.equal([...(await check.all)].sort(), expected, `assisted: ${assisted}`);
      for (const key of keys) assert.is(await check.each.get(key), expected.includes(key), `${key}, assisted: ${assisted}`);
    } finally {
      await checker.stop();
    }
  }
  rmSync(out, { recursive: true, force: true });
});

state('should hand the thread started ahead to the first check only, and stop it when no check takes it', async () => {
  const ahead = prestartDiskCheckThread();
  assert.is(prestartDiskCheckThread(), ahead, 'one thread ahead at a time');
  assert.is(diskCheckThread(), ahead);
  const other = diskCheckThread();
  assert.ok(other !== ahead, 'a new thread once the one ahead is taken');
  await Promise.all([ahead.terminate(), other.terminate()]);
  // Dropped: it exits.
  const dropped = prestartDiskCheckThread();
  const exited = once(dropped, 'exit');
  dropSpareDiskCheckThread();
  await exited;
  const after = diskCheckThread();
  assert.ok(after !== dropped);
  await after.terminate();
  // One that exits before a check takes it is not handed out.
  const lost = prestartDiskCheckThread();
  await lost.terminate();
  await new Promise((resolve) => setImmediate(resolve));
  const taken = diskCheckThread();
  assert.ok(taken !== lost);
  await taken.terminate();
});

state.run();
