// The goldens as `check` reads them (GoldenFiles): each file's size from a
// stat, and its SHA-256 kept in the build cache under the file's stamp
// (inode, size, mtime and ctime), so a check reads only the goldens that
// changed since the last one, and those a diff shows.
import { lstatSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { hashParts, readCacheEntry, writeCacheEntry } from '../cache/build-cache.ts';
import { contentDigest } from '../emit/content-facts.ts';
import { SETTLED_MS } from '../util/settled.ts';
import type { Diagnostic } from '../diagnostics.ts';
import { goldenPaths, type GoldenFiles } from './compare-golden.ts';

/** The owner's execute bit: what git keeps of a file's mode (100755 or 100644), whatever the umask of a checkout. */
const EXECUTABLE = 0o100;

/** The cache entry's key: the index depends on the files alone, not on the compiler. */
const INDEX_FORMAT = 'golden-index/1';
/** path → [stamp, sha256] */
type Index = Map<string, [string, string]>;

const indexName = (goldenRoot: string) => `golden-${hashParts([path.resolve(goldenRoot)]).slice(0, 24)}`;

function decodeIndex(stored: unknown): Index | null {
  if (!(stored instanceof Map)) return null;
  for (const [file, entry] of stored) {
    if (typeof file !== 'string' || !Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') return null;
  }
  return stored as Index;
}

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
  const known: Index = (cacheDir ? readCacheEntry(cacheDir, indexName(goldenRoot), INDEX_FORMAT, decodeIndex) : null) ?? new Map();
  const settledBefore = BigInt(now - SETTLED_MS) * 1_000_000n;
  const stats = new Map<string, { stamp: string | null; size: number; executable: boolean }>();
  for (const file of paths) {
    const full = path.join(goldenRoot, file);
    if (links.has(file)) {
      const target = statSync(full);
      stats.set(file, { stamp: null, size: target.size, executable: (target.mode & EXECUTABLE) !== 0 });
      continue;
    }
    const stat = lstatSync(full, { bigint: true });
    const settled = stat.mtimeNs < settledBefore && stat.ctimeNs < settledBefore;
    stats.set(file, { stamp: settled ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : null, size: Number(stat.size), executable: (Number(stat.mode) & EXECUTABLE) !== 0 });
  }
  const next: Index = new Map();
  let changed = false;
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
      const kept = known.get(file);
      if (stamp !== null && kept !== undefined && kept[0] === stamp) {
        next.set(file, kept);
        return kept[1];
      }
      const digest = contentDigest(bytes(file));
      if (stamp !== null) {
        next.set(file, [stamp, digest]);
        changed = true;
      }
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
    save: () => {
      if (cacheDir && (changed || next.size !== known.size)) writeCacheEntry(cacheDir, indexName(goldenRoot), INDEX_FORMAT, next);
    },
  };
}
