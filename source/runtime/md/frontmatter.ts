// The YAML subset used in `.planning/` frontmatter, parsed by hand so the
// runtime stays dependency-free. Supported: `key: value` mappings nested by
// indentation, block lists (of scalars or of mappings), inline `[a, "b"]` and
// `{k: v}`, quoted scalars, `|`/`>` block scalars and `#` comments. Scalars are
// typed: true/false, null/~, and numbers only in canonical form (so `01`,
// `1.0` and `2.10` stay strings and phase IDs keep their padding). Anything
// else is an error naming the file and line; nothing is guessed.
import { deepEqual } from '../core/equal.ts';
import { FileFormatError } from '../core/errors.ts';

export type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };
export type YamlMap = { [key: string]: Yaml };

export interface Split {
  /** Frontmatter text between the fences, or null when the file has none. */
  yaml: string | null;
  /** 1-based line of the first frontmatter line (after the opening fence). */
  yamlLine: number;
  /** Everything after the closing fence. */
  body: string;
  /** 1-based line of the first body line. */
  bodyLine: number;
  /** Line ending used by the fences. */
  eol: string;
}

const FENCE = /^---[ \t]*\r?$/;

/** Separate frontmatter from body. An opening fence with no closing one is an error. */
export function splitFrontmatter(text: string, file: string): Split {
  const noBom = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const firstEnd = noBom.indexOf('\n');
  const first = firstEnd < 0 ? noBom : noBom.slice(0, firstEnd);
  if (!FENCE.test(first)) return { yaml: null, yamlLine: 1, body: noBom, bodyLine: 1, eol: '\n' };
  const eol = first.endsWith('\r') ? '\r\n' : '\n';
  let pos = firstEnd + 1;
  let line = 2;
  while (pos <= noBom.length && firstEnd >= 0) {
    const end = noBom.indexOf('\n', pos);
    const current = end < 0 ? noBom.slice(pos) : noBom.slice(pos, end);
    if (FENCE.test(current)) {
      const yaml = noBom.slice(firstEnd + 1, pos);
      const body = end < 0 ? '' : noBom.slice(end + 1);
      return { yaml, yamlLine: 2, body, bodyLine: line + 1, eol };
    }
    if (end < 0) break;
    pos = end + 1;
    line += 1;
  }
  throw new FileFormatError(file, 1, 'frontmatter opened with "---" is never closed (expected a line "---")');
}

interface Line {
  no: number;
  indent: number;
  text: string; // without indentation, comment-stripped for structure lines
  raw: string;
}

function stripComment(s: string): string {
  // A `#` starts a comment at line start or after whitespace, outside quotes.
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      if (i === 0 || /[\s:[{,-]/.test(s[i - 1]!)) quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(s[i - 1]!))) return s.slice(0, i).trimEnd();
  }
  return s.trimEnd();
}

const KEY = /^([A-Za-z0-9_][A-Za-z0-9_.\- ]*?|"[^"]*"|'[^']*')\s*:(?:\s+(.*))?$|^([A-Za-z0-9_][A-Za-z0-9_.\- ]*?)\s*:$/;

