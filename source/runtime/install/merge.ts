// Merging GSD's entries into config files the user shares with GSD, and
// taking them out again. Every merge is a list of small text edits on the
// user's own text, recorded so that uninstall can reverse them byte for byte
// while the file is as GSD left it; when the user changed it since, the
// recorded entries are removed one by one and the rest is left alone.
//   json (and jsonc): jsonc-parser's modify, which keeps comments, order and formatting
//   toml: a marked block at the end, or one line under a table header the user already has
//   yaml: a marked block at the end, or lines inserted as text into a mapping or list the
//         user already has (the user's own text is never re-serialised)
//   markdown: a marked block at the end
// Text GSD put inside one of the user's containers is recorded with the
// container's path, so taking it out looks only there (never at a same-looking
// line of the user's elsewhere in the file). A file GSD cannot merge safely
// (duplicate keys, a value of another shape where GSD adds entries, text that
// does not parse) is refused with its line and column before anything is written.
import { applyEdits, findNodeAtLocation, modify, parse as parseJsonc, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { parse as parseYaml, parseDocument, isSeq, stringify as stringifyYaml, type Document } from 'yaml';
import { deepEqual, isPlainObject } from '../core/equal.ts';
import { refused } from '../core/errors.ts';
import { escapeRegExp } from '../core/text.ts';
import type { MergeFormat } from './bundle-types.ts';

export type { MergeFormat } from './bundle-types.ts';

/** One text change: at `offset`, `removed` became `inserted`. */
export interface Edit {
  offset: number;
  removed: string;
  inserted: string;
}

export type JsonPath = (string | number)[];

/** What GSD added, for taking it out of a file the user has changed since. */
export type Added =
  | { kind: 'set'; path: JsonPath; value: unknown }
  | { kind: 'append'; path: JsonPath; value: unknown }
  | { kind: 'text'; text: string }
  /** Text inserted inside the user's container at `path` (a TOML table, a YAML mapping or list). */
  | { kind: 'within'; path: JsonPath; text: string };

export interface MergeResult {
  text: string;
  /** Applied in order to the text before the merge; undone in reverse. */
  edits: Edit[];
  added: Added[];
  /** Entries GSD left out because the user's file already sets them otherwise. */
  skipped: string[];
}

export const BEGIN = 'GSD:BEGIN managed by gsd-tools install; gsd-tools uninstall removes this block';
export const END = 'GSD:END';

/** The smallest single edit that turns `before` into `after`. */
export function diffEdit(before: string, after: string): Edit {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  return { offset: start, removed: before.slice(start, before.length - end), inserted: after.slice(start, after.length - end) };
}

/** Reverses `edits`; null when the text no longer holds what they inserted. */
export function undoEdits(text: string, edits: readonly Edit[]): string | null {
  let out = text;
  for (const edit of [...edits].reverse()) {
    if (out.slice(edit.offset, edit.offset + edit.inserted.length) !== edit.inserted) return null;
    out = out.slice(0, edit.offset) + edit.removed + out.slice(edit.offset + edit.inserted.length);
  }
  return out;
}

class Editor {
  text: string;
  readonly edits: Edit[] = [];
  constructor(text: string) {
    this.text = text;
  }
  set(next: string): void {
    if (next === this.text) return;
    this.edits.push(diffEdit(this.text, next));
    this.text = next;
  }
}

/** Whether everything the user had is still there, unchanged (arrays may have grown at the end). */
function keepsUser(user: unknown, merged: unknown): boolean {
  if (isPlainObject(user)) return isPlainObject(merged) && Object.keys(user).every((key) => Object.hasOwn(merged, key) && keepsUser(user[key], merged[key]));
  if (Array.isArray(user)) return Array.isArray(merged) && user.every((item, index) => deepEqual(item, merged[index]));
  return deepEqual(user, merged);
}

function lastIndexOf(list: readonly unknown[], item: unknown): number {
  for (let index = list.length - 1; index >= 0; index -= 1) if (deepEqual(list[index], item)) return index;
  return -1;
}

const show = (path: JsonPath) => path.map(String).join('.');

/** 1-based line and column of an offset. */
export function lineCol(text: string, offset: number): string {
  const before = text.slice(0, Math.max(0, offset));
  const line = before.split('\n').length;
  return `${line}:${offset - (before.lastIndexOf('\n') + 1) + 1}`;
}

/** What a value is, for "expected …, found …". */
function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (isPlainObject(value)) return 'an object';
  if (value === null) return 'null';
  return `${typeof value === 'string' ? 'a string' : typeof value === 'number' ? 'a number' : typeof value === 'boolean' ? 'a boolean' : typeof value} (${JSON.stringify(value)?.slice(0, 40)})`;
}

