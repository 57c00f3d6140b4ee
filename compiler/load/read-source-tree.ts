// The only file-system reads of the load stage: every file of a source tree,
// in sorted order, as bytes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import { compareText } from '../diagnostics.ts';

export interface SourceFile {
  /** POSIX path relative to the tree root. */
  path: string;
  bytes: Uint8Array;
}

/**
 * Read with synchronous calls: a thousand small files read three to four
 * times faster than as that many promises through libuv's thread pool
 * (upstream corpus, 1,071 files: 22-32 ms against 85-122 ms), and a build
 * has nothing else to do on this thread meanwhile.
 */
export async function readSourceTree(root: string): Promise<SourceFile[]> {
  const paths = fg.sync('**/*', {
    cwd: root,
    onlyFiles: true,
    dot: false,
    followSymbolicLinks: false,
    // What else to skip is the layout's business (compiler/data/layouts).
    ignore: ['**/node_modules/**'],
  });
  paths.sort(compareText);
  return paths.map((file) => ({ path: file, bytes: readFileSync(path.join(root, file)) }));
}
