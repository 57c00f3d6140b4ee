// The goldens as `check` reads them (GoldenFiles): each file's size from a
// stat, and its SHA-256 kept in the build cache under the file's stamp
// (inode, size, mtime and ctime), so a check reads only the goldens that
// changed since the last one, and those a diff shows.
import { lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { hashParts } from '../cache/build-cache.ts';
import { settledStamp, stampIndex } from '../cache/stamp-index.ts';
import { contentDigest } from '../emit/content-facts.ts';
import type { Diagnostic } from '../diagnostics.ts';
import { goldenPaths, type GoldenFiles } from './compare-golden.ts';

/** The owner's execute bit: what git keeps of a file's mode (100755 or 100644), whatever the umask of a checkout. */
const EXECUTABLE = 0o100;

const indexName = (goldenRoot: string) => `golden-${hashParts([path.resolve(goldenRoot)]).slice(0, 24)}`;

export interface IndexedGoldens {
  files: GoldenFiles;
  /** The entries that are neither file, link to a file, nor folder (goldenPaths): reported, never read. */
  strays: Diagnostic[];
  /** The files that are links to a file (read through; --update makes each a file of its own). */
  links: ReadonlySet<string>;
  /**
   * Every path with its stamp, hashed: the goldens as they stand. Null while
   * any file changed in the last SETTLED_MS (a second change within the file
   * system's clock tick could leave its stamp as it was) or is a link (whose
   * stamp is not its target's): then nothing is taken on trust.
   */
  stamp: string | null;
  /** Stores the digests read this time (a no-op without a cache, or when none changed). */
  save(): void;
}

/** The goldens under `goldenRoot`, their digests taken from `cacheDir`'s index where a file's stamp is the one indexed. */
export function indexedGoldens(goldenRoot: string, cacheDir: string | null, now = Date.now()): IndexedGoldens {
  const { files: paths, links, strays } = goldenPaths(goldenRoot);
  const index = stampIndex(cacheDir, indexName(goldenRoot));
  const stats = new Map<string, { stamp: string | null; size: number; executable: boolean }>();
  for (const file of paths) {
    const full = path.join(goldenRoot, file);
    if (links.has(file)) {
      const target = statSync(full);
      stats.set(file, { stamp: null, size: target.size, executable: (target.mode & EXECUTABLE) !== 0 });
      continue;
    }
    const stat = lstatSync(full, { bigint: true });
    stats.set(file, { stamp: settledStamp(stat, now), size: Number(stat.size), executable: (Number(stat.mode) & EXECUTABLE) !== 0 });
  }
  const read = new Map<string, Uint8Array>();
  // Read after the stat: a change in between gives bytes newer than the stamp, which the next check's stat sees as a change.
  const bytes = (file: string) => {
    let found = read.get(file);
    if (!found) read.set(file, (found = readFileSync(path.join(goldenRoot, file))));
    return found;
  };
  const files: GoldenFiles = {
    paths,
    has: (file) => stats.has(file),
    size: (file) => stats.get(file)!.size,
    executable: (file) => stats.get(file)!.executable,
    digest: (file) => {
      const { stamp } = stats.get(file)!;
      const known = index.known(file, stamp);
      if (known !== undefined) return known;
      const digest = contentDigest(bytes(file));
      index.learn(file, stamp, digest);
      return digest;
    },
    bytes,
  };
  const trusted = [...stats.values()].every((stat) => stat.stamp !== null);
  return {
    files,
    strays,
    links,
    stamp: trusted ? hashParts(paths.flatMap((file) => [file, stats.get(file)!.stamp!])) : null,
    save: index.save,
  };
}