/** Refuses a user value of another shape where GSD must add entries (an object or a list). */
function checkShape(ours: unknown, theirs: unknown, path: JsonPath, label: string, where: () => string): void {
  if (theirs === undefined) return;
  if (isPlainObject(ours) && !isPlainObject(theirs)) {
    throw refused(`${label}:${where()}: refused: expected ${show(path)} to be an object (GSD adds its entries there), found ${describe(theirs)}; fix it, then install again (nothing was changed)`);
  }
  if (Array.isArray(ours) && !Array.isArray(theirs)) {
    throw refused(`${label}:${where()}: refused: expected ${show(path)} to be a list (GSD adds its entries to it), found ${describe(theirs)}; fix it, then install again (nothing was changed)`);
  }
}

/** Whether a config file holds nothing once GSD's entries are out. */
export function isEmptyConfig(format: MergeFormat, text: string): boolean {
  const bare = text.trim();
  return bare === '' || (format === 'json' && bare.replace(/\s+/g, '') === '{}');
}

// ---------------------------------------------------------------- json

interface JsonStyle {
  unit: string;
  eol: string;
}

function jsonStyle(text: string): JsonStyle {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  return { unit: indent.startsWith('\t') ? '\t' : indent, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

/** Index just past the whitespace and comments from `from`. */
function skipTrivia(text: string, from: number): number {
  let at = from;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at += 1;
    if (text.startsWith('//', at)) {
      const end = text.indexOf('\n', at);
      at = end < 0 ? text.length : end;
    } else if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      at = end < 0 ? text.length : end + 2;
    } else return at;
  }
}

const lineStartOf = (text: string, offset: number) => text.lastIndexOf('\n', offset - 1) + 1;
function lineEndOf(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  const stop = end < 0 ? text.length : end;
  return stop > 0 && text[stop - 1] === '\r' ? stop - 1 : stop;
}

/**
 * Adds one property (or array item) to the object (or array) at `path`'s
 * parent, touching only the text it adds: the user's lines, comments and
 * layout stay as they are. The new entry follows the indentation of its
 * siblings, goes after a comment that ends the last sibling's line, and is
 * written on one line in a container written on one line.
 */
function insertJson(text: string, path: JsonPath, value: unknown, style: JsonStyle): string {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })!;
  const parent = (path.length > 1 ? findNodeAtLocation(tree, path.slice(0, -1)) : tree) as Node;
  const key = path[path.length - 1]!;
  const label = parent.type === 'object' ? `${JSON.stringify(key)}: ` : '';
  const pretty = (indent: string) => `${label}${JSON.stringify(value, null, style.unit).split('\n').join(style.eol + indent)}`;
  const compact = `${label}${JSON.stringify(value)}`;
  const children = parent.children ?? [];
  const open = parent.offset;
  const close = parent.offset + parent.length - 1;
  const parentIndent = /^[ \t]*/.exec(text.slice(lineStartOf(text, open)))![0];
  if (children.length === 0) {
    const inner = text.slice(open + 1, close);
    const childIndent = parentIndent + style.unit;
    if (inner.trim() === '') return `${text.slice(0, open + 1)}${style.eol}${childIndent}${pretty(childIndent)}${style.eol}${parentIndent}${text.slice(close)}`;
    return `${text.slice(0, open + 1)}${style.eol}${childIndent}${pretty(childIndent)}${text.slice(open + 1)}`;
  }
  const last = children[children.length - 1]!;
  const end = last.offset + last.length;
  const next = skipTrivia(text, end);
  const trailingComma = text[next] === ',';
  const lineStart = lineStartOf(text, last.offset);
  const ownLine = text.slice(lineStart, last.offset).trim() === '';
  if (!ownLine) {
    // A container written on one line: the entry joins the line.
    if (trailingComma) return `${text.slice(0, next + 1)} ${compact},${text.slice(next + 1)}`;
    return `${text.slice(0, end)}, ${compact}${text.slice(end)}`;
  }
  const indent = text.slice(lineStart, last.offset);
  const anchor = trailingComma ? next + 1 : end;
  const lineEnd = lineEndOf(text, anchor);
  const rest = text.slice(anchor, lineEnd);
  const restIsTrivia = skipTrivia(rest, 0) === rest.length && !rest.includes('/*');
  if (!restIsTrivia) return `${text.slice(0, anchor)}${trailingComma ? ' ' : ', '}${compact}${trailingComma ? ',' : ''}${text.slice(anchor)}`;
  const entry = `${style.eol}${indent}${pretty(indent)}${trailingComma ? ',' : ''}`;
  if (trailingComma) return `${text.slice(0, lineEnd)}${entry}${text.slice(lineEnd)}`;
  return `${text.slice(0, end)},${text.slice(end, lineEnd)}${entry}${text.slice(lineEnd)}`;
}

