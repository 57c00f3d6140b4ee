// The only file-system reads of the load stage: every file of a source tree,
// in sorted order, as bytes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import fg from 'fast-glob';
import { compareText } from '../diagnostics.ts';

export interface SourceFile {
  /** POSIX path relative to the tree root. */
  path: string;
  bytes: Uint8Array;
}

export async function readSourceTree(root: string): Promise<SourceFile[]> {
  const paths = await fg('**/*', {
    cwd: root,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: false,
    // What else to skip is the layout's business (compiler/data/layouts).
    ignore: ['**/node_modules/**'],
  });
  paths.sort(compareText);
  return Promise.all(paths.map(async (file) => ({ path: file, bytes: await readFile(path.join(root, file)) })));
}
