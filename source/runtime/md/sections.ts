// Editing helpers for list-shaped sections of a Markdown body: make sure a
// heading exists, append a bullet (dropping "None yet." placeholders), remove
// a bullet, add or replace a table row.
import { bulletLines, findHeading, headings, isPlaceholder, sectionRange, type Doc } from './body.ts';

export interface HeadingSpec {
  re: RegExp;
  title: string;
  level: number;
}

function trimEnd(lines: string[], from: number, to: number): number {
  let end = to;
  while (end > from && lines[end - 1]!.trim() === '') end--;
  return end;
}

/** Range [start, end) of the section under `spec`, creating the heading if needed. */
export function ensureSection(body: Doc, spec: HeadingSpec, parent?: HeadingSpec): [number, number] {
  const hs = headings(body.lines);
  const found = hs.find((h) => h.level === spec.level && spec.re.test(h.text));
  if (found) return sectionRange(body.lines, found, hs);
  let insertAt = body.lines.length;
  if (parent) {
    const [, pend] = ensureSection(body, parent);
    insertAt = trimEnd(body.lines, 0, pend);
  } else insertAt = trimEnd(body.lines, 0, body.lines.length);
  const block = ['', `${'#'.repeat(spec.level)} ${spec.title}`, ''];
  if (insertAt === 0) block.shift();
  body.lines.splice(insertAt, 0, ...block);
  while (body.lines[insertAt + block.length] === '' && block[block.length - 1] === '') body.lines.splice(insertAt + block.length, 1);
  const h = findHeading(body.lines, (x) => x.level === spec.level && spec.re.test(x.text))!;
  return sectionRange(body.lines, h);
}

/** Append `item` as a bullet at the end of the list in [start, end); placeholders are removed. */
export function appendBullet(body: Doc, range: [number, number], item: string): void {
  let [start, end] = range;
  for (let i = end - 1; i >= start; i--) {
    if (isPlaceholder(body.lines[i]!)) {
      body.lines.splice(i, 1);
      end--;
    }
  }
  const bullets = bulletLines(body.lines, start, end);
  if (bullets.length) {
    let at = bullets[bullets.length - 1]! + 1;
    while (at < end && /^\s{2,}\S/.test(body.lines[at]!)) at++; // continuation lines
    body.lines.splice(at, 0, `- ${item}`);
    return;
  }
  // No list yet: after any text in the section, one blank line either side.
  replaceTail(body, start, end, [`- ${item}`]);
}

/** Replace the blank tail of section [start, end) with a blank line, `items`, and a blank line before what follows. */
export function replaceTail(body: Doc, start: number, end: number, items: string[]): void {
  const textEnd = trimEnd(body.lines, start, end);
  const block = ['', ...items];
  if (end < body.lines.length) block.push('');
  body.lines.splice(textEnd, end - textEnd, ...block);
}

/** Remove the first bullet in range whose text contains `needle` (case-insensitive). */
export function removeBullet(body: Doc, range: [number, number], needle: string, placeholder = 'None.'): string | null {
  const [start, end] = range;
  const want = needle.toLowerCase();
  for (const i of bulletLines(body.lines, start, end)) {
    const text = body.lines[i]!.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '');
    if (!text.toLowerCase().includes(want)) continue;
    body.lines.splice(i, 1);
    if (bulletLines(body.lines, start, end - 1).length === 0 && trimEnd(body.lines, start, end - 1) === start) {
      replaceTail(body, start, end - 1, [placeholder]);
    }
    return text;
  }
  return null;
}