/**
 * Takes one property (or array item) out, the inverse of insertJson: its own
 * line goes with it, the comma insertJson put after the sibling before it is
 * taken back, and comments on the neighbouring lines stay where they are.
 */
function removeJson(text: string, path: JsonPath): string {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const found = tree ? findNodeAtLocation(tree, path) : undefined;
  if (!found) return text;
  const node = found.parent?.type === 'property' ? found.parent : found;
  const parent = node.parent;
  if (!parent || !parent.children) return text;
  const siblings = parent.children;
  const index = siblings.indexOf(node);
  const start = node.offset;
  const end = node.offset + node.length;
  const lineStart = lineStartOf(text, start);
  const ownLine = text.slice(lineStart, start).trim() === '';
  let after = end;
  while (after < text.length && /[ \t]/.test(text[after]!)) after += 1;
  const trailingComma = text[after] === ',';
  if (index < siblings.length - 1) {
    const next = siblings[index + 1]!;
    const nextLineStart = lineStartOf(text, next.offset);
    if (ownLine && text.slice(nextLineStart, next.offset).trim() === '') return text.slice(0, lineStart) + text.slice(nextLineStart);
    return text.slice(0, start) + text.slice(next.offset);
  }
  const close = parent.offset + parent.length - 1;
  if (index === 0) {
    const rest = text.slice(parent.offset + 1, start) + text.slice(trailingComma ? after + 1 : end, close);
    if (rest.trim() === '') return text.slice(0, parent.offset + 1) + text.slice(close);
    if (ownLine) return text.slice(0, lineStart - (text[lineStart - 2] === '\r' ? 2 : 1)) + text.slice(trailingComma ? after + 1 : end);
    return text.slice(0, start) + text.slice(trailingComma ? after + 1 : end);
  }
  const previous = siblings[index - 1]!;
  const comma = skipTrivia(text, previous.offset + previous.length);
  const stop = trailingComma ? after + 1 : end;
  if (!ownLine) return trailingComma ? text.slice(0, start) + text.slice(stop) : text.slice(0, comma) + text.slice(end);
  const cut = lineStart - (text[lineStart - 2] === '\r' ? 2 : 1);
  if (trailingComma || text[comma] !== ',' || comma > cut) return text.slice(0, cut) + text.slice(stop);
  return text.slice(0, comma) + text.slice(comma + 1, cut) + text.slice(stop);
}

function parseJsonText(text: string, label: string): unknown {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    throw refused(`${label}:${lineCol(text, first.offset)}: not valid JSON (${printParseErrorCode(first.error)}); fix it, then install again (nothing was changed)`);
  }
  const duplicate = duplicateKey(parseTree(text, [], { allowTrailingComma: true, disallowComments: false }));
  if (duplicate) {
    throw refused(
      `${label}:${lineCol(text, duplicate.at)}: refused: expected each key once in an object, found "${duplicate.key}" again (first at ${lineCol(text, duplicate.first)}); which one the runtime uses is not defined, so GSD cannot merge safely. Remove one, then install again (nothing was changed)`,
    );
  }
  return value;
}

/** The first key written twice in one object, with both places. */
function duplicateKey(node: Node | undefined): { key: string; at: number; first: number } | null {
  if (!node) return null;
  if (node.type === 'object') {
    const seen = new Map<string, number>();
    for (const property of node.children ?? []) {
      const keyNode = property.children?.[0];
      if (!keyNode || typeof keyNode.value !== 'string') continue;
      const first = seen.get(keyNode.value);
      if (first !== undefined) return { key: keyNode.value, at: keyNode.offset, first };
      seen.set(keyNode.value, keyNode.offset);
    }
  }
  for (const child of node.children ?? []) {
    const found = duplicateKey(child);
    if (found) return found;
  }
  return null;
}