class Parser {
  private lines: Line[] = [];
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly file: string,
    private readonly firstLine: number,
  ) {
    const rows = src.split('\n');
    if (rows.length && rows[rows.length - 1] === '') rows.pop();
    rows.forEach((raw0, n) => {
      const raw = raw0.endsWith('\r') ? raw0.slice(0, -1) : raw0;
      const m = /^( *)(.*)$/.exec(raw)!;
      if (/^\t/.test(m[2]!) && m[2]!.trim() !== '') this.fail(firstLine + n, 'tab used for indentation; use spaces');
      this.lines.push({ no: firstLine + n, indent: m[1]!.length, text: m[2]!, raw });
    });
  }

  fail(line: number, message: string): never {
    throw new FileFormatError(this.file, line, message);
  }

  private skipBlank(): void {
    while (this.i < this.lines.length) {
      const t = stripComment(this.lines[this.i]!.text);
      if (t !== '') return;
      this.i++;
    }
  }

  parseDocument(): { value: YamlMap; spans: Map<string, [number, number]> } {
    const spans = new Map<string, [number, number]>();
    this.skipBlank();
    if (this.i >= this.lines.length) return { value: {}, spans };
    const first = this.lines[this.i]!;
    if (first.indent !== 0) this.fail(first.no, 'frontmatter must start at column 1');
    const value = this.parseMap(0, spans);
    this.skipBlank();
    if (this.i < this.lines.length) {
      const l = this.lines[this.i]!;
      this.fail(l.no, `unexpected indentation (${l.indent} spaces) for "${l.text.trim()}"`);
    }
    return { value, spans };
  }

  private parseMap(indent: number, spans?: Map<string, [number, number]>): YamlMap {
    const out: YamlMap = {};
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent < indent) return out;
      if (l.indent > indent) this.fail(l.no, `unexpected indentation (${l.indent} spaces, expected ${indent})`);
      const text = stripComment(l.text);
      if (text.startsWith('- ') || text === '-') this.fail(l.no, 'a list item where a "key: value" line was expected');
      const m = KEY.exec(text);
      if (!m) this.fail(l.no, `expected "key: value", found "${text}"`);
      const key = unquoteKey((m[1] ?? m[3])!.trim());
      if (Object.prototype.hasOwnProperty.call(out, key)) this.fail(l.no, `duplicate key "${key}"`);
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') this.fail(l.no, `key "${key}" is not allowed`);
      const startIndex = this.i;
      this.i++;
      const rest = m[2];
      out[key] = this.parseValueAfterKey(rest, indent, l);
      if (spans) spans.set(key, [startIndex, this.i]);
    }
  }

  private parseValueAfterKey(rest: string | undefined, indent: number, l: Line): Yaml {
    if (rest === undefined || rest === '') {
      this.skipBlank();
      const next = this.lines[this.i];
      if (!next) return null;
      const nt = stripComment(next.text);
      if (next.indent > indent) {
        return nt.startsWith('- ') || nt === '-' ? this.parseSeq(next.indent) : this.parseMap(next.indent);
      }
      if (next.indent === indent && (nt.startsWith('- ') || nt === '-')) return this.parseSeq(indent);
      return null;
    }
    if (/^[|>][+-]?$/.test(rest)) return this.parseBlockScalar(rest, indent);
    return parseInline(rest, (msg) => this.fail(l.no, msg));
  }

  private parseBlockScalar(header: string, indent: number): string {
    const parts: string[] = [];
    let blockIndent = -1;
    while (this.i < this.lines.length) {
      const l = this.lines[this.i]!;
      if (l.text.trim() === '') {
        parts.push('');
        this.i++;
        continue;
      }
      if (l.indent <= indent) break;
      if (blockIndent < 0) blockIndent = l.indent;
      if (l.indent < blockIndent) break;
      parts.push(l.raw.slice(blockIndent));
      this.i++;
    }
    while (parts.length && parts[parts.length - 1] === '') parts.pop();
    const folded = header.startsWith('>') ? parts.join(' ').replace(/ {2,}/g, ' ') : parts.join('\n');
    return header.endsWith('-') ? folded : `${folded}\n`;
  }

  private parseSeq(indent: number): Yaml[] {
    const out: Yaml[] = [];
    for (;;) {
      this.skipBlank();
      const l = this.lines[this.i];
      if (!l || l.indent < indent) return out;
      const text = stripComment(l.text);
      if (l.indent > indent) this.fail(l.no, `unexpected indentation (${l.indent} spaces, expected ${indent})`);
      if (!(text.startsWith('- ') || text === '-')) return out;
      const item = text === '-' ? '' : text.slice(2).trim();
      const itemIndent = indent + (text === '-' ? 2 : text.length - text.slice(1).trimStart().length);
      if (item === '') {
        this.i++;
        this.skipBlank();
        const next = this.lines[this.i];
        if (next && next.indent > indent) {
          const nt = stripComment(next.text);
          out.push(nt.startsWith('- ') ? this.parseSeq(next.indent) : this.parseMap(next.indent));
        } else out.push(null);
        continue;
      }
      if (KEY.test(item) && !/^["'[{]/.test(item)) {
        // A mapping whose first key sits on the dash line: re-read it at its column.
        this.lines[this.i] = { no: l.no, indent: itemIndent, text: item, raw: l.raw };
        out.push(this.parseMap(itemIndent));
        continue;
      }
      this.i++;
      out.push(parseInline(item, (msg) => this.fail(l.no, msg)));
    }
  }
}

