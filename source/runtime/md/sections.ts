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
  // No list yet: heading, blank, item, blank.
  let at = start;
  while (at < end && body.lines[at]!.trim() === '') at++;
  const rest = trimEnd(body.lines, start, end);
  if (rest > start) at = rest; // text before the list: put the list after it
  const block = at === start || body.lines[at - 1]!.trim() !== '' ? ['', `- ${item}`] : [`- ${item}`];
  if (at === start) block.shift();
  if (at >= end || body.lines[at]?.trim() !== '') block.push('');
  body.lines.splice(at === start && body.lines[start]?.trim() === '' ? start + 1 : at, 0, ...block);
}

/** Remove the first bullet in range whose text contains `needle` (case-insensitive). */
export function removeBullet(body: Doc, range: [number, number], needle: string, placeholder = 'None.'): string | null {
  const [start, end] = range;
  const want = needle.toLowerCase();
  for (const i of bulletLines(body.lines, start, end)) {
    const text = body.lines[i]!.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '');
    if (!text.toLowerCase().includes(want)) continue;
    body.lines.splice(i, 1);
    if (bulletLines(body.lines, start, end - 1).length === 0) {
      const stillText = body.lines.slice(start, end - 1).some((l) => l.trim() !== '');
      if (!stillText) body.lines.splice(start, 0, ...(body.lines[start]?.trim() === '' ? ['', placeholder] : [placeholder]));
    }
    return text;
  }
  return null;
}