export function mergeJson(userText: string | null, gsdText: string, label: string): MergeResult {
  const gsd = JSON.parse(gsdText) as Record<string, unknown>;
  if (userText === null || userText.trim() === '') {
    const before = userText ?? '';
    return { text: gsdText, edits: [diffEdit(before, gsdText)], added: Object.entries(gsd).map(([key, value]) => ({ kind: 'set', path: [key], value })), skipped: [] };
  }
  const user = parseJsonText(userText, label);
  if (!isPlainObject(user)) throw refused(`${label}: expected a JSON object at the top, found ${Array.isArray(user) ? 'an array' : typeof user}; nothing was changed`);
  const editor = new Editor(userText);
  const style = jsonStyle(userText);
  const added: Added[] = [];
  const skipped: string[] = [];
  const tree = parseTree(userText, [], { allowTrailingComma: true, disallowComments: false })!;
  const walk = (path: JsonPath, ours: unknown, theirs: unknown) => {
    checkShape(ours, theirs, path, label, () => lineCol(userText, findNodeAtLocation(tree, path)?.offset ?? 0));
    if (theirs === undefined) {
      editor.set(insertJson(editor.text, path, ours, style));
      added.push({ kind: 'set', path, value: ours });
    } else if (isPlainObject(ours) && isPlainObject(theirs)) {
      for (const [key, value] of Object.entries(ours)) walk([...path, key], value, theirs[key]);
    } else if (Array.isArray(ours) && Array.isArray(theirs)) {
      let length = theirs.length;
      for (const item of ours) {
        if (theirs.some((existing) => deepEqual(existing, item))) continue;
        editor.set(insertJson(editor.text, [...path, length], item, style));
        added.push({ kind: 'append', path, value: item });
        length += 1;
      }
    } else if (!deepEqual(ours, theirs)) {
      skipped.push(`${label}: ${show(path)} is already set to a value of yours; GSD's is not applied`);
    }
  };
  for (const [key, value] of Object.entries(gsd)) walk([key], value, user[key]);
  if (!keepsUser(user, parseJsonText(editor.text, label))) throw new Error(`internal: merging into ${label} changed the user's entries`);
  return { text: editor.text, edits: editor.edits, added, skipped };
}

