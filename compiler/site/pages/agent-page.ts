// An agent: what it does, its tools in every runtime, its model under every
// profile, and who spawns it.
import type { RootContent } from 'mdast';
import type { IrNode } from '../../ir/types.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { nodeLink } from '../site-context.ts';
import { toolsPerRuntime, sourceTools } from '../agent-tools.ts';
import { modelsPerProfile } from '../model-profiles.ts';
import { descriptionBlocks, descriptionOf, linksFrom, linksTo, sizeSection, sourceSection, summaryOf } from '../page-parts.ts';
import { code, heading, joined, list, paragraph, strong, table } from '../util/mdast.ts';

export function agentPage(context: SiteContext, node: IrNode): Page {
  const path = context.pageOf.get(node.id)!;
  const source = sourceTools(node);
  const content: RootContent[] = [
    ...descriptionBlocks(context, node, path),
    heading(2, 'tools', 'Tools per runtime'),
    paragraph('As written in the source: ', ...(source.length > 0 ? joined(source.map((tool) => code(tool))) : ['none listed']), '.'),
    table(
      ['Runtime', 'Tools', 'How'],
      toolsPerRuntime(node, context.input.targets).map((row) => [
        row.runtime,
        row.tools === null ? '—' : row.tools.length === 0 ? 'none' : joined(row.tools.map((tool) => code(tool))),
        row.how,
      ]),
    ),
    heading(2, 'models', 'Model per profile'),
  ];
  const models = modelsPerProfile(node.name, context.input.modelProfiles);
  if (!models) content.push(paragraph('The corpus has no runtime/model-profiles.json.'));
  else {
    if (!models.listed) content.push(paragraph('This agent is not listed in the model profiles; the entry for unknown agents applies.'));
    content.push(table(['Profile', 'Model'], models.rows.map(({ profile, model }) => [profile === models.defaultProfile ? [strong(profile), ' (default)'] : profile, code(model)])));
  }
  const spawners = (context.incoming.get(node.id) ?? []).filter(({ edge }) => edge.kind === 'spawn');
  content.push(heading(2, 'spawned-by', 'Spawned by'));
  content.push(spawners.length > 0 ? list(spawners.map(({ from, edge }) => [nodeLink(context, path, from.id), ` (${from.kind}, line ${edge.line})`])) : paragraph('Nothing in the corpus spawns it by name.'));
  content.push(...linksFrom(context, node, path), ...linksTo(context, node, path), ...sizeSection(context, node, path), ...sourceSection(context, node, path));
  return { path, title: node.name, kind: 'agent', nodeId: node.id, summary: summaryOf(descriptionOf(context, node).text), content };
}
