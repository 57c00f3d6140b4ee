// Where each IR node's page lives, and links between pages: always relative,
// so the site works from file:// and from any folder of any static host.
import path from 'node:path';
import type { Link, PhrasingContent } from 'mdast';
import type { IrNode, NodeKind } from '../ir/types.ts';
import type { IncomingEdge, SiteContext, SiteInput } from './site-types.ts';
import { code, link } from './util/mdast.ts';

const FOLDERS: Record<NodeKind, string> = {
  command: 'commands',
  workflow: 'workflows',
  step: 'steps',
  mode: 'modes',
  agent: 'agents',
  reference: 'references',
  template: 'templates',
  hook: 'hooks',
};

export function siteContext(input: SiteInput): SiteContext {
  const nodes = [...input.ir.nodes].sort((a, b) => compare(a.id, b.id));
  const pageOf = new Map<string, string>();
  const taken = new Set<string>();
  for (const node of nodes) {
    const stem = `${FOLDERS[node.kind]}/${node.name.split('/').map(safeSegment).join('/')}`;
    let page = `${stem}.html`;
    for (let n = 2; taken.has(page); n += 1) page = `${stem}-${n}.html`;
    taken.add(page);
    pageOf.set(node.id, page);
  }
  const incoming = new Map<string, IncomingEdge[]>();
  for (const node of nodes) {
    for (const edge of node.edges) {
      if (!edge.resolved || !pageOf.has(edge.resolved)) continue;
      const list = incoming.get(edge.resolved) ?? [];
      list.push({ from: node, edge });
      incoming.set(edge.resolved, list);
    }
  }
  return { input, byId: new Map(nodes.map((node) => [node.id, node])), byPath: new Map(nodes.map((node) => [node.path, node])), pageOf, incoming };
}

function safeSegment(segment: string): string {
  return segment.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^\.+/, '_') || '_';
}

/** Code-point order: the same on every machine, whatever its locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The URL of `to` (a site path, maybe with #fragment) as seen from the page at `from`. */
export function relativeUrl(from: string, to: string): string {
  const [target, fragment] = to.split('#') as [string, string | undefined];
  const relative = path.posix.relative(path.posix.dirname(from), target) || path.posix.basename(target);
  return fragment === undefined ? relative : `${relative}#${fragment}`;
}

/** `../` repeated up to the site root from a page. */
export function rootPrefix(from: string): string {
  return '../'.repeat(from.split('/').length - 1);
}

/** A link to a node's page, or its name as code when it has none. */
export function nodeLink(context: SiteContext, from: string, id: string, label?: string): PhrasingContent {
  const node = context.byId.get(id);
  const page = context.pageOf.get(id);
  const text = label ?? node?.name ?? id.replace(/^[a-z]+:/, '');
  return page ? (link(relativeUrl(from, page), code(text)) as Link) : code(text);
}

/**
 * Resolves a link written in a corpus file to its page. Outside addresses and
 * links to files without a page resolve to null (their text stays): the site
 * links only to itself.
 */
export function corpusLinkResolver(context: SiteContext, node: IrNode, from: string): (url: string) => string | null {
  return (url) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('#') || url.startsWith('/')) return null;
    const file = path.posix.normalize(path.posix.join(path.posix.dirname(node.path), safeDecode(url.split('#')[0]!)));
    const target = context.byPath.get(file);
    return target ? relativeUrl(from, context.pageOf.get(target.id)!) : null;
  };
}

function safeDecode(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
