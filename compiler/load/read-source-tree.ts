// The only file-system reads of the load stage: every file of a source tree,
// in sorted order, as bytes.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { listFiles } from '../util/list-files.ts';

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
  // Dot files and folders and anything named node_modules are never corpus files; what else to skip is the layout's business (compiler/data/layouts).
  const paths = listFiles(root, (name) => name.startsWith('.') || name === 'node_modules');
  return paths.map((file) => ({ path: file, bytes: readFileSync(path.join(root, file)) }));
}
