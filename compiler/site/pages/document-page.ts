// References, templates, step and mode files, and hooks: what the
// file is, where it belongs, who uses it, and the file itself.
import type { RootContent } from 'mdast';
import type { IrNode } from '../../ir/types.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { nodeLink } from '../site-context.ts';
import { descriptionBlocks, descriptionOf, linksFrom, linksTo, sizeSection, sourceSection, summaryOf } from '../page-parts.ts';
import { code, heading, list, paragraph, table } from '../util/mdast.ts';

export function documentPage(context: SiteContext, node: IrNode): Page {
  const path = context.pageOf.get(node.id)!;
  const content: RootContent[] = [...descriptionBlocks(context, node, path)];
  if (node.parent) {
    content.push(paragraph(`A ${node.kind} file of the workflow `, nodeLink(context, path, node.parent), '.'));
  }
  if (node.kind === 'hook') content.push(...hookRegistration(context, node));
  content.push(...linksFrom(context, node, path), ...linksTo(context, node, path));
  if (node.kind !== 'hook') content.push(...sizeSection(context, node, path));
  content.push(...sourceSection(context, node, path, { verbatim: node.kind === 'template' }));
  return { path, title: node.name, kind: node.kind, nodeId: node.id, summary: summaryOf(descriptionOf(context, node).text), content };
}

/** The hook's registry entries, and the event each runtime registers it under. */
function hookRegistration(context: SiteContext, node: IrNode): RootContent[] {
  const entries = context.input.hooks.filter((hook) => node.path.endsWith(`/${hook.entry}`));
  if (entries.length === 0) return [paragraph('The hook registry has no entry for this file.')];
  const blocks: RootContent[] = [
    heading(2, 'registration', 'Registration'),
    table(
      ['Id', 'Event', 'Matcher', 'Timeout', 'On crash', 'Opt-in'],
      entries.map((entry) => [code(entry.id), code(entry.event), entry.matcher ? code(entry.matcher) : 'any', entry.timeout === undefined ? '—' : `${entry.timeout} s`, entry.crashPolicy ?? '—', entry.optIn ? 'yes' : 'no']),
    ),
  ];
  const rows = context.input.targets.flatMap(({ definition }) => {
    const scope = definition.scopes.global ?? definition.scopes.local;
    if (!scope) return [];
    const hooks = scope.hooks;
    const events = entries.map((entry) => {
      if (!hooks) return 'no hooks in this runtime';
      // As emit maps them: an event the map does not list keeps its name; null drops the hook.
      const mapped = hooks.events && Object.hasOwn(hooks.events, entry.event) ? hooks.events[entry.event] : entry.event;
      return mapped === null || mapped === undefined ? `${entry.event}: not registered` : `${entry.event} → ${mapped}`;
    });
    return [[definition.name, [...new Set(events)].join('; ')]];
  });
  blocks.push(heading(3, 'hook-runtimes', 'Per runtime'), rows.length > 0 ? table(['Runtime', 'Event'], rows) : list([]));
  return blocks;
}
