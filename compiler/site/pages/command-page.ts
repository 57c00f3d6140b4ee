// A command: what it does, its arguments, the workflow it runs, the agents it
// spawns, and how each runtime invokes it.
import type { RootContent } from 'mdast';
import type { IrNode } from '../../ir/types.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { nodeLink, relativeUrl } from '../site-context.ts';
import { descriptionBlocks, descriptionOf, linksFrom, linksTo, sizeSection, sourceSection, spawnsSection, summaryOf } from '../page-parts.ts';
import { code, heading, joined, link, list, paragraph, table } from '../util/mdast.ts';

export function commandPage(context: SiteContext, node: IrNode): Page {
  const path = context.pageOf.get(node.id)!;
  const data = node.frontmatter?.data ?? {};
  const hint = typeof data['argument-hint'] === 'string' ? data['argument-hint'] : null;
  const tools = data['allowed-tools'];
  const workflows = node.edges.filter((edge) => edge.kind === 'include' && edge.resolved && context.byId.get(edge.resolved)?.kind === 'workflow');
  const content: RootContent[] = [
    ...descriptionBlocks(context, node, path),
    heading(2, 'arguments', 'Arguments'),
    paragraph(...(hint ? [code(hint)] : ['None.'])),
    heading(2, 'runs', 'Workflow it runs'),
    workflows.length > 0
      ? list(workflows.map((edge) => [nodeLink(context, path, edge.resolved!), ` (@-included at line ${edge.line})`]))
      : paragraph('None: the command carries its own instructions.'),
    ...spawnsSection(context, node, path),
    heading(2, 'invocation', 'Invocation per runtime'),
    table(
      ['Runtime', 'Invocation'],
      context.input.targets.map(({ definition }) => [definition.name, code(invocation(definition.slash, node.name))]),
    ),
    paragraph('Where the command file lands in each runtime: ', link(relativeUrl(path, 'runtimes.html'), 'the runtime matrix'), '.'),
  ];
  if (Array.isArray(tools) && tools.length > 0) content.push(heading(2, 'tools', 'Allowed tools'), paragraph(...joined(tools.map((tool) => code(String(tool))))));
  content.push(...linksFrom(context, node, path), ...linksTo(context, node, path), ...sizeSection(context, node, path), ...sourceSection(context, node, path));
  return { path, title: node.name, kind: 'command', nodeId: node.id, summary: summaryOf(descriptionOf(context, node).text), content };
}

/** What a user types: the target's slash syntax with the command's name. */
export function invocation(slash: string | undefined, name: string): string {
  return (slash ?? '/gsd-{name}').replaceAll('{name}', name);
}
