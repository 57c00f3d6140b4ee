// Parts every node page shares: its description, the links from and to it
// (the reference graph), its size against its budget, and its source.
import type { Nodes, RootContent } from 'mdast';
import type { EdgeKind, IrNode } from '../ir/types.ts';
import type { SiteContext } from './site-types.ts';
import { corpusLinkResolver, nodeLink, relativeUrl } from './site-context.ts';
import { markdownBlocks } from './parse-markdown.ts';
import { code, codeBlock, heading, joined, link, list, paragraph, table, type Inline } from './util/mdast.ts';

const EDGE_LABELS: Record<EdgeKind, { from: string; to: string }> = {
  include: { from: 'Loads with it (@-include)', to: 'loads it (@-include)' },
  read: { from: 'Reads when needed', to: 'reads it' },
  spawn: { from: 'Spawns agents', to: 'spawns it' },
  slash: { from: 'Mentions commands', to: 'mentions it' },
  skill: { from: 'Runs as a skill', to: 'runs it as a skill' },
  requires: { from: 'Requires commands', to: 'requires it' },
};
const EDGE_ORDER: EdgeKind[] = ['include', 'read', 'spawn', 'skill', 'requires', 'slash'];

/** The text after the frontmatter. */
export function bodyOf(node: IrNode): string {
  return node.text.slice(node.body.start);
}

/** A node's description as Markdown: its frontmatter's, its hook entry's, else its first paragraph as text. */
export function descriptionOf(context: SiteContext, node: IrNode): { markdown: string | null; text: string } {
  let description = descriptions.get(node);
  if (!description) descriptions.set(node, (description = describe(context, node)));
  return description;
}

const descriptions = new WeakMap<IrNode, { markdown: string | null; text: string }>();

function describe(context: SiteContext, node: IrNode): { markdown: string | null; text: string } {
  const declared = node.frontmatter?.data?.['description'];
  if (typeof declared === 'string' && declared.trim() !== '') return { markdown: declared, text: declared.replace(/\s+/g, ' ').trim() };
  if (node.kind === 'hook') {
    const entry = context.input.hooks.find((hook) => node.path.endsWith(`/${hook.entry}`));
    if (entry?.description) return { markdown: entry.description, text: entry.description };
    const comment = /^(?:\/\/[^\n]*\n)+/.exec(node.text)?.[0];
    if (comment) return { markdown: null, text: comment.replace(/^\/\/ ?/gm, '').replace(/\s+/g, ' ').trim() };
  }
  if (!node.path.endsWith('.md')) return { markdown: null, text: '' };
  const first = bodyBlocks(context, node).find((block) => block.type === 'paragraph' && !block.data?.hProperties);
  return { markdown: null, text: first ? plainText(first).replace(/\s+/g, ' ').trim() : '' };
}

/** The body as page blocks, parsed once per node (the description and the source section share it). */
function bodyBlocks(context: SiteContext, node: IrNode): RootContent[] {
  let blocks = parsedBodies.get(node);
  if (!blocks) parsedBodies.set(node, (blocks = markdownBlocks(bodyOf(node), corpusLinkResolver(context, node, context.pageOf.get(node.id)!))));
  return blocks;
}

const parsedBodies = new WeakMap<IrNode, RootContent[]>();

export function plainText(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
  return '';
}

/** Search summaries stay short. */
export function summaryOf(text: string, max = 240): string {
  const points = [...text];
  return points.length <= max ? text : `${points.slice(0, max - 1).join('').trimEnd()}…`;
}

export function descriptionBlocks(context: SiteContext, node: IrNode, from: string): RootContent[] {
  const { markdown, text } = descriptionOf(context, node);
  if (markdown !== null) return markdownBlocks(markdown, corpusLinkResolver(context, node, from));
  return text ? [paragraph(text)] : [];
}

/** Outgoing edges grouped by kind, each target once with the lines it appears on. */
export function linksFrom(context: SiteContext, node: IrNode, from: string): RootContent[] {
  if (node.edges.length === 0) return [];
  const blocks: RootContent[] = [heading(2, 'links-from', 'Links from this file')];
  for (const kind of EDGE_ORDER) {
    const edges = node.edges.filter((edge) => edge.kind === kind);
    if (edges.length === 0) continue;
    const targets = new Map<string, { resolved: string | null; external: boolean; lines: number[] }>();
    for (const edge of edges) {
      const entry = targets.get(edge.target) ?? { resolved: edge.resolved, external: edge.external ?? false, lines: [] };
      entry.lines.push(edge.line);
      targets.set(edge.target, entry);
    }
    blocks.push(paragraph(EDGE_LABELS[kind].from));
    blocks.push(
      list(
        [...targets].map(([target, entry]) => {
          const where = ` (line${entry.lines.length > 1 ? 's' : ''} ${entry.lines.join(', ')})`;
          if (entry.resolved && context.pageOf.has(entry.resolved)) return [nodeLink(context, from, entry.resolved), where];
          const note = entry.external ? ', outside the bundle' : entry.resolved?.startsWith('generated:') ? ', built by the compiler' : entry.resolved ? '' : ', names nothing';
          return [code(target), `${where.slice(0, -1)}${note})`];
        }),
      ),
    );
  }
  return blocks;
}

