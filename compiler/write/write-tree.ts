// write: virtual trees onto disk. Each tree is written in full to a sibling
// temporary folder, then swapped into place, so a failure leaves the old
// output as it was. Modes are set explicitly: the umask never shows through.
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { VirtualTree } from '../emit/virtual-tree.ts';

const FILE_MODE = 0o644;
const EXECUTABLE_MODE = 0o755;
const DIRECTORY_MODE = 0o755;
/** Read once (process.umask() with no argument only reads it). */
const UMASK = process.umask();

/** Writes each tree to `<outRoot>/<key>`, replacing what was there. */
export async function writeTrees(outRoot: string, trees: ReadonlyMap<string, VirtualTree>): Promise<void> {
  const staged: { temporary: string; final: string }[] = [];
  try {
    for (const [key, tree] of trees) {
      const final = path.join(outRoot, key);
      const temporary = path.join(path.dirname(final), `.${path.basename(final)}.tmp-${process.pid}`);
      await rm(temporary, { recursive: true, force: true });
      await writeTree(temporary, tree);
      staged.push({ temporary, final });
    }
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
  // Folders first, in order; then the files, concurrently (each one is independent).
  const folders = new Set<string>([directory]);
  for (const relative of tree.keys()) folders.add(path.dirname(path.join(directory, relative)));
  for (const folder of [...folders].sort()) await makeDirectory(folder);
  await Promise.all(
    [...tree].map(async ([relative, file]) => {
      const target = path.join(directory, relative);
      const mode = file.executable ? EXECUTABLE_MODE : FILE_MODE;
      await writeFile(target, file.contents, { mode });
      // A new file gets mode & ~umask; chmod only when the umask took bits away.
      if ((mode & UMASK) !== 0) await chmod(target, mode);
    }),
  );
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
