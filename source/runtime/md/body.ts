// Line-level access to Markdown bodies: headings and their sections, code
// fences, and the three ways a STATE-style field is written:
//   **Name:** value      (also **Name**: value)
//   Name: value          (at line start, any case)
//   | Name | value |     (a two-column table row)
// Edits replace only the value part of one line, so hand-written files keep
// their shape.

export interface Doc {
  lines: string[];
  eol: string;
  /** True when the text ended with a newline. */
  trailingNewline: boolean;
}

export function toDoc(text: string): Doc {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const trailingNewline = text.endsWith('\n');
  const body = trailingNewline ? text.slice(0, text.endsWith('\r\n') ? -2 : -1) : text;
  const lines = body === '' && !trailingNewline ? [] : body.split(/\r?\n/);
  return { lines, eol, trailingNewline };
}

export function fromDoc(doc: Doc): string {
  return doc.lines.join(doc.eol) + (doc.trailingNewline || doc.lines.length ? doc.eol : '');
}

/** For each line: is it inside (or a delimiter of) a fenced code block? */
export function fenceMask(lines: string[]): boolean[] {
  const mask: boolean[] = [];
  let open: { ch: string; len: number } | null = null;
  for (const line of lines) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      mask.push(true);
      if (m && m[1]![0] === open.ch && m[1]!.length >= open.len && m[2]!.trim() === '') open = null;
    } else if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) {
      open = { ch: m[1]![0]!, len: m[1]!.length };
      mask.push(true);
    } else mask.push(false);
  }
  return mask;
}

export interface Heading {
  index: number;
  level: number;
  text: string;
}

export function headings(lines: string[], mask = fenceMask(lines)): Heading[] {
  const out: Heading[] = [];
  lines.forEach((line, index) => {
    if (mask[index]) return;
    const m = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.push({ index, level: m[1]!.length, text: m[2]! });
  });
  return out;
}

/** [start, end) line range of the section under the heading at `h` (heading line excluded). */
export function sectionRange(lines: string[], h: Heading, all = headings(lines)): [number, number] {
  const next = all.find((o) => o.index > h.index && o.level <= h.level);
  return [h.index + 1, next ? next.index : lines.length];
}

export function findHeading(lines: string[], test: (h: Heading) => boolean): Heading | undefined {
  return headings(lines).find(test);
}

export function normName(s: string): string {
  return s.toLowerCase().replace(/[\s_-]+/g, ' ').trim();
}

export interface FieldMatch {
  index: number;
  name: string;
  value: string;
  /** Text before the value, kept on replacement. */
  prefix: string;
  /** Text after the value (table row closing pipe), kept on replacement. */
  suffix: string;
  style: 'bold' | 'plain' | 'table';
}

const BOLD = /^(\s*(?:[-*]\s+)?\*\*([^*]+?)(?::\*\*|\*\*\s*:)[ \t]*)(.*)$/;
const PLAIN = /^(([A-Za-z][A-Za-z0-9 _./()-]{0,60}?):[ \t]*)(.*)$/;
const TABLE = /^(\|\s*([^|]+?)\s*\|\s*)([^|]*?)(\s*\|\s*)$/;

/** Find a field by name (case-, space-, `-`/`_`-insensitive) in lines [from, to). */
export function findField(lines: string[], name: string, from = 0, to = lines.length, mask = fenceMask(lines)): FieldMatch | null {
  const want = normName(name);
  const styles: [RegExp, FieldMatch['style']][] = [
    [BOLD, 'bold'],
    [PLAIN, 'plain'],
    [TABLE, 'table'],
  ];
  for (const [re, style] of styles) {
    for (let i = from; i < to; i++) {
      if (mask[i]) continue;
      const m = re.exec(lines[i]!);
      if (!m || normName(m[2]!) !== want) continue;
      if (style === 'table' && /^[-:\s]+$/.test(m[3]!)) continue;
      return { index: i, name: m[2]!.trim(), prefix: m[1]!, value: m[3]!.trim(), suffix: style === 'table' ? m[4]! : '', style };
    }
  }
  return null;
}

/** The line with `match`'s value replaced. */
export function replaceFieldValue(match: FieldMatch, value: string): string {
  const safe = value.replace(/\r?\n/g, ' ');
  return `${match.prefix}${match.style === 'table' ? safe.replace(/\|/g, '\\|') : safe}${match.suffix}`;
}

/** Lines of a bullet list ("- x" / "* x" / "1. x") inside [from, to). */
export function bulletLines(lines: string[], from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) if (/^\s*(?:[-*+]|\d+[.)])\s+/.test(lines[i]!)) out.push(i);
  return out;
}

/** Placeholder lines such as "None yet.", "- None", "(none)", "_None._". */
export function isPlaceholder(line: string): boolean {
  return /^\s*(?:[-*]\s+)?[_*(]*\s*(?:none|nothing|n\/a|tbd)(?:\s+(?:yet|so far|recorded|logged|currently))?\s*[.!]?\s*[_*)]*\s*$/i.test(line);
}
