// A workflow: its conditional sections and their `when`, its process steps,
// its step and mode files (and which section loads each), who runs it.
import type { RootContent } from 'mdast';
import type { IrNode } from '../../ir/types.ts';
import { splitLines } from '../../load/scan-lines.ts';
import type { Page, SiteContext } from '../site-types.ts';
import { nodeLink } from '../site-context.ts';
import { bodyOf, descriptionBlocks, descriptionOf, linksFrom, linksTo, sizeSection, sourceSection, spawnsSection, summaryOf } from '../page-parts.ts';
import { code, heading, list, paragraph, table } from '../util/mdast.ts';

export function workflowPage(context: SiteContext, node: IrNode): Page {
  const path = context.pageOf.get(node.id)!;
  const sections = node.sections.filter((section) => section.explicit);
  const children = (node.children ?? []).map((id) => context.byId.get(id)).filter((child): child is IrNode => child !== undefined);
  const content: RootContent[] = [...descriptionBlocks(context, node, path), heading(2, 'sections', 'Sections')];
  if (sections.length === 0) content.push(paragraph('No conditional sections: the whole workflow always loads.'));
  else {
    content.push(
      paragraph('Lines outside these sections always load; each section loads only when its condition holds.'),
      table(
        ['Section', 'When', 'Lines'],
        sections.map((section) => [code(section.id), code(section.when), `${section.startLine}–${section.endLine}`]),
      ),
    );
  }
  const steps = processSteps(node);
  content.push(heading(2, 'steps', 'Steps'));
  content.push(steps.length > 0 ? { ...list(steps.map((step) => [code(step)])), ordered: true } : paragraph('The workflow names no <step> blocks.'));
  for (const kind of ['step', 'mode'] as const) {
    const files = children.filter((child) => child.kind === kind);
    if (files.length === 0) continue;
    content.push(
      heading(2, `${kind}-files`, kind === 'step' ? 'Step files' : 'Modes'),
      table(
        [kind === 'step' ? 'Step file' : 'Mode', 'Loaded when', 'Bytes'],
        files.map((file) => [nodeLink(context, path, file.id, file.name.split('/').pop()), code(loadedWhen(node, file)), String(file.bytes)]),
      ),
    );
  }
  const runBy = (context.incoming.get(node.id) ?? []).filter(({ from, edge }) => from.kind === 'command' && edge.kind === 'include');
  content.push(heading(2, 'run-by', 'Commands that run it'));
  content.push(runBy.length > 0 ? list(runBy.map(({ from }) => [nodeLink(context, path, from.id)])) : paragraph('No command @-includes it.'));
  content.push(...spawnsSection(context, node, path), ...linksFrom(context, node, path), ...linksTo(context, node, path), ...sizeSection(context, node, path), ...sourceSection(context, node, path));
  return { path, title: node.name, kind: 'workflow', nodeId: node.id, summary: summaryOf(descriptionOf(context, node).text), content };
}

/** The names of the workflow's `<step name="…">` blocks, in order, outside code fences. */
export function processSteps(node: IrNode): string[] {
  const names: string[] = [];
  let fence: string | null = null;
  for (const { content } of splitLines(bodyOf(node))) {
    const delimiter = /^ {0,3}(`{3,}|~{3,})/.exec(content)?.[1];
    if (delimiter && (fence === null || (delimiter[0] === fence[0] && delimiter.length >= fence.length))) {
      fence = fence === null ? delimiter : null;
      continue;
    }
    const step = fence === null ? /^\s*<step\s+name="([^"]+)"/.exec(content) : null;
    if (step) names.push(step[1]!);
  }
  return names;
}

/** The `when` of the section holding the workflow's first reference to a file; `always` outside sections. */
function loadedWhen(workflow: IrNode, file: IrNode): string {
  const edge = workflow.edges.find((candidate) => candidate.resolved === file.id);
  if (!edge) return 'not referenced by the workflow';
  const section = workflow.sections.find((candidate) => candidate.explicit && edge.line >= candidate.startLine && edge.line <= candidate.endLine);
  return section ? section.when : 'always';
}
