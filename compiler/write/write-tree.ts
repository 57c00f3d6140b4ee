// write: virtual trees onto disk. Each tree is written in full to a sibling
// temporary folder, then swapped into place, so a failure leaves the old
// output as it was. Modes are set explicitly: the umask never shows through.
import { chmod, link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { digestOf } from '../emit/bundle-manifest.ts';
import type { TreeFile, VirtualTree } from '../emit/virtual-tree.ts';

const FILE_MODE = 0o644;
const EXECUTABLE_MODE = 0o755;
const DIRECTORY_MODE = 0o755;
/** Read once (process.umask() with no argument only reads it). */
const UMASK = process.umask();

/** Files written or checked at once: enough to keep the disk busy, few enough to bound open handles. */
const CONCURRENCY = 64;

/** Runs `task` over `items` with at most CONCURRENCY in flight. */
export async function forEachBounded<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

/** Writes each tree to `<outRoot>/<key>`, replacing what was there. */
export async function writeTrees(outRoot: string, trees: ReadonlyMap<string, VirtualTree>): Promise<void> {
  const staged: { temporary: string; final: string; tree: VirtualTree }[] = [];
  try {
    for (const [key, tree] of trees) {
      const final = path.join(outRoot, key);
      const temporary = path.join(path.dirname(final), `.${path.basename(final)}.tmp-${process.pid}`);
      await rm(temporary, { recursive: true, force: true });
      staged.push({ temporary, final, tree });
    }
    // Every tree's files through one bounded queue: the disk stays busy across trees, open handles stay few.
    await writeFiles(staged.map(({ temporary, tree }) => ({ directory: temporary, tree })));
    for (const { temporary, final } of staged) {
      await rm(final, { recursive: true, force: true });
      await rename(temporary, final);
    }
  } finally {
    await Promise.all(staged.map(({ temporary }) => rm(temporary, { recursive: true, force: true })));
  }
}

/** Writes one tree into `directory` (which should not exist yet). */
export async function writeTree(directory: string, tree: VirtualTree): Promise<void> {
  await writeFiles([{ directory, tree }]);
}

/**
 * Folders first, in order; then the files, at most CONCURRENCY at once (each
 * one is independent). A file with the same bytes and mode as one written
 * before it in this call is a hard link to that one: the 36 bundles of a
 * corpus share two thirds of their bytes, and the disk then takes each once.
 * Every later update replaces a file by renaming a new one over it, so a link
 * is never written through; where the file system has no hard links, the copy
 * is written.
 */
async function writeFiles(trees: readonly { directory: string; tree: VirtualTree }[]): Promise<void> {
  const folders = new Set<string>();
  const firsts: { target: string; file: TreeFile }[] = [];
  const copies: { target: string; file: TreeFile; first: string }[] = [];
  const written = new Map<string, string>();
  for (const { directory, tree } of trees) {
    folders.add(directory);
    for (const [relative, file] of tree) {
      const target = path.join(directory, relative);
      folders.add(path.dirname(target));
      const content = `${digestOf(file)} ${modeOf(file)}`;
      const first = written.get(content);
      if (first === undefined) {
        written.set(content, target);
        firsts.push({ target, file });
      } else copies.push({ target, file, first });
    }
  }
  for (const folder of [...folders].sort()) await makeDirectory(folder);
  await forEachBounded(firsts, writeOne);
  await forEachBounded(copies, async (copy) => {
    try {
      await link(copy.first, copy.target);
    } catch {
      await writeOne(copy);
    }
  });
}

const modeOf = (file: TreeFile): number => (file.executable ? EXECUTABLE_MODE : FILE_MODE);

async function writeOne({ target, file }: { target: string; file: TreeFile }): Promise<void> {
  const mode = modeOf(file);
  await writeFile(target, file.contents, { mode });
  // A new file gets mode & ~umask; chmod only when the umask took bits away.
  if ((mode & UMASK) !== 0) await chmod(target, mode);
}

/** mkdir -p, then chmod exactly the levels it created (mkdir's mode passes through the umask). */
export async function makeDirectory(directory: string): Promise<void> {
  const first = await mkdir(directory, { recursive: true });
  if (!first) return;
  for (let dir = directory; ; dir = path.dirname(dir)) {
    await chmod(dir, DIRECTORY_MODE);
    if (dir === first || path.dirname(dir) === dir) break;
  }
}