function valueAt(root: unknown, path: JsonPath): unknown {
  let current = root;
  for (const key of path) {
    if (Array.isArray(current) && typeof key === 'number') current = current[key];
    else if (isPlainObject(current) && typeof key === 'string' && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}

const isEmptyContainer = (value: unknown) => (Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0);

/** Takes GSD's entries out of a JSON file the user has changed since; entries the user changed stay, and are reported. */
export function unmergeJson(text: string, added: readonly Added[], label: string): { text: string; left: string[] } {
  let current = text;
  const left: string[] = [];
  const remove = (path: JsonPath) => {
    const next = removeJson(current, path);
    const errors: ParseError[] = [];
    parseJsonc(next, errors, { allowTrailingComma: true });
    // jsonc-parser's own removal (no formatting pass, which would re-indent the user's lines) when the text edit would not parse.
    current = errors.length === 0 ? next : applyEdits(current, modify(current, path, undefined, {}));
  };
  const subtract = (path: JsonPath, ours: unknown) => {
    const theirs = valueAt(parseJsonText(current, label), path);
    if (theirs === undefined) return;
    if (deepEqual(theirs, ours)) return remove(path);
    if (isPlainObject(ours) && isPlainObject(theirs)) {
      for (const [key, value] of Object.entries(ours)) subtract([...path, key], value);
    } else if (Array.isArray(ours) && Array.isArray(theirs)) {
      for (const item of ours) removeItem(path, item);
    } else {
      left.push(`${label}: ${show(path)} was changed after GSD set it; left as it is`);
      return;
    }
    if (isEmptyContainer(valueAt(parseJsonText(current, label), path))) remove(path);
  };
  const removeItem = (path: JsonPath, item: unknown) => {
    const list = valueAt(parseJsonText(current, label), path);
    const index = Array.isArray(list) ? lastIndexOf(list, item) : -1;
    if (index < 0) left.push(`${label}: an entry GSD added to ${show(path)} was changed or removed; nothing to take out`);
    else remove([...path, index]);
  };
  for (const entry of [...added].reverse()) {
    if (entry.kind === 'set') subtract(entry.path, entry.value);
    else if (entry.kind === 'append') removeItem(entry.path, entry.value);
  }
  return { text: current, left };
}

// ---------------------------------------------------------------- marked blocks (toml, yaml, markdown)

function markers(format: MergeFormat): [string, string] {
  return format === 'markdown' ? [`<!-- ${BEGIN} -->`, `<!-- ${END} -->`] : [`# ${BEGIN}`, `# ${END}`];
}

/** Appends `body` between markers, after a blank line when the file has text. */
function appendBlock(editor: Editor, format: MergeFormat, body: string, added: Added[]): void {
  const [begin, end] = markers(format);
  const block = `${begin}\n${body.replace(/\s+$/, '')}\n${end}\n`;
  const before = editor.text;
  const gap = before === '' ? '' : before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
  editor.set(before + gap + block);
  added.push({ kind: 'text', text: gap + block });
}

/** Takes GSD's text out: the exact text it added, else the marked block (and lines it added, when still there). */
function unmergeText(text: string, format: MergeFormat, added: readonly Added[], label: string): { text: string; left: string[] } {
  let current = text;
  const left: string[] = [];
  const [begin, end] = markers(format);
  for (const entry of [...added].reverse()) {
    if (entry.kind === 'within') {
      const out = format === 'toml' ? removeInTable(current, entry.path, entry.text) : format === 'yaml' ? removeInYaml(current, entry.path, entry.text) : null;
      if (out === null) left.push(`${label}: a line GSD added under ${show(entry.path)} was changed or moved; left as it is: ${entry.text.trim()}`);
      else current = out;
      continue;
    }
    if (entry.kind !== 'text') continue;
    const at = current.lastIndexOf(entry.text);
    if (at >= 0) {
      current = current.slice(0, at) + current.slice(at + entry.text.length);
      continue;
    }
    if (!entry.text.includes(begin)) {
      left.push(`${label}: a line GSD added was changed; left as it is: ${entry.text.trim()}`);
      continue;
    }
    const start = current.indexOf(`${begin}\n`);
    const stop = start < 0 ? -1 : current.indexOf(`${end}\n`, start);
    if (start < 0 || stop < 0) {
      left.push(`${label}: GSD's marked block is gone or its markers were edited; nothing to take out`);
      continue;
    }
    current = current.slice(0, start) + current.slice(stop + end.length + 1);
  }
  return { text: current, left };
}

/** Index of `needle` in text[from, to) starting at a line start (or at `from`), or -1. */
function indexAtLineStart(text: string, needle: string, from: number, to: number): number {
  for (let at = text.indexOf(needle, from); at >= 0 && at + needle.length <= to; at = text.indexOf(needle, at + 1)) {
    if (at === from || text[at - 1] === '\n' || needle.startsWith('\n')) return at;
  }
  return -1;
}

/** The text of one TOML table written as a `[table]` header: from just after the header line to the next header. */
function tableSection(text: string, table: string): { start: number; end: number } | null {
  const header = new RegExp(`^[ \\t]*\\[[ \\t]*(?:${escapeRegExp(table)}|"${escapeRegExp(table)}")[ \\t]*\\][ \\t]*(?:#.*)?(?:\\r?\\n|$)`, 'm').exec(text);
  if (!header) return null;
  const start = header.index + header[0].length;
  const next = /^[ \t]*\[/m.exec(text.slice(start));
  return { start, end: next ? start + next.index : text.length };
}

/** Removes a line GSD put under `[table]`, looking in that table only. */
function removeInTable(text: string, path: JsonPath, line: string): string | null {
  const section = tableSection(text, String(path[0]));
  if (!section) return null;
  const at = indexAtLineStart(text, line, section.start, section.end);
  return at < 0 ? null : text.slice(0, at) + text.slice(at + line.length);
}

// ---------------------------------------------------------------- toml

function parseTomlText(text: string, label: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const where = error as { line?: number; column?: number; message: string };
    const place = typeof where.line === 'number' ? `:${where.line}:${where.column ?? 1}` : '';
    throw refused(`${label}${place}: not valid TOML (${where.message.split('\n')[0]}); fix it, then install again (nothing was changed)`);
  }
}

/** The refusal for a TOML key of another shape than GSD adds to, at the key's line when it can be found. */
function tomlShape(text: string, key: string, label: string, expected: string, found: unknown) {
  const match = new RegExp(`^[ \\t]*(?:\\[{1,2}[ \\t]*)?"?${escapeRegExp(key)}"?[ \\t]*(?:=|\\])`, 'm').exec(text);
  const place = match ? `:${lineCol(text, match.index + match[0].length - match[0].trimStart().length)}` : '';
  return refused(`${label}${place}: refused: expected ${key} to be ${expected}, found ${describe(found)}; fix it, then install again (nothing was changed)`);
}

const isTableArray = (value: unknown) => Array.isArray(value) && value.length > 0 && value.every(isPlainObject);

export function mergeToml(userText: string | null, gsdText: string, label: string): MergeResult {
  const gsd = parseTomlText(gsdText, `${label} (GSD's)`);
  const base = userText ?? '';
  const user = parseTomlText(base, label);
  const editor = new Editor(base);
  const added: Added[] = [];
  const skipped: string[] = [];
  const block: Record<string, unknown> = {};
  const lines: { table: string; line: string }[] = [];
  for (const [key, ours] of Object.entries(gsd)) {
    const theirs = user[key];
    if (isTableArray(ours)) {
      if (theirs !== undefined && !isTableArray(theirs)) throw tomlShape(base, key, label, `a list of tables ([[${key}]]) GSD adds its entries to`, theirs);
      else {
        const fresh = (ours as unknown[]).filter((item) => !(theirs as unknown[] | undefined)?.some((existing) => deepEqual(existing, item)));
        if (fresh.length > 0) block[key] = fresh;
      }
    } else if (isPlainObject(ours)) {
      if (theirs === undefined) block[key] = ours;
      else if (!isPlainObject(theirs)) throw tomlShape(base, key, label, `a table ([${key}]) GSD adds its entries to`, theirs);
      else {
        for (const [inner, value] of Object.entries(ours)) {
          if (theirs[inner] === undefined && !isPlainObject(value)) lines.push({ table: key, line: stringifyToml({ [inner]: value }).trim() });
          else if (!deepEqual(theirs[inner], value)) skipped.push(`${label}: ${key}.${inner} is already set to a value of yours; GSD's is not applied`);
        }
      }
    } else if (theirs === undefined) {
      skipped.push(`${label}: GSD's top-level key ${key} cannot go in a block at the end of the file; add \`${stringifyToml({ [key]: ours }).trim()}\` yourself`);
    } else if (!deepEqual(theirs, ours)) skipped.push(`${label}: ${key} is already set to a value of yours; GSD's is not applied`);
  }
  for (const { table, line } of lines) {
    const section = tableSection(editor.text, table);
    if (!section) {
      skipped.push(`${label}: your [${table}] table is not written as a [${table}] header, so GSD did not add \`${line}\`; add it yourself`);
      continue;
    }
    const at = section.start;
    const newline = at > 0 && editor.text[at - 1] !== '\n' ? '\n' : '';
    const text = `${newline}${line}\n`;
    editor.set(editor.text.slice(0, at) + text + editor.text.slice(at));
    added.push({ kind: 'within', path: [table], text });
  }
  if (Object.keys(block).length > 0) appendBlock(editor, 'toml', stringifyToml(block), added);
  let merged: Record<string, unknown>;
  try {
    merged = parseToml(editor.text) as Record<string, unknown>;
  } catch (error) {
    throw refused(`${label}: GSD's entries cannot be added without breaking the file (${(error as Error).message.split('\n')[0]}); nothing was changed`);
  }
  if (!keepsUser(user, merged)) throw refused(`${label}: GSD's entries cannot be added without changing yours; nothing was changed`);
  return { text: editor.text, edits: editor.edits, added, skipped };
}

// ---------------------------------------------------------------- yaml

function parseYamlText(text: string, label: string): Document {
  const document = parseDocument(text);
  const error = document.errors[0];
  if (error) {
    const place = error.linePos?.[0];
    throw refused(`${label}${place ? `:${place.line}:${place.col}` : ''}: not valid YAML (${error.message.split('\n')[0]}); fix it, then install again (nothing was changed)`);
  }
  return document;
}

type Range = [number, number, number];
const rangeOf = (node: unknown): Range | null => ((node as { range?: Range | null } | null)?.range ?? null);

/** Column of `offset` as spaces: the indentation of a new entry written in line with the one at `offset`. */
function columnAt(text: string, offset: number): string {
  return ' '.repeat(offset - lineStartOf(text, offset));
}

const indentLines = (body: string, indent: string) =>
  body
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => (line === '' ? line : indent + line))
    .join('\n') + '\n';

/** A key GSD writes inside a flow collection: plain when it reads back the same, else quoted. */
const flowKey = (key: string) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key));