function unquoteKey(k: string): string {
  if ((k.startsWith('"') && k.endsWith('"')) || (k.startsWith("'") && k.endsWith("'"))) return k.slice(1, -1);
  return k;
}

/** Type a plain scalar. */
export function typeScalar(s: string): Yaml {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(s)) {
    const n = Number(s);
    if (Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && String(n) === s) return n;
  }
  return s;
}

function parseInline(src: string, fail: (msg: string) => never): Yaml {
  let i = 0;
  const ws = () => {
    while (i < src.length && (src[i] === ' ' || src[i] === '\t')) i++;
  };
  const value = (inFlow: boolean): Yaml => {
    ws();
    const c = src[i];
    if (c === '[') {
      i++;
      const arr: Yaml[] = [];
      ws();
      if (src[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(true));
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === ']') {
          i++;
          return arr;
        }
        fail(`unterminated or malformed inline list "${src}"`);
      }
    }
    if (c === '{') {
      i++;
      const obj: YamlMap = {};
      ws();
      if (src[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const k = src[i] === '"' || src[i] === "'" ? String(quoted()) : plain(true, true);
        ws();
        if (src[i] !== ':') fail(`expected ":" in inline mapping "${src}"`);
        i++;
        if (k === '__proto__' || k === 'constructor' || k === 'prototype') fail(`key "${k}" is not allowed`);
        obj[k] = value(true);
        ws();
        if (src[i] === ',') {
          i++;
          continue;
        }
        if (src[i] === '}') {
          i++;
          return obj;
        }
        fail(`unterminated or malformed inline mapping "${src}"`);
      }
    }
    if (c === '"' || c === "'") return quoted();
    return typeScalar(plain(inFlow, false));
  };
  const quoted = (): string => {
    const q = src[i]!;
    const start = i;
    i++;
    let out = '';
    while (i < src.length) {
      const ch = src[i]!;
      if (q === "'" && ch === "'" && src[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      if (ch === q) {
        i++;
        return out;
      }
      if (q === '"' && ch === '\\') {
        const e = src[i + 1] ?? '';
        const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/', '0': '\0' };
        if (e === 'u') {
          out += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16));
          i += 6;
          continue;
        }
        out += map[e] ?? e;
        i += 2;
        continue;
      }
      out += ch;
      i++;
    }
    fail(`unterminated quoted string ${src.slice(start)}`);
  };
  const plain = (inFlow: boolean, isKey: boolean): string => {
    const start = i;
    while (i < src.length) {
      const ch = src[i]!;
      if (inFlow && (ch === ',' || ch === ']' || ch === '}')) break;
      if (isKey && ch === ':') break;
      i++;
    }
    return src.slice(start, i).trim();
  };
  const v = value(false);
  ws();
  if (i < src.length) fail(`unexpected text after value: "${src.slice(i)}"`);
  return v;
}

export interface Frontmatter {
  data: YamlMap;
  /** Original text of each top-level key (its lines), for minimal rewrites. */
  rawByKey: Map<string, string>;
  split: Split;
}

/** Parse a whole Markdown file's frontmatter (empty map when it has none). */
export function readFrontmatter(text: string, file: string): Frontmatter {
  const split = splitFrontmatter(text, file);
  if (split.yaml === null) return { data: {}, rawByKey: new Map(), split };
  const parser = new Parser(split.yaml, file, split.yamlLine);
  const { value, spans } = parser.parseDocument();
  const rows = split.yaml.split('\n');
  const rawByKey = new Map<string, string>();
  for (const [key, [a, b]] of spans) {
    let end = b;
    while (end > a + 1 && (rows[end - 1] ?? '').trim() === '') end--;
    rawByKey.set(key, rows.slice(a, end).map((r) => r.replace(/\r$/, '')).join('\n'));
  }
  return { data: value, rawByKey, split };
}

