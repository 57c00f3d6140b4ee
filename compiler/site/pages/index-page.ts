// The front page: what the corpus holds, every node by kind with its
// description, and the way to the runtime matrix and the budgets.
import type { RootContent } from 'mdast';
import type { NodeKind } from '../../ir/types.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { nodeLink } from '../site-context.ts';
import { heading, link, paragraph, table } from '../util/mdast.ts';

export const KIND_TITLES: [NodeKind, string][] = [
  ['command', 'Commands'],
  ['workflow', 'Workflows'],
  ['agent', 'Agents'],
  ['reference', 'References'],
  ['template', 'Templates'],
  ['step', 'Step files'],
  ['mode', 'Modes'],
  ['hook', 'Hooks'],
];

export function indexPage(context: SiteContext, pages: readonly Page[]): Page {
  const path = 'index.html';
  const counts = KIND_TITLES.map(([kind, title]) => [title.toLowerCase(), pages.filter((page) => page.nodeId && context.byId.get(page.nodeId)?.kind === kind).length] as const).filter(([, count]) => count > 0);
  const content: RootContent[] = [
    paragraph(
      'Every page here is generated from the same IR as the runtime bundles, so it says what ships. ',
      `The corpus holds ${counts.map(([title, count]) => `${count} ${title}`).join(', ')}. `,
      'See also ',
      link('runtimes.html', 'the runtime matrix'),
      ' and ',
      link('budgets.html', 'the byte budgets'),
      '.',
    ),
  ];
  for (const [kind, title] of KIND_TITLES) {
    const listed = pages.filter((page) => page.nodeId && context.byId.get(page.nodeId)?.kind === kind);
    if (listed.length === 0) continue;
    content.push(heading(2, `${kind}s`, title), table(['Name', 'Description'], listed.map((page) => [nodeLink(context, path, page.nodeId!), page.summary])));
  }
  return { path, title: 'GSD', kind: 'index', summary: 'The GSD corpus: commands, workflows, agents, references and templates.', content };
}