/**
 * The text that adds one entry (`key: value` in a mapping, `value` in a list)
 * to the user's collection `node`, and where it goes. Only GSD's entry is
 * serialised; the user's lines are not touched. Block collections get whole
 * lines at the indentation of their first entry, after their last; flow
 * collections (`{…}`, `[…]`) get the entry before the closing bracket.
 */
function yamlInsertion(text: string, node: unknown, key: string | null, value: unknown, label: string, path: JsonPath): { at: number; text: string } {
  const range = rangeOf(node);
  const collection = node as { flow?: boolean; items: { key?: unknown; value?: unknown }[] };
  if (!range) throw refused(`${label}: refused: GSD cannot find where ${show(path)} is written; nothing was changed`);
  if (collection.flow) {
    const close = range[1] - 1;
    if (text[close] !== (key === null ? ']' : '}')) throw refused(`${label}:${lineCol(text, range[0])}: refused: expected ${show(path)} to end with ${key === null ? ']' : '}'}, found ${JSON.stringify(text[close])}; nothing was changed`);
    const entry = key === null ? JSON.stringify(value) : `${flowKey(key)}: ${JSON.stringify(value)}`;
    const empty = collection.items.length === 0;
    return { at: close, text: empty ? entry : `, ${entry}` };
  }
  const first = collection.items[0];
  const firstAt = key === null ? range[0] : (rangeOf(first?.key)?.[0] ?? range[0]);
  const indent = columnAt(text, firstAt);
  const body = key === null ? stringifyYaml([value], { lineWidth: 0 }) : stringifyYaml({ [key]: value }, { lineWidth: 0 });
  const at = range[1];
  const newline = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
  return { at, text: newline + indentLines(body, indent) };
}

