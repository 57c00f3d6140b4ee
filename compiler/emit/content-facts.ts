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

function factsOfText(text: string): TextFacts {
  const known = textFacts.get(text);
  if (known !== undefined) return known;
  const facts: TextFacts = { sha256: createHash('sha256').update(text, 'utf8').digest('hex'), bytes: Buffer.byteLength(text, 'utf8') };
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
