// Files' SHA-256 kept in the build cache under each file's stamp (inode,
// size, mtime and ctime in nanoseconds): a file whose stamp is the one
// indexed need not be read to know its digest. A stamp is indexed only once
// the file has settled (SETTLED_MS): a second change within the file system's
// clock tick can leave mtime and ctime as they were, and ctime cannot be set
// back by anyone. The digest indexed is of bytes read after the stat that gave
// the stamp: a change in between gives bytes newer than the stamp, which the
// next stat sees as a change.
import type { BigIntStats } from 'node:fs';
import { readCacheEntry, writeCacheEntry } from './build-cache.ts';
import { SETTLED_MS } from '../util/settled.ts';

/** The cache entry's key: an index depends on the files alone, not on the compiler. */
const INDEX_FORMAT = 'stamp-index/1';
/** path → [stamp, sha256] */
type Index = Map<string, [string, string]>;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function decodeIndex(stored: unknown): Index | null {
  if (!(stored instanceof Map)) return null;
  for (const [file, entry] of stored) {
    if (typeof file !== 'string' || !Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || typeof entry[1] !== 'string' || !SHA256_HEX.test(entry[1])) return null;
  }
  return stored as Index;
}

/** A file's identity and version: any write to it, or a rename over it, gives another. */
export function fileStamp(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/** The file's stamp once it has settled (its last change `settledMs` or more before `now`), else null: not to be trusted yet. */
export function settledStamp(stat: BigIntStats, now: number = Date.now(), settledMs: number = SETTLED_MS): string | null {
  const settledBefore = BigInt(now - settledMs) * 1_000_000n;
  return stat.mtimeNs < settledBefore && stat.ctimeNs < settledBefore ? fileStamp(stat) : null;
}

export interface StampIndex {
  /** The digest indexed for `file` under `stamp` (kept for the next index), or undefined: the file must be read. */
  known(file: string, stamp: string | null): string | undefined;
  /** A digest of the file's bytes read after the stat that gave `stamp`; indexed when the stamp is one (settled). */
  learn(file: string, stamp: string | null, digest: string): void;
  /** Stores the index of the files asked about this time (a no-op without a cache, or when it is the stored one). */
  save(): void;
  /** Drops every digest, stored at once: one proved not to be its file's bytes' (saved meanwhile, or a forged entry), so the next build reads every file. */
  distrust(): void;
}

/** The index stored under `name` in `cacheDir` (none without a cache; a corrupt or foreign entry reads as empty). */
export function stampIndex(cacheDir: string | null, name: string): StampIndex {
  const stored: Index = (cacheDir ? readCacheEntry(cacheDir, name, INDEX_FORMAT, decodeIndex) : null) ?? new Map();
  const next: Index = new Map();
  let changed = false;
  return {
    known(file, stamp) {
      const kept = stored.get(file);
      if (stamp === null || kept === undefined || kept[0] !== stamp) return undefined;
      next.set(file, kept);
      return kept[1];
    },
    learn(file, stamp, digest) {
      if (stamp === null) return;
      next.set(file, [stamp, digest]);
      changed = true;
    },
    save() {
      if (cacheDir && (changed || next.size !== stored.size)) writeCacheEntry(cacheDir, name, INDEX_FORMAT, next);
    },
    distrust() {
      next.clear();
      stored.clear();
      if (cacheDir) writeCacheEntry(cacheDir, name, INDEX_FORMAT, next);
    },
  };
}