/** Incoming edges: who loads, reads, spawns or mentions this node. */
export function linksTo(context: SiteContext, node: IrNode, from: string): RootContent[] {
  const incoming = context.incoming.get(node.id) ?? [];
  if (incoming.length === 0) return [];
  const rows = new Map<string, { from: IrNode; kind: EdgeKind; lines: number[] }>();
  for (const { from: source, edge } of incoming) {
    const key = `${source.id} ${edge.kind}`;
    const row = rows.get(key) ?? { from: source, kind: edge.kind, lines: [] };
    row.lines.push(edge.line);
    rows.set(key, row);
  }
  return [
    heading(2, 'links-to', 'Links to this file'),
    table(
      ['From', 'Kind', 'How', 'Lines'],
      [...rows.values()].map((row) => [nodeLink(context, from, row.from.id), row.from.kind, EDGE_LABELS[row.kind].to, row.lines.join(', ')]),
    ),
  ];
}

/** Bytes against the ceiling, and the eager-load closure where one is measured. */
export function sizeSection(context: SiteContext, node: IrNode, from: string): RootContent[] {
  const row = context.input.budgetRows.find((candidate) => candidate.path === node.path);
  const budgets = relativeUrl(from, 'budgets.html');
  if (!row) return [heading(2, 'size', 'Size'), paragraph(`${node.bytes} bytes; no budget applies.`)];
  const parts: Inline[] = [`${row.bytes} bytes`];
  if (row.ceiling !== null) parts.push(` of a ${row.ceiling}-byte ceiling (${percent(row.bytes, row.ceiling)}, ${row.kind} tier ${row.tier})`);
  else parts.push(', no ceiling');
  if (row.closureBytes !== undefined) {
    parts.push(`; eager-load closure ${row.closureBytes} bytes`);
    if (row.closureCeiling != null) parts.push(` of ${row.closureCeiling} (${percent(row.closureBytes, row.closureCeiling)})`);
  }
  parts.push('. ', link(budgets, 'All budgets'), '.');
  return [heading(2, 'size', 'Size'), paragraph(...parts)];
}

export function percent(part: number, whole: number): string {
  return `${Math.round((part / whole) * 100)}%`;
}

/** The file itself: Markdown rendered, anything else (templates, hooks) as code. */
export function sourceSection(context: SiteContext, node: IrNode, from: string, options: { verbatim?: boolean } = {}): RootContent[] {
  const body = bodyOf(node);
  const header: RootContent[] = [heading(2, 'source', 'Source'), paragraph(code(node.path), node.frontmatter ? ' (frontmatter left out)' : '')];
  if (body.trim() === '') return [...header, paragraph('The file has no body.')];
  if (options.verbatim || !node.path.endsWith('.md')) {
    const extension = /\.([A-Za-z0-9]+)$/.exec(node.path)?.[1] ?? null;
    return [...header, codeBlock(body.replace(/\n$/, ''), extension === 'md' ? 'markdown' : extension)];
  }
  return [...header, { type: 'blockquote', children: bodyBlocks(context, node) as never, data: { hName: 'div', hProperties: { className: ['source'] } } }];
}

/** Agents spawned by a node or anything it loads or reads (workflows, steps, modes), with where. */
export function spawnedAgents(context: SiteContext, root: IrNode): { agent: string; via: string[] }[] {
  const found = new Map<string, string[]>();
  const seen = new Set([root.id]);
  const queue = [root];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const edge of node.edges) {
      if (!edge.resolved) continue;
      if (edge.kind === 'spawn') {
        const via = found.get(edge.resolved) ?? [];
        if (!via.includes(node.id)) via.push(node.id);
        found.set(edge.resolved, via);
      } else if ((edge.kind === 'include' || edge.kind === 'read') && !seen.has(edge.resolved)) {
        const next = context.byId.get(edge.resolved);
        if (next && ['workflow', 'step', 'mode'].includes(next.kind)) {
          seen.add(next.id);
          queue.push(next);
        }
      }
    }
  }
  return [...found].map(([agent, via]) => ({ agent, via }));
}

export function spawnsSection(context: SiteContext, node: IrNode, from: string): RootContent[] {
  const spawned = spawnedAgents(context, node);
  if (spawned.length === 0) return [];
  return [
    heading(2, 'spawns', 'Agents it spawns'),
    list(spawned.map(({ agent, via }) => [nodeLink(context, from, agent), ' from ', ...joined(via.map((id) => nodeLink(context, from, id)))])),
  ];
}
