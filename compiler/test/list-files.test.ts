// The folder walk of a source tree and the targets folder (util/list-files.ts):
// the files fast-glob listed before it (the same options), in compareText order,
// and an unreadable folder below the root is an error, never a shorter list.
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fg from 'fast-glob';
import { compareText } from '../diagnostics.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { readTree } from '../cache/build-cache.ts';
import { listFiles } from '../util/list-files.ts';
import { readGoldenFiles } from '../golden/compare-golden.ts';
import { temporaryDir } from './fixture-support.ts';
import { suite, assert } from './harness.ts';

const walk = suite('list files');

/** A tree with what a walk can get wrong: dot entries, node_modules at any depth, links, a fifo, names glob syntax reads, names whose order differs by byte and by folder. */
function awkwardTree(): string {
  const root = temporaryDir('list-files');
  const files = ['a/b/c.md', 'a-b.md', 'a/z.md', 'ab/x.md', '[x].md', '*star', 'x{1,2}.md', 'ü.md', 'Z.md', '.dotfile', '.hidden/f.md', 'sub/.git/HEAD', 'sub/ok.md', 'node_modules/p/i.js', 'deep/node_modules/q.js', 'deep/kept.md', 'file-named/node_modules'];
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), file);
  }
  symlinkSync('a/b/c.md', path.join(root, 'link.md'));
  symlinkSync('a', path.join(root, 'linked-folder'));
  symlinkSync('missing', path.join(root, 'broken'));
  execFileSync('mkfifo', [path.join(root, 'fifo')]);
  return root;
}

walk('should list a source tree as fast-glob did, sorted by compareText', async () => {
  const root = awkwardTree();
  const expected = fg.sync('**/*', { cwd: root, onlyFiles: true, dot: false, followSymbolicLinks: false, ignore: ['**/node_modules/**'] }).sort(compareText);
  const listed = (await readSourceTree(root)).map((file) => file.path);
  const others: string[] = [];
  assert.equal(listFiles(root, () => false, others).length, 17, 'every regular file, dot entries and node_modules too');
  assert.equal(others.sort(compareText), ['broken', 'fifo', 'link.md', 'linked-folder'], 'what is neither, when asked for');
  assert.equal(listed, expected);
  assert.equal(listed, ['*star', 'Z.md', '[x].md', 'a-b.md', 'a/b/c.md', 'a/z.md', 'ab/x.md', 'deep/kept.md', 'sub/ok.md', 'x{1,2}.md', 'ü.md']);
  // The targets folder's read keeps dot entries and node_modules, and never follows a link either.
  const tree = await readTree(root);
  const names = tree.filter((part): part is string => typeof part === 'string');
  assert.equal(names, fg.sync('**/*', { cwd: root, onlyFiles: true, dot: true, followSymbolicLinks: false }).sort(compareText));
  assert.equal(new TextDecoder().decode(tree[tree.indexOf('sub/.git/HEAD') + 1] as Uint8Array), 'sub/.git/HEAD');
});

walk('should read a golden tree as fast-glob listed it, a link to a file read through, and refuse any other entry without opening it', async () => {
  const root = temporaryDir('golden-read');
  for (const file of ['claude/global/a.md', 'claude/global/.hidden/b.md', 'codex/local/c.md']) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), file);
  }
  symlinkSync('a.md', path.join(root, 'claude/global/link.md'));
  const files = await readGoldenFiles(root);
  assert.equal([...files.keys()], fg.sync('**/*', { cwd: root, dot: true, onlyFiles: true }).sort(compareText));
  assert.is(new TextDecoder().decode(files.get('claude/global/link.md')), 'claude/global/a.md');
  assert.equal([...(await readGoldenFiles(path.join(root, 'missing'))).keys()], []);
  for (const [name, make, kind] of [['fifo', (at: string) => execFileSync('mkfifo', [at]), 'a FIFO'], ['linked-folder', (at: string) => symlinkSync('.', at), 'a link to a folder'], ['broken', (at: string) => symlinkSync('missing', at), 'a link to nothing']] as const) {
    const at = path.join(root, 'codex/local', name);
    make(at);
    let message = '';
    try {
      await readGoldenFiles(root);
    } catch (error) {
      message = (error as Error).message;
    }
    assert.is(message, `${at}:1:1: error golden-entry expected a file, a link to a file or a folder in the goldens, found ${kind}`, name);
    rmSync(at);
  }
});

walk('should list nothing for a root that is missing or a file, and refuse a folder below it that it cannot read', () => {
  const root = temporaryDir('list-files-edge');
  assert.equal(listFiles(path.join(root, 'missing')), []);
  writeFileSync(path.join(root, 'plain'), 'x');
  assert.equal(listFiles(path.join(root, 'plain')), []);
  // Folders nested deeper than a path may name (PATH_MAX, 4,096 bytes), made by wrapping the chain in a new
  // parent 25 times, each call on a short path: reading the deepest fails (ENAMETOOLONG) for any user, root too.
  const tree = path.join(root, 'tree');
  mkdirSync(tree);
  writeFileSync(path.join(tree, 'deep.md'), 'x');
  for (let level = 0; level < 25; level += 1) {
    mkdirSync(path.join(root, 'wrap'));
    renameSync(tree, path.join(root, 'wrap', 'd'.repeat(200)));
    renameSync(path.join(root, 'wrap'), tree);
  }
  writeFileSync(path.join(tree, 'top.md'), 'x');
  let thrown: NodeJS.ErrnoException | null = null;
  try {
    listFiles(path.join(root, 'tree'));
  } catch (error) {
    thrown = error as NodeJS.ErrnoException;
  }
  assert.equal(thrown?.code, 'ENAMETOOLONG');
});

walk.run();
