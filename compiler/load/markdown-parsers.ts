// remark, loaded only when a build needs it: for a router's table not in the
// node memo and for the outline `gsd-build ir` shows. Loading it costs about
// as much as the rest of a one-file rebuild, and most rebuilds need neither.
// remark is ES modules only, so it is loaded asynchronously (loadMarkdown)
// before the synchronous parse that uses it (markdownParsers).
import type { Processor } from 'unified';

export interface MarkdownParsers {
  /** CommonMark + GFM (router tables). */
  gfm: Processor;
  /** CommonMark with YAML frontmatter and no inline constructs (the outline). */
  blocks: Processor;
}

/** Inline constructs the outline switches off: it takes only block structure (frontmatter, headings, code). */
const INLINE_CONSTRUCTS = ['attention', 'autolink', 'characterEscape', 'characterReference', 'codeText', 'hardBreakEscape', 'htmlText', 'labelStartImage', 'labelStartLink', 'labelEnd'];

let loaded: MarkdownParsers | null = null;

/** Thrown by markdownParsers before loadMarkdown: the caller loads it and runs again (withMarkdown). */
export class MarkdownNotLoaded extends Error {}

export async function loadMarkdown(): Promise<void> {
  if (loaded) return;
  const [{ unified }, { default: remarkParse }, { default: remarkGfm }, { default: remarkFrontmatter }] = await Promise.all([import('unified'), import('remark-parse'), import('remark-gfm'), import('remark-frontmatter')]);
  loaded = {
    gfm: unified().use(remarkParse).use(remarkGfm).freeze() as unknown as Processor,
    blocks: unified()
      .use(remarkParse)
      .use(remarkFrontmatter, ['yaml'])
      .use(function disableInlineConstructs(this: { data: () => unknown }) {
        const data = this.data() as { micromarkExtensions?: unknown[] };
        (data.micromarkExtensions ??= []).push({ disable: { null: INLINE_CONSTRUCTS } });
      })
      .freeze() as unknown as Processor,
  };
}

export function markdownParsers(): MarkdownParsers {
  if (!loaded) throw new MarkdownNotLoaded('internal: remark was used before loadMarkdown()');
  return loaded;
}

/** Runs `run`; when it needed remark before it was loaded, loads it and runs `run` again (it must be safe to repeat). */
export async function withMarkdown<T>(run: () => T): Promise<T> {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof MarkdownNotLoaded)) throw error;
    await loadMarkdown();
    return run();
  }
}