export function mergeYaml(userText: string | null, gsdText: string, label: string): MergeResult {
  const gsd = parseYaml(gsdText) as Record<string, unknown>;
  const base = userText ?? '';
  const user = (parseYamlText(base, label).toJS() ?? {}) as unknown;
  if (!isPlainObject(user)) throw refused(`${label}:1:1: refused: expected a mapping at the top of the file, found ${describe(user)}; nothing was changed`);
  const editor = new Editor(base);
  const added: Added[] = [];
  const skipped: string[] = [];
  const block: Record<string, unknown> = {};
  const where = (path: JsonPath) => () => {
    const node = parseDocument(editor.text).getIn(path, true);
    return lineCol(editor.text, rangeOf(node)?.[0] ?? 0);
  };
  const expected: { path: JsonPath; value: unknown; item: boolean }[] = [];
  const insert = (container: JsonPath, key: string | null, value: unknown) => {
    expected.push({ path: key === null ? container : [...container, key], value, item: key === null });
    const document = parseDocument(editor.text);
    const node = container.length === 0 ? document.contents : document.getIn(container, true);
    const insertion = yamlInsertion(editor.text, node, key, value, label, container);
    editor.set(editor.text.slice(0, insertion.at) + insertion.text + editor.text.slice(insertion.at));
    added.push({ kind: 'within', path: container, text: insertion.text });
  };
  const walk = (path: JsonPath, ours: unknown, theirs: unknown) => {
    checkShape(ours, theirs, path, label, where(path));
    if (theirs === undefined) {
      if (path.length === 1) block[path[0] as string] = ours;
      else insert(path.slice(0, -1), String(path[path.length - 1]), ours);
    } else if (isPlainObject(ours) && isPlainObject(theirs)) {
      for (const [key, value] of Object.entries(ours)) walk([...path, key], value, theirs[key]);
    } else if (Array.isArray(ours) && Array.isArray(theirs)) {
      for (const item of ours) if (!theirs.some((existing) => deepEqual(existing, item))) insert(path, null, item);
    } else if (!deepEqual(ours, theirs)) skipped.push(`${label}: ${show(path)} is already set to a value of yours; GSD's is not applied`);
  };
  for (const [key, value] of Object.entries(gsd)) walk([key], value, user[key]);
  if (Object.keys(block).length > 0) {
    const top = parseDocument(editor.text).contents as { flow?: boolean } | null;
    if (top?.flow) throw refused(`${label}:1:1: refused: expected a block mapping at the top of the file (GSD adds its block after it), found a flow mapping ({…}); nothing was changed`);
    appendBlock(editor, 'yaml', stringifyYaml(block, { lineWidth: 0 }), added);
  }
  const merged = parseDocument(editor.text);
  const result = merged.errors.length > 0 ? undefined : (merged.toJS() as unknown);
  const holds = ({ path, value, item }: (typeof expected)[number]) => {
    const found = valueAt(result, path);
    return item ? Array.isArray(found) && found.some((entry) => deepEqual(entry, value)) : deepEqual(found, value);
  };
  if (result === undefined || !keepsUser(user, result) || !expected.every(holds) || !Object.entries(block).every(([key, value]) => deepEqual(valueAt(result, [key]), value))) {
    throw refused(`${label}: refused: GSD's entries cannot be added as text without changing yours (the file's layout is one GSD cannot extend safely); nothing was changed`);
  }
  return { text: editor.text, edits: editor.edits, added, skipped };
}

