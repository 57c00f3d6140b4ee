// The one folder walk of the compiler's reads: a source tree (load/read-source-tree.ts)
// and the targets folder (cache/build-cache.ts readTree). Written here rather than
// taken from fast-glob: loading that package and its first walk cost a build about
// 50 ms on every start, a readdir walk of the same 1,071 files about 5 ms.
import { readdirSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { compareText } from '../diagnostics.ts';

/**
 * Every regular file under `root` as a POSIX path relative to it, sorted by
 * compareText; none when `root` is not a folder. Symbolic links, sockets and
 * the like are neither listed nor followed (their paths are pushed onto
 * `others` when given, unsorted). `skip(name, folder)` leaves an
 * entry out (a folder with all it holds). A folder below the root that
 * cannot be read is an error: a partial list would pass for the whole tree.
 */
export function listFiles(root: string, skip: (name: string, folder: boolean) => boolean = () => false, others?: string[]): string[] {
  const files: string[] = [];
  const visit = (relative: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(relative ? path.join(root, relative) : root, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (relative === '' && (code === 'ENOENT' || code === 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      const folder = entry.isDirectory();
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (!folder && !entry.isFile()) {
        others?.push(child);
        continue;
      }
      if (skip(entry.name, folder)) continue;
      if (folder) visit(child);
      else files.push(child);
    }
  };
  visit('');
  return files.sort(compareText);
}
