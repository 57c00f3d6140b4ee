// Small builders for the Markdown trees the site pages are made of. Every
// string passed here is text, never Markdown: nothing needs escaping.
import type { BlockContent, Heading, Link, List, ListItem, Paragraph, PhrasingContent, RootContent, Table, TableCell, Text } from 'mdast';
import type { ElementContent, Properties } from 'hast';

export type Inline = string | PhrasingContent;
export type Cell = Inline | readonly Inline[];

export function text(value: string): Text {
  return { type: 'text', value };
}

function phrasing(items: readonly Inline[]): PhrasingContent[] {
  return items.map((item) => (typeof item === 'string' ? text(item) : item));
}

export function code(value: string): PhrasingContent {
  return { type: 'inlineCode', value };
}

export function strong(...children: Inline[]): PhrasingContent {
  return { type: 'strong', children: phrasing(children) };
}

export function link(url: string, ...children: Inline[]): Link {
  return { type: 'link', url, children: phrasing(children) };
}

export function paragraph(...children: Inline[]): Paragraph {
  return { type: 'paragraph', children: phrasing(children) };
}

/** A heading with an id, so other pages and the table of contents can point at it. */
export function heading(depth: 2 | 3 | 4, id: string, ...children: Inline[]): Heading {
  return { type: 'heading', depth, children: phrasing(children), data: { hProperties: { id } } };
}

export function codeBlock(value: string, lang: string | null = null): BlockContent {
  return { type: 'code', lang, value };
}

export function list(items: readonly (readonly Inline[] | BlockContent[])[]): List {
  return {
    type: 'list',
    ordered: false,
    spread: false,
    children: items.map((item): ListItem => {
      const blocks = item.length > 0 && isBlock(item[0]!) ? (item as BlockContent[]) : [paragraph(...(item as Inline[]))];
      return { type: 'listItem', spread: false, children: blocks };
    }),
  };
}

function isBlock(item: Inline | BlockContent): item is BlockContent {
  return typeof item !== 'string' && ['paragraph', 'list', 'code', 'table', 'heading', 'blockquote'].includes(item.type);
}

/** Inlines joined with a separator, e.g. links joined by ", ". */
export function joined(items: readonly Inline[], separator = ', '): Inline[] {
  return items.flatMap((item, index) => (index === 0 ? [item] : [separator, item]));
}

export function table(header: readonly string[], rows: readonly (readonly Cell[])[], align: ('left' | 'right' | null)[] = []): Table {
  const cell = (value: Cell): TableCell => ({ type: 'tableCell', children: phrasing(typeof value === 'string' || !Array.isArray(value) ? [value as Inline] : (value as Inline[])) });
  return {
    type: 'table',
    align: header.map((_, column) => align[column] ?? null),
    children: [header, ...rows].map((row) => ({ type: 'tableRow', children: row.map(cell) })),
  };
}

/** A block that becomes the given HTML element as is (charts, the search box). */
export function element(tagName: string, properties: Properties, children: ElementContent[]): RootContent {
  return { type: 'paragraph', children: [], data: { hName: tagName, hProperties: properties, hChildren: children } };
}
