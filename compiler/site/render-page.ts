// Stage 2: a page's Markdown tree → HTML, through remark-rehype, the layout
// and rehype-stringify. Corpus HTML never reaches here as HTML (see
// remark-show-prompt-tags.ts), so no raw HTML is allowed through.
import { unified } from 'unified';
import remarkRehype from 'remark-rehype';
import rehypeStringify from 'rehype-stringify';
import type { Root } from 'mdast';
import type { Root as HastRoot } from 'hast';
import type { Page } from './site-types.ts';
import { rehypeWrapInLayout } from './layout.ts';

export function renderPage(page: Page, version: string): string {
  const processor = unified().use(remarkRehype).use(rehypeWrapInLayout, { page, version }).use(rehypeStringify);
  const tree = processor.runSync({ type: 'root', children: page.content } as Root) as HastRoot;
  return `${processor.stringify(tree)}\n`;
}
