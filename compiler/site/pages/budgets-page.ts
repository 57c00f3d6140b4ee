// Budgets: every file's bytes against its ceiling, every command's eager-load
// closure against its cap, as SVG bars and as a table.
import type { RootContent } from 'mdast';
import type { BudgetRow } from '../../check/check-budgets.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { compare, relativeUrl } from '../site-context.ts';
import { barChart, type Bar } from '../bar-chart.ts';
import { percent } from '../page-parts.ts';
import { KIND_TITLES } from './index-page.ts';
import { code, element, heading, link, paragraph, table, type Cell } from '../util/mdast.ts';

const PATH = 'budgets.html';

export function budgetsPage(context: SiteContext): Page {
  const order = KIND_TITLES.map(([kind]) => kind);
  const rows = [...context.input.budgetRows].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || compare(a.path, b.path));
  const closures = rows.filter((row) => row.closureBytes !== undefined);
  const pageFor = (row: BudgetRow) => {
    const node = context.byPath.get(row.path);
    const page = node && context.pageOf.get(node.id);
    return page ? relativeUrl(PATH, page) : undefined;
  };
  const bar = (row: BudgetRow, value: number, limit: number | null): Bar => ({ label: context.byPath.get(row.path)?.name ?? row.path, value, limit, ...(pageFor(row) ? { href: pageFor(row)! } : {}) });
  const charts = KIND_TITLES.flatMap(([kind, title]) => {
    const ofKind = rows.filter((row) => row.kind === kind);
    if (ofKind.length === 0) return [];
    return [heading(3, `files-${kind}`, title), element('figure', {}, [barChart(`${title}: bytes against the ceiling`, ofKind.map((row) => bar(row, row.bytes, row.ceiling)))])];
  });
  const total = rows.reduce((sum, row) => sum + row.bytes, 0);
  const over = rows.filter((row) => row.ceiling !== null && row.bytes > row.ceiling).length;
  const content: RootContent[] = [
    paragraph(
      `${rows.length} files, ${total} bytes in all; ${over === 0 ? 'none is over its ceiling' : `${over} over their ceiling`}. Bytes are UTF-8 with CRLF counted as LF. A bar's tick marks its ceiling; green is under 90% of it, amber 90% or more, red over.`,
    ),
    heading(2, 'files', 'Files against their ceilings'),
    ...charts,
    heading(2, 'closures', 'Eager-load closures'),
    paragraph('What a runtime loads up front for a command: the file plus everything it @-includes, transitively, each file once.'),
    closures.length > 0
      ? element('figure', {}, [barChart('Eager-load closure of each command against its cap', closures.map((row) => bar(row, row.closureBytes!, row.closureCeiling ?? null)))])
      : paragraph('No closure is measured.'),
    heading(2, 'table', 'All numbers'),
    table(
      ['File', 'Kind', 'Tier', 'Bytes', 'Ceiling', 'Used', 'Closure', 'Closure cap'],
      rows.map((row): Cell[] => {
        const href = pageFor(row);
        return [
          href ? link(href, code(row.path)) : code(row.path),
          row.kind,
          row.tier ?? '—',
          String(row.bytes),
          row.ceiling === null ? '—' : String(row.ceiling),
          row.ceiling === null ? '—' : percent(row.bytes, row.ceiling),
          row.closureBytes === undefined ? '' : String(row.closureBytes),
          row.closureCeiling == null ? '' : String(row.closureCeiling),
        ];
      }),
      [null, null, null, 'right', 'right', 'right', 'right', 'right'],
    ),
  ];
  return { path: PATH, title: 'Budgets', kind: 'page', summary: 'Every file’s bytes against its ceiling and every command’s eager-load closure.', content };
}