/** Removes text GSD inserted into the collection at `path`, looking inside that collection only. */
function removeInYaml(text: string, path: JsonPath, inserted: string): string | null {
  const document = parseDocument(text);
  if (document.errors.length > 0) return null;
  const range = rangeOf(path.length === 0 ? document.contents : document.getIn(path, true));
  if (!range) return null;
  const from = lineStartOf(text, range[0]);
  const to = Math.max(range[1], range[2]);
  const at = inserted.endsWith('\n') ? indexAtLineStart(text, inserted, from, to) : text.slice(from, to).indexOf(inserted);
  if (at < 0) return null;
  const start = inserted.endsWith('\n') ? at : from + at;
  return text.slice(0, start) + text.slice(start + inserted.length);
}

function unmergeYaml(text: string, added: readonly Added[], label: string): { text: string; left: string[] } {
  const first = unmergeText(text, 'yaml', added, label);
  // Records written by earlier installers name entries set through the yaml Document API.
  const structured = added.filter((entry) => entry.kind === 'set' || entry.kind === 'append');
  if (structured.length === 0) return first;
  const document = parseDocument(first.text);
  const left = [...first.left];
  for (const entry of [...structured].reverse()) {
    if (entry.kind === 'set') {
      if (deepEqual(valueAt(document.toJS(), entry.path), entry.value)) document.deleteIn(entry.path);
      else left.push(`${label}: ${show(entry.path)} was changed after GSD set it; left as it is`);
      continue;
    }
    if (entry.kind !== 'append') continue;
    const list = document.getIn(entry.path, true);
    const items = isSeq(list) ? (list.toJSON() as unknown[]) : [];
    const index = lastIndexOf(items, entry.value);
    if (index < 0) left.push(`${label}: an entry GSD added to ${show(entry.path)} was changed or removed; nothing to take out`);
    else document.deleteIn([...entry.path, index]);
  }
  return { text: document.toString({ lineWidth: 0 }), left };
}

// ---------------------------------------------------------------- markdown

export function mergeMarkdown(userText: string | null, gsdText: string): MergeResult {
  const editor = new Editor(userText ?? '');
  const added: Added[] = [];
  appendBlock(editor, 'markdown', gsdText, added);
  return { text: editor.text, edits: editor.edits, added, skipped: [] };
}

// ---------------------------------------------------------------- dispatch

export function mergeConfig(format: MergeFormat, userText: string | null, gsdText: string, label: string): MergeResult {
  switch (format) {
    case 'json':
      return mergeJson(userText, gsdText, label);
    case 'toml':
      return mergeToml(userText, gsdText, label);
    case 'yaml':
      return mergeYaml(userText, gsdText, label);
    case 'markdown':
      return mergeMarkdown(userText, gsdText);
  }
}

export function unmergeConfig(format: MergeFormat, text: string, added: readonly Added[], label: string): { text: string; left: string[] } {
  switch (format) {
    case 'json':
      return unmergeJson(text, added, label);
    case 'yaml':
      return unmergeYaml(text, added, label);
    case 'toml':
    case 'markdown':
      return unmergeText(text, format, added, label);
  }
}
