// The frontmatter of an emitted file, parsed as the runtime reads it, once per
// distinct text: the limit check and the listing cost both read it, and most
// files come in pairs with the same frontmatter (a target's two scopes).
import { LineCounter, parseDocument, isMap, isPair, isScalar, type Scalar } from 'yaml';

export interface EmittedFrontmatter {
  document: ReturnType<typeof parseDocument>;
  lineCounter: LineCounter;
}

/** Emptied when it holds MEMO_SIZE texts, so a long watch session keeps no more. */
const parsed = new Map<string, EmittedFrontmatter>();
const MEMO_SIZE = 2_000;

/** The leading `---` block of a file's text, parsed; null when it has none. */
export function emittedFrontmatter(text: string): EmittedFrontmatter | null {
  const match = /^---\n([\s\S]*?\n)---\n/.exec(text);
  if (!match) return null;
  const yaml = match[1]!;
  let known = parsed.get(yaml);
  if (known === undefined) {
    const lineCounter = new LineCounter();
    known = { document: parseDocument(yaml, { lineCounter }), lineCounter };
    if (parsed.size >= MEMO_SIZE) parsed.clear();
    parsed.set(yaml, known);
  }
  return known;
}

/** The scalar a top-level key holds, if the frontmatter is a map and the key's value is a scalar. */
export function frontmatterScalar(frontmatter: EmittedFrontmatter | null, key: string): Scalar | undefined {
  const contents = frontmatter?.document.contents;
  if (!isMap(contents)) return undefined;
  const pair = contents.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
  return pair && isScalar(pair.value) ? pair.value : undefined;
}
