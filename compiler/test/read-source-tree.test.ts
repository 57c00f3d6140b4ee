// A resident process (watch) reads a source file again only when its stamp
// changed: unchanged files come back as the very bytes read last time, and a
// file that changed too recently to trust its stamp is always read again.
// With a cache, a settled file whose stamp is indexed is read only when its
// bytes are asked for, and only if they are still the indexed digest's.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { keepCacheResident } from '../cache/build-cache.ts';
import { readSourceTree, sourceDigest, sourceFacts } from '../load/read-source-tree.ts';
import { SourceChangedError } from '../load/source-changed.ts';
import { suite, assert } from './harness.ts';
import { temporaryDir } from './fixture-support.ts';

const tree = suite('read source tree');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const byPath = (files: Awaited<ReturnType<typeof readSourceTree>>) => new Map(files.map((file) => [file.path, file.bytes]));

tree('should give a resident build the bytes it read last for a settled file whose stamp is unchanged, and read any other again', async () => {
  const root = temporaryDir('source-tree');
  mkdirSync(path.join(root, 'refs'), { recursive: true });
  writeFileSync(path.join(root, 'refs/a.md'), 'alpha\n');
  writeFileSync(path.join(root, 'refs/b.md'), 'bravo\n');
  writeFileSync(path.join(root, 'c.md'), 'charlie\n');
  const outside = await readSourceTree(root, { settledMs: 1 });
  assert.equal([...byPath(outside).keys()], ['c.md', 'refs/a.md', 'refs/b.md']);
  assert.is.not(byPath(await readSourceTree(root, { settledMs: 1 })).get('c.md'), byPath(outside).get('c.md'), 'without a resident cache every build reads every file');
  const cache = keepCacheResident();
  try {
    await pause(20);
    const first = byPath(await readSourceTree(root, { settledMs: 1 }));
    const second = byPath(await readSourceTree(root, { settledMs: 1 }));
    for (const file of first.keys()) assert.ok(second.get(file) === first.get(file), `${file}: the same bytes, not read again`);
    // Same size, mtime put back: the ctime still moves, so the stamp does.
    const a = path.join(root, 'refs/a.md');
    const before = statSync(a);
    writeFileSync(a, 'ALPHA\n');
    utimesSync(a, before.atime, before.mtime);
    rmSync(path.join(root, 'refs/b.md'));
    const third = byPath(await readSourceTree(root, { settledMs: 1 }));
    assert.equal([...third.keys()], ['c.md', 'refs/a.md']);
    assert.is(Buffer.from(third.get('refs/a.md')!).toString(), 'ALPHA\n');
    assert.ok(third.get('c.md') === first.get('c.md'));
    // Just changed: its stamp is not trusted until it has settled (the default, seconds), so it is read each time.
    writeFileSync(path.join(root, 'c.md'), 'charlie, recently\n');
    const recent = byPath(await readSourceTree(root));
    const again = byPath(await readSourceTree(root));
    assert.is(Buffer.from(again.get('c.md')!).toString(), 'charlie, recently\n');
    assert.ok(again.get('c.md') !== recent.get('c.md'), 'a file changed within the settling time is read again');
  } finally {
    cache.close();
  }
  rmSync(root, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const find = (files: Awaited<ReturnType<typeof readSourceTree>>, name: string) => files.find((file) => file.path === name)!;

tree("should give a settled file's digest and size from the stamp index, and read the file only when its bytes are asked for", async () => {
  const root = temporaryDir('source-stamps');
  const cacheDir = temporaryDir('source-stamps-cache');
  writeFileSync(path.join(root, 'a.md'), 'alpha\n');
  writeFileSync(path.join(root, 'b.md'), 'bravo\n');
  writeFileSync(path.join(root, 'c.md'), 'charlie\n');
  // First listing: every file read, its digest indexed once settled (1 ms here).
  await pause(20);
  const first = await readSourceTree(root, { cacheDir, settledMs: 1 });
  assert.is(Buffer.from(find(first, 'a.md').bytes).toString(), 'alpha\n');
  await pause(20);
  const second = await readSourceTree(root, { cacheDir, settledMs: 1 });
  assert.is(sourceDigest(find(second, 'a.md')), sha256('alpha\n'));
  assert.equal(sourceFacts(find(second, 'b.md')), { sha256: sha256('bravo\n'), bytes: 6 });
  // Not read by the listing: gone from the disk since, its bytes cannot be had, with the reason said.
  rmSync(path.join(root, 'a.md'));
  assert.throws(() => find(second, 'a.md').bytes, (error: Error) => error instanceof SourceChangedError && error.message.startsWith(`${path.join(root, 'a.md')}: cannot be read since this build listed it`));
  // Saved again after the listing: its new bytes are refused, as the build took the digest of the old ones.
  writeFileSync(path.join(root, 'b.md'), 'BRAVO\n');
  assert.throws(() => find(second, 'b.md').bytes, (error: Error) => error instanceof SourceChangedError && error.message.startsWith(`${path.join(root, 'b.md')}: changed since this build took its digest`));
  // Read when asked for, and the same bytes each time.
  const c = find(second, 'c.md');
  assert.is(Buffer.from(c.bytes).toString(), 'charlie\n');
  assert.ok(c.bytes === c.bytes);
  // The changed file's new stamp is not the indexed one: read by the next listing, its new digest indexed.
  const third = await readSourceTree(root, { cacheDir, settledMs: 1 });
  assert.equal(third.map((file) => file.path), ['b.md', 'c.md']);
  assert.is(sourceDigest(find(third, 'b.md')), sha256('BRAVO\n'));
  // Without a cache, every file is read by the listing.
  const uncached = await readSourceTree(root);
  rmSync(path.join(root, 'c.md'));
  assert.is(Buffer.from(find(uncached, 'c.md').bytes).toString(), 'charlie\n');
  rmSync(root, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

tree('should trust no digest from a corrupt stamp index, nor from one whose stamp is not settled', async () => {
  const root = temporaryDir('source-stamps');
  const cacheDir = temporaryDir('source-stamps-cache');
  writeFileSync(path.join(root, 'a.md'), 'alpha\n');
  await pause(20);
  await readSourceTree(root, { cacheDir, settledMs: 1 });
  for (const entry of readdirSync(cacheDir)) writeFileSync(path.join(cacheDir, entry), 'not an index');
  const afterCorruption = await readSourceTree(root, { cacheDir, settledMs: 1 });
  rmSync(path.join(root, 'a.md'));
  assert.is(Buffer.from(find(afterCorruption, 'a.md').bytes).toString(), 'alpha\n', 'read by the listing: the corrupt index gave nothing');
  // Changed within the settling time (the default, seconds): read by every listing, never indexed.
  writeFileSync(path.join(root, 'b.md'), 'bravo\n');
  await readSourceTree(root, { cacheDir });
  const recent = await readSourceTree(root, { cacheDir });
  rmSync(path.join(root, 'b.md'));
  assert.is(Buffer.from(find(recent, 'b.md').bytes).toString(), 'bravo\n', 'read by the listing: a file changed this recently is not taken on its stamp');
  rmSync(root, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

tree.run();
