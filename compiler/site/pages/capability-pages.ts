// The capabilities: one page each (what it is, its config keys, what it adds
// at which loop point), and the loop points page: every point of the core
// loop with what is composed there, in composition order.
import type { RootContent } from 'mdast';
import type { ComposedEntry } from '../../ir/types.ts';
import { LOOP_POINTS } from '../../load/parse-loop-points.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { nodeLink, relativeUrl } from '../site-context.ts';
import { code, heading, link, paragraph, table, text, type Inline } from '../util/mdast.ts';

export const LOOP_POINTS_PAGE = 'loop-points.html';

export function capabilityPagePath(id: string): string {
  return `capabilities/${id}.html`;
}

export function capabilityPages(context: SiteContext): Page[] {
  const capabilities = context.input.ir.capabilities ?? [];
  const entries = Object.values(context.input.ir.composition ?? {}).flat();
  const pages = capabilities.map((capability): Page => {
    const path = capabilityPagePath(capability.id);
    const mine = entries.filter((entry) => entry.capability === capability.id);
    const content: RootContent[] = [
      paragraph(capability.description),
      paragraph(`Version ${capability.version}, ${capability.origin}, from `, code(capability.source), `; engines.gsd `, code(capability.engines), '; digest ', code(capability.digest), '.'),
      heading(2, 'config', 'Config keys'),
      table(
        ['Key', 'Type', 'Default', 'What it does'],
        Object.entries(capability.config).map(([key, spec]) => [code(key), text(spec.type), code(JSON.stringify(spec.default)), text(spec.description)]),
      ),
      heading(2, 'contributions', 'What it adds where'),
      mine.length === 0
        ? paragraph('Nothing in this corpus: none of its points has a host workflow.')
        : table(['Point', 'Kind', 'Workflow', 'Section (when)', 'Placed', 'Bytes added to the workflow'], mine.map((entry) => entryRow(context, path, entry))),
      paragraph(
        'Each contribution sits in its own gsd:section in the host workflow, inline, or in a step file behind a short stub when inline it would pass the workflow\'s byte ceiling; the runtime CLI includes it when the config key is true for the project. ',
        link(relativeUrl(path, LOOP_POINTS_PAGE), 'All loop points'),
        '.',
      ),
      ...ownFiles(context, path, capability.own),
    ];
    return { path, title: capability.id, kind: 'capability', summary: capability.description, content };
  });
  const byPoint = context.input.ir.composition ?? {};
  const content: RootContent[] = [
    paragraph('The core loop has twelve loop points in five workflows. Capabilities are composed into them at build time, in this order at each point: producers of an artifact before its consumers, then by capability id. Each goes inline into the workflow, or to a lazily read step file when inline it would pass the workflow\'s byte ceiling.'),
    table(
      ['Point', 'Workflow', 'Composed there, in order'],
      LOOP_POINTS.map((spec) => {
        const composed = byPoint[spec.point] ?? [];
        const cell: Inline[] = composed.length === 0 ? [text('nothing')] : composed.flatMap((entry, index) => [...(index > 0 ? [text(', ')] : []), link(relativeUrl(LOOP_POINTS_PAGE, capabilityPagePath(entry.capability)), entry.capability), text(` (${entry.kind}, ${entry.placement === 'inline' ? `inline, ${entry.hostBytes} bytes` : `step file, ${entry.stepBytes} bytes behind a ${entry.hostBytes}-byte stub`})`)]);
        return [code(spec.point), nodeLink(context, LOOP_POINTS_PAGE, `workflow:${spec.workflow}`), cell];
      }),
    ),
  ];
  pages.push({ path: LOOP_POINTS_PAGE, title: 'Loop points', kind: 'page', summary: 'What each capability contributes at each loop point of the core loop.', content });
  return pages;
}

/** The commands, agents, templates and hooks a capability ships itself, when it has any. */
function ownFiles(context: SiteContext, from: string, own: { commands: string[]; agents: string[]; templates: string[]; hooks: string[] }): RootContent[] {
  const rows: Inline[][] = [
    ...own.commands.map((file) => [text('command'), nodeLink(context, from, `command:${nameOf(file)}`)]),
    ...own.agents.map((file) => [text('agent'), nodeLink(context, from, `agent:${nameOf(file)}`)]),
    ...own.templates.map((file) => [text('template'), code(file)]),
    ...own.hooks.map((file) => [text('hook (code: installed only with consent, --allow-capability)'), code(file)]),
  ];
  return rows.length === 0 ? [] : [heading(2, 'own', 'Files of its own'), table(['Kind', 'File'], rows)];
}

const nameOf = (file: string) => file.slice(file.lastIndexOf('/') + 1).replace(/\.md$/, '');

function entryRow(context: SiteContext, from: string, entry: ComposedEntry): Inline[][] {
  const what = entry.kind === 'contribution' ? `contribution into ${entry.into}` : entry.kind === 'step' ? `step: ${entry.run?.agent ?? `/gsd-${entry.run?.command}`}` : `gate (${entry.blocking ? 'blocking' : 'warning'})`;
  return [
    [code(entry.point)],
    [text(what)],
    [nodeLink(context, from, `workflow:${entry.workflow}`)],
    [code(entry.section), text(' ('), code(entry.when), text(')')],
    entry.step ? [text('step file '), code(entry.step)] : [text('inline')],
    [text(entry.step ? `${entry.hostBytes} (stub; ${entry.inlineBytes} inline) + ${entry.stepBytes} in the step file` : `${entry.hostBytes}`)],
  ];
}
