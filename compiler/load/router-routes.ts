// A router's table, read as structure: the remark (GFM) table of a router
// command gives each row's route cell (`gsd-<stem> [--flags]`), the header
// cell above them, and the paragraph after the table that says how to use a
// row. These become rewrite spans, so a nested layout can render a row as a
// read of the routed file (compose/rewrite-spans.ts) without any
// pattern run over rendered text.
import type { Root, RootContent, Table, TableCell } from 'mdast';
import type { RewriteSpan } from '../ir/types.ts';
import { markdownParsers } from './markdown-parsers.ts';

const offsets = (node: { position?: { start: { offset?: number }; end: { offset?: number } } }) => ({ start: node.position?.start.offset ?? 0, end: node.position?.end.offset ?? 0 });

/** The cell's text as written (between its pipes, trimmed), with its offsets in `text`. */
function cellSpan(text: string, cell: TableCell): { start: number; end: number; content: string } | null {
  const first = cell.children[0];
  const last = cell.children[cell.children.length - 1];
  if (!first || !last) return null;
  const start = offsets(first).start;
  const end = offsets(last).end;
  return { start, end, content: text.slice(start, end) };
}

/**
 * Route spans of one router's body (`bodyStart`: where the body begins in
 * `text`). A route cell is `gsd-<stem>` optionally in backticks, then flags;
 * its span value is `<stem>` or `<stem> <flags>`.
 */
export function routerSpans(text: string, bodyStart: number): RewriteSpan[] {
  const body = text.slice(bodyStart);
  const tree = markdownParsers().gfm.parse(body) as Root;
  const index = tree.children.findIndex((node) => node.type === 'table');
  if (index < 0) return [];
  const table = tree.children[index] as Table;
  const spans: RewriteSpan[] = [];
  const shift = (span: { start: number; end: number }) => ({ start: span.start + bodyStart, end: span.end + bodyStart });
  const [header, ...rows] = table.children;
  const headerCell = header?.children[header.children.length - 1];
  const headerSpan = headerCell ? cellSpan(body, headerCell) : null;
  if (headerSpan) spans.push({ kind: 'route-header', ...shift(headerSpan), value: headerSpan.content });
  for (const row of rows) {
    const cell = row.children[row.children.length - 1];
    const span = cell ? cellSpan(body, cell) : null;
    if (!span) continue;
    const words = span.content.replaceAll('`', '').split(' ').filter(Boolean);
    const command = words[0];
    if (!command?.startsWith('gsd-')) continue;
    spans.push({ kind: 'route', ...shift(span), value: [command.slice('gsd-'.length), ...words.slice(1)].join(' ') });
  }
  const after: RootContent | undefined = tree.children[index + 1];
  if (after?.type === 'paragraph') {
    const { start, end } = offsets(after);
    spans.push({ kind: 'route-instruction', ...shift({ start, end }), value: body.slice(start, end) });
  }
  return spans;
}
