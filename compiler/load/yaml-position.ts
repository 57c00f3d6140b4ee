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

/** Line and column of the value (or key, when `atKey`) at a key path, or of its nearest ancestor. */
export type Locate = (path: readonly (string | number)[], atKey?: boolean) => { line: number; column: number };

export interface PositionedJson {
  data: unknown;
  locate: Locate;
  /** First parse error as {line, column, message}, if any. */
  error: { line: number; column: number; message: string } | null;
}

/**
 * Parses a JSON data file, keeping the means to find any value's position.
 * JSON is YAML 1.2, so `yaml` parses it with positions; but that costs a
 * tenth of a cold build over the targets' files, so well-formed JSON without
 * a repeated key is read with JSON.parse and `yaml` runs only when a finding
 * needs a position. Anything else (not JSON, or a key twice in one object)
 * goes to `yaml`, which names the fault and where, as before.
 */
export function parseJsonWithPositions(text: string): PositionedJson {
  const data = strictJson(text);
  if (data === NOT_STRICT) return parseWithYaml(text);
  let positioned: PositionedJson | undefined;
  const locate: Locate = (path, atKey) => (positioned ??= parseWithYaml(text)).locate(path, atKey);
  return { data, locate, error: null };
}

const NOT_STRICT = Symbol('not strict JSON');

/** The value of `text` when it is JSON with every key once in its object, else NOT_STRICT. */
function strictJson(text: string): unknown {
  let data: unknown;
  try {
    data = JSON.parse(text) as unknown;
  } catch {
    return NOT_STRICT;
  }
  // JSON.parse keeps the last of a repeated key: the keys it kept must be all the text has.
  return keysWritten(text) === keysKept(data) ? data : NOT_STRICT;
}

/** How many object keys well-formed JSON text writes: strings followed by a colon (one linear pass). */
function keysWritten(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at += 1) {
    if (text.charCodeAt(at) !== 0x22) continue;
    // A string: to its closing quote, stepping over each escaped character.
    for (at += 1; at < text.length && text.charCodeAt(at) !== 0x22; at += text.charCodeAt(at) === 0x5c ? 2 : 1);
    let next = at + 1;
    while (next < text.length && isJsonSpace(text.charCodeAt(next))) next += 1;
    if (text.charCodeAt(next) === 0x3a) count += 1;
  }
  return count;
}

function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** How many keys the objects of a parsed JSON value hold, nested ones included. */
function keysKept(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + keysKept(item), 0);
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  for (const key of Object.keys(value)) count += 1 + keysKept((value as Record<string, unknown>)[key]);
  return count;
}

/** `text` parsed by `yaml` with positions: its first error, or its data. */
function parseWithYaml(text: string): PositionedJson {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const locate: Locate = (path, atKey = false) => linePosition(lineCounter, yamlOffset(document, path, atKey));
  const first = document.errors[0];
  if (first) {
    const { line, col } = lineCounter.linePos(first.pos[0]);
    return { data: null, locate, error: { line, column: col, message: first.message.split('\n')[0]! } };
  }
  return { data: document.toJS() as unknown, locate, error: null };
}

export function linePosition(lineCounter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