export function parseYaml(text: string, file: string, firstLine = 1): YamlMap {
  return new Parser(text, file, firstLine).parseDocument().value;
}

// ---------------------------------------------------------------- writing

function needsQuotes(s: string): boolean {
  if (s === '') return true;
  if (typeScalar(s) !== s) return true; // would read back as number/bool/null
  // Would read back as a number or boolean in other YAML parsers (1.0, 01, 1e3, yes, off).
  if (/^[-+]?(\.\d+|\d[\d_]*(\.\d*)?)([eE][-+]?\d+)?$/.test(s) || /^(y|n|yes|no|on|off|\.inf|\.nan)$/i.test(s)) return true;
  if (/^[\s]|[\s]$/.test(s)) return true;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(s)) return true;
  if (/: |:$| #|[\n\r\t\0]/.test(s)) return true;
  if (/^\d{4}-\d{2}-\d{2}/.test(s)) return true; // dates and timestamps read as strings everywhere
  if (/[^\x20-\x7E\u00A0-\uFFFF]/.test(s)) return true;
  return false;
}

export function scalarText(v: string | number | boolean | null): string {
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return needsQuotes(v) ? JSON.stringify(v) : v;
}

function isScalar(v: Yaml): v is string | number | boolean | null {
  return v === null || typeof v !== 'object';
}

function emit(key: string, v: Yaml, indent: string, out: string[]): void {
  const k = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(key) ? key : JSON.stringify(key);
  if (isScalar(v)) {
    out.push(`${indent}${k}: ${scalarText(v)}`);
  } else if (Array.isArray(v)) {
    if (v.length === 0) out.push(`${indent}${k}: []`);
    else {
      out.push(`${indent}${k}:`);
      emitSeq(v, `${indent}  `, out);
    }
  } else {
    const keys = Object.keys(v);
    if (keys.length === 0) out.push(`${indent}${k}: {}`);
    else {
      out.push(`${indent}${k}:`);
      for (const sub of keys) emit(sub, v[sub]!, `${indent}  `, out);
    }
  }
}

function emitSeq(items: Yaml[], indent: string, out: string[]): void {
  for (const item of items) {
    if (isScalar(item)) out.push(`${indent}- ${scalarText(item)}`);
    else if (Array.isArray(item)) {
      if (item.length === 0) out.push(`${indent}- []`);
      else {
        out.push(`${indent}-`);
        emitSeq(item, `${indent}  `, out);
      }
    } else {
      const sub: string[] = [];
      for (const key of Object.keys(item)) emit(key, item[key]!, `${indent}  `, sub);
      if (sub.length === 0) out.push(`${indent}- {}`);
      else {
        sub[0] = `${indent}- ${sub[0]!.slice(indent.length + 2)}`;
        out.push(...sub);
      }
    }
  }
}

/** Serialise a mapping as frontmatter lines (no fences). */
export function stringifyYaml(data: YamlMap, original?: Frontmatter): string {
  const out: string[] = [];
  for (const key of Object.keys(data)) {
    const v = data[key]!;
    const raw = original?.rawByKey.get(key);
    if (raw !== undefined && deepEqual(original!.data[key] ?? null, v, { orderedKeys: true })) out.push(raw);
    else emit(key, v, '', out);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/** Rebuild a file from new frontmatter data and a body. */
export function withFrontmatter(data: YamlMap, body: string, original?: Frontmatter): string {
  const eol = original?.split.eol ?? '\n';
  const yaml = stringifyYaml(data, original);
  const block = `---\n${yaml}---\n`;
  return (eol === '\r\n' ? block.replace(/\n/g, '\r\n') : block) + body;
}
