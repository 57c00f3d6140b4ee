// The runtime matrix: runtime × scope × surface, with install roots and the
// config files each install touches — the README's support matrix, from the
// same rows (compiler/report/support-matrix.ts).
import type { PhrasingContent, RootContent } from 'mdast';
import { matrixRows } from '../../report/support-matrix.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { markdownInline } from '../parse-markdown.ts';
import { heading, paragraph, table, text } from '../util/mdast.ts';

export function runtimesPage(context: SiteContext): Page {
  const rows = matrixRows(context.input.targets, context.input.validatedBy);
  const content: RootContent[] = [
    paragraph(
      `${context.input.targets.length} runtimes. Each install writes into one root: under the home folder for the global scope (the environment variable in brackets moves it), inside the project for the local scope. Paths are relative to the home folder or the project. "Validated by" names the runtime's own program that loads the bundles in \`npm run test:runtimes\`; the others are checked by golden files only.`,
    ),
    heading(2, 'matrix', 'Runtime matrix'),
    table(
      ['Runtime', 'Scope', 'Root (env override)', 'Commands', 'Invocation', 'Agents', 'Config and hooks', 'Validated by'],
      rows.map((row) => [text(row.runtime), text(row.scope), cell(row.root), cell(row.commands), cell(row.invocation), cell(row.agents), cell(row.config), cell(row.validation)]),
    ),
  ];
  return { path: 'runtimes.html', title: 'Runtime matrix', kind: 'page', summary: 'Where each runtime installs commands, agents, config and hooks, per scope.', content };
}

/** A matrix cell is Markdown with `<br>` between lines. */
function cell(markdown: string): PhrasingContent[] {
  return markdown.split('<br>').flatMap((part, index) => {
    const inline = markdownInline(part, () => null) ?? [text(part)];
    return index === 0 ? inline : [{ type: 'break' } as PhrasingContent, ...inline];
  });
}
