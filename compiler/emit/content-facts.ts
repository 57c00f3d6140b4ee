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
  // UTF-8 takes at most three bytes per UTF-16 code unit (a lone surrogate becomes U+FFFD, as Buffer writes it).
  const most = text.length * 3;
  if (most > SCRATCH_MAX) return { sha256: createHash('sha256').update(text, 'utf8').digest('hex'), bytes: Buffer.byteLength(text, 'utf8') };
  if (scratch.length < most) scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(most, scratch.length * 2)));
  const { written } = encoder.encodeInto(text, scratch);
  return { sha256: createHash('sha256').update(scratch.subarray(0, written)).digest('hex'), bytes: written };
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
