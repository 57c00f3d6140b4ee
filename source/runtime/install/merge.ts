// Merging GSD's entries into config files the user shares with GSD, and
// taking them out again. Every merge is a list of small text edits on the
// user's own text, recorded so that uninstall can reverse them byte for byte
// while the file is as GSD left it; when the user changed it since, the
// recorded entries are removed one by one and the rest is left alone.
//   json (and jsonc): jsonc-parser's modify, which keeps comments, order and formatting
//   toml: a marked block at the end, or one line under a table header the user already has
//   yaml: a marked block at the end, or the yaml Document API for keys the user already has
//   markdown: a marked block at the end
import { applyEdits, findNodeAtLocation, modify, parse as parseJsonc, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { parse as parseYaml, parseDocument, isSeq, isMap, stringify as stringifyYaml } from 'yaml';
import { refused } from '../core/errors.ts';

export type MergeFormat = 'json' | 'toml' | 'yaml' | 'markdown';

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
  | { kind: 'text'; text: string };

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

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
  }
  return false;
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
    const line = text.slice(0, first.offset).split('\n').length;
    throw refused(`${label}:${line}: not valid JSON (${printParseErrorCode(first.error)}); fix it, then install again (nothing was changed)`);
  }
  return value;
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
  const walk = (path: JsonPath, ours: unknown, theirs: unknown) => {
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

// ---------------------------------------------------------------- toml

function parseTomlText(text: string, label: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw refused(`${label}: not valid TOML (${(error as Error).message.split('\n')[0]}); fix it, then install again (nothing was changed)`);
  }
}

const isTableArray = (value: unknown) => Array.isArray(value) && value.length > 0 && value.every(isPlainObject);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
      if (theirs !== undefined && !isTableArray(theirs)) skipped.push(`${label}: ${key} is not a list of tables in your file; GSD's [[${key}]] entries are not added`);
      else {
        const fresh = (ours as unknown[]).filter((item) => !(theirs as unknown[] | undefined)?.some((existing) => deepEqual(existing, item)));
        if (fresh.length > 0) block[key] = fresh;
      }
    } else if (isPlainObject(ours)) {
      if (theirs === undefined) block[key] = ours;
      else if (!isPlainObject(theirs)) skipped.push(`${label}: ${key} is not a table in your file; GSD's [${key}] is not added`);
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
    const header = new RegExp(`^[ \\t]*\\[[ \\t]*(?:${escapeRegExp(table)}|"${escapeRegExp(table)}")[ \\t]*\\][ \\t]*(?:#.*)?(?:\\r?\\n|$)`, 'm').exec(editor.text);
    if (!header) {
      skipped.push(`${label}: your [${table}] table is not written as a [${table}] header, so GSD did not add \`${line}\`; add it yourself`);
      continue;
    }
    const at = header.index + header[0].length;
    const newline = header[0].endsWith('\n') ? '' : '\n';
    const text = `${newline}${line}\n`;
    editor.set(editor.text.slice(0, at) + text + editor.text.slice(at));
    added.push({ kind: 'text', text });
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

export function mergeYaml(userText: string | null, gsdText: string, label: string): MergeResult {
  const gsd = parseYaml(gsdText) as Record<string, unknown>;
  const base = userText ?? '';
  const document = parseDocument(base);
  if (document.errors.length > 0) throw refused(`${label}: not valid YAML (${document.errors[0]!.message.split('\n')[0]}); fix it, then install again (nothing was changed)`);
  const user = (document.toJS() ?? {}) as unknown;
  if (!isPlainObject(user)) throw refused(`${label}: expected a mapping at the top, found something else; nothing was changed`);
  const editor = new Editor(base);
  const added: Added[] = [];
  const skipped: string[] = [];
  const block: Record<string, unknown> = {};
  let edited = false;
  for (const [key, ours] of Object.entries(gsd)) {
    const theirs = user[key];
    if (theirs === undefined) {
      block[key] = ours;
      continue;
    }
    if (!isPlainObject(ours) || !isPlainObject(theirs) || !isMap(document.get(key, true))) {
      if (!deepEqual(ours, theirs)) skipped.push(`${label}: ${key} is already set to a value of yours; GSD's is not applied`);
      continue;
    }
    for (const [inner, value] of Object.entries(ours)) {
      const existing = theirs[inner];
      if (existing === undefined) {
        document.setIn([key, inner], document.createNode(value));
        added.push({ kind: 'set', path: [key, inner], value });
        edited = true;
      } else if (Array.isArray(value) && Array.isArray(existing) && isSeq(document.getIn([key, inner], true))) {
        for (const item of value) {
          if (existing.some((entry) => deepEqual(entry, item))) continue;
          document.addIn([key, inner], document.createNode(item));
          added.push({ kind: 'append', path: [key, inner], value: item });
          edited = true;
        }
      } else if (!deepEqual(existing, value)) skipped.push(`${label}: ${key}.${inner} is already set to a value of yours; GSD's is not applied`);
    }
  }
  if (edited) editor.set(document.toString({ lineWidth: 0 }));
  if (Object.keys(block).length > 0) appendBlock(editor, 'yaml', stringifyYaml(block, { lineWidth: 0 }), added);
  const merged = parseDocument(editor.text);
  if (merged.errors.length > 0 || !keepsUser(user, merged.toJS())) throw refused(`${label}: GSD's entries cannot be added without changing yours; nothing was changed`);
  return { text: editor.text, edits: editor.edits, added, skipped };
}

function unmergeYaml(text: string, added: readonly Added[], label: string): { text: string; left: string[] } {
  const first = unmergeText(text, 'yaml', added, label);
  const structured = added.filter((entry) => entry.kind !== 'text');
  if (structured.length === 0) return first;
  const document = parseDocument(first.text);
  const left = [...first.left];
  for (const entry of [...structured].reverse()) {
    if (entry.kind === 'set') {
      if (deepEqual(valueAt(document.toJS(), entry.path), entry.value)) document.deleteIn(entry.path);
      else left.push(`${label}: ${show(entry.path)} was changed after GSD set it; left as it is`);
      continue;
    }
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
