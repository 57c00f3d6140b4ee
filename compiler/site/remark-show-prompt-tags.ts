// GSD prompts wrap their prose in XML-like tags (<role>, <step name="x">, ...).
// As raw HTML they would swallow the prose or vanish; here each tag line shows
// as a small label, the prose between tags is parsed as Markdown again, inline
// HTML shows as text, and gsd: markers show as notes. No corpus HTML reaches
// the page as HTML.
import type { BlockContent, Html, Parent, Root, RootContent } from 'mdast';

/** A line that is one opening or closing tag (names may hold `_`, which HTML's do not). */
export const TAG_LINE = /^\s*<\/?[A-Za-z][\w:.-]*(?:\s[^<>]*)?\/?>\s*$/;
const FLOW_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);
/** How deep prose inside tags is re-parsed before what is left shows as code. */
const MAX_DEPTH = 4;

export interface ShowPromptTagsOptions {
  /** Parses a piece of Markdown into a tree (the same processor, before this transform). */
  parse: (markdown: string) => Root;
}

export function remarkShowPromptTags(options: ShowPromptTagsOptions) {
  return (tree: Root) => rewriteChildren(tree, options, 0);
}

function rewriteChildren(parent: Parent, options: ShowPromptTagsOptions, depth: number): void {
  const flow = FLOW_PARENTS.has(parent.type);
  const children: RootContent[] = [];
  for (const child of parent.children as RootContent[]) {
    const alone = child.type === 'paragraph' && child.children.length === 1 ? child.children[0]! : null;
    if (alone && (alone.type === 'text' || alone.type === 'html') && TAG_LINE.test(alone.value)) {
      children.push(note('tag', alone.value.trim()));
    } else if (child.type !== 'html') {
      if ('children' in child) rewriteChildren(child as Parent, options, depth);
      children.push(child);
    } else if (flow) {
      children.push(...flowHtml(child, options, depth));
    } else {
      children.push({ type: 'text', value: child.value });
    }
  }
  parent.children = children as Parent['children'];
}

/** A block of raw HTML: tag lines become labels, markers notes, the rest Markdown. */
function flowHtml(node: Html, options: ShowPromptTagsOptions, depth: number): BlockContent[] {
  const blocks: BlockContent[] = [];
  let prose: string[] = [];
  const flush = () => {
    if (prose.join('').trim() !== '') blocks.push(...reparse(prose.join('\n'), options, depth));
    prose = [];
  };
  const lines = node.value.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trimStart().startsWith('<!--')) {
      flush();
      let comment = line;
      while (!comment.includes('-->') && index + 1 < lines.length) comment += `\n${lines[++index]}`;
      const marker = /^\s*<!--\s*(\/?gsd:[\s\S]*?)\s*-->\s*$/.exec(comment);
      if (marker) blocks.push(note('marker', marker[1]!.replace(/\s+/g, ' ')));
    } else if (TAG_LINE.test(line)) {
      flush();
      blocks.push(note('tag', line.trim()));
    } else {
      prose.push(line);
    }
  }
  flush();
  return blocks;
}

function reparse(markdown: string, options: ShowPromptTagsOptions, depth: number): BlockContent[] {
  const tree = options.parse(markdown);
  const only = tree.children.length === 1 ? tree.children[0] : undefined;
  // HTML that is not made of tag lines (e.g. <div>…</div> on one line) is shown as written.
  if (depth >= MAX_DEPTH || (only?.type === 'html' && only.value.trim() === markdown.trim())) {
    return [{ type: 'code', lang: null, value: markdown }];
  }
  rewriteChildren(tree, options, depth + 1);
  return tree.children as BlockContent[];
}

function note(kind: 'tag' | 'marker', value: string): BlockContent {
  return { type: 'paragraph', children: [{ type: 'inlineCode', value }], data: { hProperties: { className: [kind] } } };
}
