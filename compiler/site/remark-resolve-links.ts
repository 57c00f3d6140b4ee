// Links and images inside corpus Markdown: a relative link to another corpus
// file points at that file's page; any other link becomes its plain text.
// Images never load (the site makes no request): their alt text stays.
import type { Parent, PhrasingContent, Root, RootContent } from 'mdast';

export interface ResolveLinksOptions {
  /** The site URL for a link written in the document, or null when it has no page. */
  resolve: (url: string) => string | null;
}

export function remarkResolveLinks(options: ResolveLinksOptions) {
  return (tree: Root) => rewrite(tree, options);
}

function rewrite(parent: Parent, options: ResolveLinksOptions): void {
  const children: RootContent[] = [];
  for (const child of parent.children as RootContent[]) {
    if (child.type === 'image' || child.type === 'imageReference') {
      if (child.alt) children.push({ type: 'text', value: child.alt });
      continue;
    }
    if (child.type === 'definition') {
      const url = options.resolve(child.url);
      if (url !== null) children.push({ ...child, url });
      continue;
    }
    if ('children' in child) rewrite(child as Parent, options);
    if (child.type === 'link') {
      const url = options.resolve(child.url);
      if (url === null) children.push(...(child.children as PhrasingContent[]));
      else children.push({ ...child, url });
      continue;
    }
    children.push(child);
  }
  parent.children = children as Parent['children'];
}
