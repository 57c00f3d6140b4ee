// Facts of file contents: the SHA-256 and the UTF-8 size. A byte array's
// digest is kept by identity (a verbatim asset is shared by every bundle); a
// text's are computed when asked for, both in one pass.
import { createHash } from 'node:crypto';

/** Digests of byte contents, by identity: a verbatim asset is one Uint8Array shared by every bundle. */
const byteDigests = new WeakMap<Uint8Array, string>();

export interface TextFacts {
  sha256: string;
  bytes: number;
}

/**
 * Where a text is encoded to be hashed: one pass gives the bytes and their
 * count, where hashing the string and measuring it were two (a third of the
 * time). Grown to the largest text seen, up to SCRATCH_MAX bytes.
 */
let scratch = new Uint8Array(1 << 16);
const SCRATCH_MAX = 64 * 1024 * 1024;
const encoder = new TextEncoder();

/**
 * A text's digest and size, computed each time they are asked for (a tree
 * file keeps its own: virtual-tree.ts). Texts are not memoised by value: a
 * third of an --all build's rendered files repeat in other bundles, but a
 * memo held them past their bundle, and copying them into the old generation
 * cost as much as hashing them again (upstream corpus, all bundles: the same
 * time, 150 MB less at the peak).
 */
export function textFacts(text: string): TextFacts {
  const bytes = encodedInScratch(text);
  return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
}

/**
 * Where encodedText puts texts: runs of memory outside V8's heap (arenas), the
 * current one's unused tail the next text's. An arena whose texts are all
 * released (releaseEncoded) is used again: memory touched for the first time
 * costs a page fault per 4 KiB, and an array per text a zeroed allocation and
 * a copy (upstream corpus, all bundles: 300 ms more than hashing from one warm
 * array).
 */
const ARENA_SIZE = 4 * 1024 * 1024;
/** Arenas kept for use again: a build holds about one bundle's texts (2 to 15 MB) at a time. */
const SPARE_ARENAS = 8;
interface Arena {
  bytes: Uint8Array;
  used: number;
  /** Texts encoded into it and not yet released. */
  live: number;
}
/** The arena being filled: none until a build encodes its first text. */
let arena: Arena = { bytes: new Uint8Array(0), used: 0, live: 0 };
const spares: Arena[] = [];
/** The arena of each text not yet released: a text released twice is counted once. */
const arenaOf = new WeakMap<Uint8Array, Arena>();

/** A text's UTF-8 bytes, kept outside V8's heap (a view of an arena, valid until releaseEncoded), with their digest: one encoding gives both. */
export function encodedText(text: string): TextFacts & { encoded: Uint8Array } {
  let { read, written } = encoder.encodeInto(text, arena.bytes.subarray(arena.used));
  if (read !== text.length) {
    // Past the arena's room: another (a spare, if one is free), or one of its own for a text an arena may not hold.
    const most = text.length * 3;
    arena = (most <= ARENA_SIZE ? spares.pop() : undefined) ?? { bytes: Buffer.allocUnsafeSlow(Math.max(ARENA_SIZE, most)), used: 0, live: 0 };
    ({ written } = encoder.encodeInto(text, arena.bytes));
  }
  const encoded = arena.bytes.subarray(arena.used, arena.used + written);
  arena.used += written;
  arena.live += 1;
  arenaOf.set(encoded, arena);
  return { sha256: createHash('sha256').update(encoded).digest('hex'), bytes: written, encoded };
}

/** Gives back an encodedText's bytes, which no one reads again: an arena with no text left is used again. */
export function releaseEncoded(encoded: Uint8Array): void {
  const owner = arenaOf.get(encoded);
  if (owner === undefined) return;
  arenaOf.delete(encoded);
  owner.live -= 1;
  if (owner.live > 0 || owner === arena || owner.bytes.length !== ARENA_SIZE) return;
  owner.used = 0;
  if (spares.length < SPARE_ARENAS) spares.push(owner);
}

/** The text's UTF-8 bytes: a view of the scratch array (valid until the next call), or for a text past its size, a Buffer of their own. */
function encodedInScratch(text: string): Uint8Array {
  // UTF-8 takes at most three bytes per UTF-16 code unit (a lone surrogate becomes U+FFFD, as Buffer writes it).
  const most = text.length * 3;
  if (most > SCRATCH_MAX) return Buffer.from(text, 'utf8');
  if (scratch.length < most) scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(most, scratch.length * 2)));
  return scratch.subarray(0, encoder.encodeInto(text, scratch).written);
}

/** The SHA-256 (hex) of bytes (each array hashed once per process) or of UTF-8 text. */
export function contentDigest(contents: string | Uint8Array): string {
  if (typeof contents === 'string') return textFacts(contents).sha256;
  let digest = byteDigests.get(contents);
  if (digest === undefined) byteDigests.set(contents, (digest = createHash('sha256').update(contents).digest('hex')));
  return digest;
}

/** The digest and byte size of bytes or UTF-8 text. */
export function contentFacts(contents: string | Uint8Array): TextFacts {
  return typeof contents === 'string' ? textFacts(contents) : { sha256: contentDigest(contents), bytes: contents.byteLength };
}
