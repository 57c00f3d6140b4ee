// Offsets of keys and values inside a parsed `yaml` Document, so that schema
// findings on YAML frontmatter and JSON data files point at the real text.
import { isMap, isSeq, isPair, isScalar, type Document, type Node, LineCounter, parseDocument } from 'yaml';

/** Offset of the value (or key, when `atKey`) at `path`, falling back to the nearest ancestor. */
export function yamlOffset(document: Document, path: readonly (string | number)[], atKey = false): number {
  let node: unknown = document.contents;
  let offset = (node as Node | null)?.range?.[0] ?? 0;
  for (const [index, key] of path.entries()) {
    const last = index === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(key));
      if (!pair) break;
      const keyNode = pair.key as Node;
      if (last && atKey) return keyNode.range?.[0] ?? offset;
      node = pair.value;
      offset = (pair.value as Node | null)?.range?.[0] ?? keyNode.range?.[0] ?? offset;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as Node | undefined;
      if (!item) break;
      node = item;
      offset = item.range?.[0] ?? offset;
    } else {
      break;
    }
  }
  return offset;
}

export interface PositionedJson {
  data: unknown;
  document: Document;
  lineCounter: LineCounter;
  /** First parse error as {line, column, message}, if any. */
  error: { line: number; column: number; message: string } | null;
}

/** Parses a JSON data file with `yaml` (JSON is YAML 1.2) to keep positions. */
export function parseJsonWithPositions(text: string): PositionedJson {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const first = document.errors[0];
  if (first) {
    const { line, col } = lineCounter.linePos(first.pos[0]);
    return { data: null, document, lineCounter, error: { line, column: col, message: first.message.split('\n')[0]! } };
  }
  return { data: document.toJS() as unknown, document, lineCounter, error: null };
}

export function linePosition(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
