// Facts of file contents computed once per distinct content in a process:
// the SHA-256 and the UTF-8 size.
import { createHash } from 'node:crypto';

/** Digests of byte contents, by identity: a verbatim asset is one Uint8Array shared by every bundle. */
const byteDigests = new WeakMap<Uint8Array, string>();

interface TextFacts {
  sha256: string;
  bytes: number;
}
/**
 * Facts of text, by value: a third of the rendered files of an --all build
 * are the same text in several bundles (a target's two scopes, targets that
 * render alike). Hashed straight from the string: no Buffer to collect
 * afterwards. Bounded by total length (emptied when full), so a watch process
 * that rebuilds for hours keeps no more than this.
 */
const textFacts = new Map<string, TextFacts>();
const TEXT_FACTS_BUDGET = 64 * 1024 * 1024;
let textFactsLength = 0;

/**
 * Where a text is encoded to be hashed: one pass gives the bytes and their
 * count, where hashing the string and measuring it were two (a third of the
 * time). Grown to the largest text seen, up to SCRATCH_MAX bytes.
 */
let scratch = new Uint8Array(1 << 16);
const SCRATCH_MAX = 64 * 1024 * 1024;
const encoder = new TextEncoder();

function factsOfText(text: string): TextFacts {
  const known = textFacts.get(text);
  if (known !== undefined) return known;
  let facts: TextFacts;
  // UTF-8 takes at most three bytes per UTF-16 code unit (a lone surrogate becomes U+FFFD, as Buffer writes it).
  const most = text.length * 3;
  if (most <= SCRATCH_MAX) {
    if (scratch.length < most) scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(most, scratch.length * 2)));
    const { written } = encoder.encodeInto(text, scratch);
    facts = { sha256: createHash('sha256').update(scratch.subarray(0, written)).digest('hex'), bytes: written };
  } else {
    facts = { sha256: createHash('sha256').update(text, 'utf8').digest('hex'), bytes: Buffer.byteLength(text, 'utf8') };
  }
  if (text.length <= TEXT_FACTS_BUDGET) {
    // Full: start again (equal texts come from bundles emitted one after another, a target's two scopes).
    if (textFactsLength + text.length > TEXT_FACTS_BUDGET) {
      textFacts.clear();
      textFactsLength = 0;
    }
    textFacts.set(text, facts);
    textFactsLength += text.length;
  }
  return facts;
}

/** The SHA-256 (hex) of bytes or UTF-8 text, each distinct content hashed once per process. */
export function contentDigest(contents: string | Uint8Array): string {
  if (typeof contents === 'string') return factsOfText(contents).sha256;
  let digest = byteDigests.get(contents);
  if (digest === undefined) byteDigests.set(contents, (digest = createHash('sha256').update(contents).digest('hex')));
  return digest;
}

/** The byte size of UTF-8 text, measured with its digest. */
export function textByteLength(text: string): number {
  return factsOfText(text).bytes;
}
