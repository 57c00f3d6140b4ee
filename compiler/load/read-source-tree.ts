// The only file-system reads of the load stage: every file of a source tree,
// in sorted order. With a cache, a file whose stamp is indexed
// (cache/stamp-index.ts) is read only when its bytes are asked for: a build
// with nothing changed needs only the digests, and an incremental one finds
// what it parsed and built by digest. In a resident process (watch), a file
// unchanged since the last build is the same bytes.
import { readFileSync, statSync } from 'node:fs';
import { hashParts, residentMemo } from '../cache/build-cache.ts';
import { fileStamp, settledStamp, stampIndex, type StampIndex } from '../cache/stamp-index.ts';
import { contentDigest, contentFacts, type TextFacts } from '../emit/content-facts.ts';
import { SETTLED_MS } from '../util/settled.ts';
import path from 'node:path';
import { listFiles } from '../util/list-files.ts';
import { SourceChangedError } from './source-changed.ts';

export interface SourceFile {
  /** POSIX path relative to the tree root. */
  path: string;
  bytes: Uint8Array;
}

/** The digest the stamp index gave and the size the stat did, of each file not read when listed. */
const indexedFacts = new WeakMap<SourceFile, TextFacts>();

/** A source file's SHA-256 and size: the ones its stamp gave (readSourceTree with a cache), else of its bytes. */
export function sourceFacts(file: SourceFile): TextFacts {
  return indexedFacts.get(file) ?? contentFacts(file.bytes);
}

export function sourceDigest(file: SourceFile): string {
  return sourceFacts(file).sha256;
}

/** The cache entry of a source tree's stamp index. */
export const sourceIndexName = (root: string) => `source-${hashParts([path.resolve(root)]).slice(0, 24)}`;

/**
 * Read with synchronous calls: a thousand small files read three to four
 * times faster than as that many promises through libuv's thread pool
 * (upstream corpus, 1,071 files: 22-32 ms against 85-122 ms), and a build
 * has nothing else to do on this thread meanwhile. `cacheDir`: where the
 * stamp index is (none: every file is read now); `settledMs`: how long ago a
 * file's last change must be for its stamp to be trusted (tests shorten it).
 */
export async function readSourceTree(root: string, { cacheDir = null, settledMs = SETTLED_MS }: { cacheDir?: string | null; settledMs?: number } = {}): Promise<SourceFile[]> {
  // Dot files and folders and anything named node_modules are never corpus files; what else to skip is the layout's business (compiler/data/layouts).
  const paths = listFiles(root, (name) => name.startsWith('.') || name === 'node_modules');
  const kept = residentMemo(`source-files ${path.resolve(root)}`, () => new Map<string, KeptFile>());
  if (!kept && !cacheDir) return paths.map((file) => ({ path: file, bytes: readFileSync(path.join(root, file)) }));
  const index = stampIndex(cacheDir, sourceIndexName(root));
  const now = Date.now();
  const files = paths.map((file) => sourceFile(root, file, { kept, index, now, settledMs }));
  if (kept && kept.size > files.length) {
    const present = new Set(paths);
    for (const file of kept.keys()) if (!present.has(file)) kept.delete(file);
  }
  index.save();
  return files;
}

/** A file as a resident process (watch) last read it: its stamp and bytes. */
interface KeptFile {
  stamp: string;
  bytes: Uint8Array;
}

/**
 * The file: the bytes a resident process read last, while its stamp is the
 * same and it had settled when read; else, when the stamp index knows its
 * digest, the file to be read if its bytes are asked for (a resident process
 * reads it now, to keep its bytes for the next build); else read now. The
 * same bytes are the same object, so what is keyed by them (content-facts.ts
 * contentDigest) is not computed again.
 */
function sourceFile(root: string, file: string, seen: { kept: Map<string, KeptFile> | null; index: StampIndex; now: number; settledMs: number }): SourceFile {
  const full = path.join(root, file);
  const stats = statSync(full, { bigint: true });
  const settled = settledStamp(stats, seen.now, seen.settledMs);
  const stamp = settled ?? fileStamp(stats);
  const known = seen.index.known(file, settled);
  const held = seen.kept?.get(file);
  if (held && held.stamp === stamp) {
    if (known === undefined) seen.index.learn(file, settled, contentDigest(held.bytes));
    return { path: file, bytes: held.bytes };
  }
  if (known !== undefined && !seen.kept) return unreadFile(file, full, { sha256: known, bytes: Number(stats.size) }, seen.index);
  // Read after the stat: a change in between gives bytes newer than the stamp, which the next build's stat sees as a change.
  const bytes = readFileSync(full);
  if (settled !== null) seen.kept?.set(file, { stamp, bytes });
  else seen.kept?.delete(file);
  if (known === undefined) seen.index.learn(file, settled, contentDigest(bytes));
  return { path: file, bytes };
}

/**
 * A file whose digest the stamp index gave, read when its bytes are first
 * asked for. Bytes other than the digest's (the file was saved while this
 * build ran, or the index lied) are refused: what the build already took from
 * the digest (its key, a manifest's line) would not be of them; the index is
 * then not trusted again (StampIndex.distrust).
 */
function unreadFile(file: string, full: string, facts: TextFacts, index: StampIndex): SourceFile {
  let bytes: Uint8Array | undefined;
  const unread: SourceFile = {
    path: file,
    get bytes(): Uint8Array {
      if (bytes === undefined) {
        let read: Uint8Array;
        try {
          read = readFileSync(full);
        } catch (error) {
          index.distrust();
          throw new SourceChangedError(`${full}: cannot be read since this build listed it (${(error as Error).message}); nothing was written: build again`);
        }
        if (contentDigest(read) !== facts.sha256) {
          index.distrust();
          throw new SourceChangedError(`${full}: changed since this build took its digest (saved while the build ran); nothing was written: build again`);
        }
        bytes = read;
      }
      return bytes;
    },
  };
  indexedFacts.set(unread, facts);
  return unread;
}
