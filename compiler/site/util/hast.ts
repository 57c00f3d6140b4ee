// A tiny hyperscript for the few elements the site writes itself (layout, SVG).
import type { Element, ElementContent, Properties, Text } from 'hast';

export type Child = ElementContent | string | null | undefined | false;

/** Property values as hast-util-to-html reads them (hast's own typing is narrower per name). */
export type LooseProperties = Record<string, string | number | boolean | string[] | null | undefined>;

export function h(tagName: string, properties: LooseProperties = {}, ...children: (Child | Child[])[]): Element {
  const content: ElementContent[] = [];
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    content.push(typeof child === 'string' ? hastText(child) : child);
  }
  return { type: 'element', tagName, properties: properties as Properties, children: content };
}

export function hastText(value: string): Text {
  return { type: 'text', value };
}
