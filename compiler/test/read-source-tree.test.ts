// A resident process (watch) reads a source file again only when its stamp
// changed: unchanged files come back as the very bytes read last time, and a
// file that changed too recently to trust its stamp is always read again.
import { mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { keepCacheResident } from '../cache/build-cache.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
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
  const outside = await readSourceTree(root, 1);
  assert.equal([...byPath(outside).keys()], ['c.md', 'refs/a.md', 'refs/b.md']);
  assert.is.not(byPath(await readSourceTree(root, 1)).get('c.md'), byPath(outside).get('c.md'), 'without a resident cache every build reads every file');
  const cache = keepCacheResident();
  try {
    await pause(20);
    const first = byPath(await readSourceTree(root, 1));
    const second = byPath(await readSourceTree(root, 1));
    for (const file of first.keys()) assert.ok(second.get(file) === first.get(file), `${file}: the same bytes, not read again`);
    // Same size, mtime put back: the ctime still moves, so the stamp does.
    const a = path.join(root, 'refs/a.md');
    const before = statSync(a);
    writeFileSync(a, 'ALPHA\n');
    utimesSync(a, before.atime, before.mtime);
    rmSync(path.join(root, 'refs/b.md'));
    const third = byPath(await readSourceTree(root, 1));
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

tree.run();
