// Corpus Markdown → a Markdown tree ready for a page: remark-parse with GFM,
// then the site's two transforms (prompt tags shown, links resolved).
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import type { Root, RootContent, PhrasingContent } from 'mdast';
import { remarkShowPromptTags, TAG_LINE } from './remark-show-prompt-tags.ts';
import { remarkResolveLinks, type ResolveLinksOptions } from './remark-resolve-links.ts';

const parser = unified().use(remarkParse).use(remarkGfm).freeze();
const parse = (markdown: string) => parser.parse(separateTagLines(markdown)) as Root;

/**
 * Puts blank lines around each line that is only a tag or a comment, outside
 * code fences, so Markdown sees it as a block of its own: `</context>` after
 * prose would otherwise end that paragraph's text, and `<step name="x">`
 * would swallow the prose under it as HTML.
 */
export function separateTagLines(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const delimiter = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (delimiter && (fence === null || (delimiter[0] === fence[0] && delimiter.length >= fence.length && line.trim() === delimiter))) {
      fence = fence === null ? delimiter : null;
      out.push(line);
    } else if (fence === null && (TAG_LINE.test(line) || /^\s*<!--.*-->\s*$/.test(line))) {
      out.push('', line, '');
    } else {
      out.push(line);
    }
  }
  return out.join('\n');
}

/** Block content for a page; `resolve` maps a link in the document to a site URL or null. */
export function markdownBlocks(markdown: string, resolve: ResolveLinksOptions['resolve']): RootContent[] {
  const processor = unified().use(remarkShowPromptTags, { parse }).use(remarkResolveLinks, { resolve });
  const tree = processor.runSync(parse(markdown)) as Root;
  return tree.children;
}

/** A one-paragraph text (a description) as inline content; anything more stays blocks. */
export function markdownInline(markdown: string, resolve: ResolveLinksOptions['resolve']): PhrasingContent[] | null {
  const blocks = markdownBlocks(markdown, resolve);
  return blocks.length === 1 && blocks[0]!.type === 'paragraph' ? blocks[0].children : null;
}
