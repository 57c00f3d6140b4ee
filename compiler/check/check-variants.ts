// Compact variants: a `.compact.md` sibling is read instead of its canonical
// file, so it may name only what the canonical file names: its gsd:section ids,
// and the files, agents and commands its references reach. Anything else is
// drift (a section the runtime's manifest never lists, a file the canonical
// workflow never needed). A variant's own siblings count as their canonical
// files (steps/x.compact.md stands for steps/x.md).
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { Edge, EdgeKind, IrNode } from '../ir/types.ts';

const WHAT: Record<EdgeKind, string> = { include: 'file', read: 'file', spawn: 'agent', slash: 'command', skill: 'command', requires: 'command' };

/** `<id>.<variant>` → `<id>`. */
export function canonicalId(node: IrNode): string {
  return node.variant === undefined ? node.id : node.id.slice(0, -`.${node.variant}`.length);
}

export function checkVariants(nodes: readonly IrNode[]): Diagnostic[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const diagnostics: Diagnostic[] = [];
  for (const variant of nodes) {
    if (variant.variant === undefined) continue;
    const canonical = byId.get(canonicalId(variant));
    const canonicalPath = variant.path.replace(`.${variant.variant}.`, '.');
    if (!canonical) {
      diagnostics.push(diagnostic(variant.path, 1, 1, 'variant-drift', `expected its canonical sibling ${canonicalPath} beside this ${variant.variant} variant, found none`));
      continue;
    }
    const sections = new Set(canonical.sections.filter((section) => section.explicit).map((section) => section.id));
    for (const section of variant.sections) {
      if (!section.explicit || sections.has(section.id)) continue;
      const known = sections.size > 0 ? [...sections].sort().join(', ') : 'none';
      diagnostics.push(diagnostic(variant.path, section.markerLine ?? section.startLine, 1, 'variant-drift', `expected a gsd:section id ${canonical.path} has (${known}), found "${section.id}"`));
    }
    const named = new Set(canonical.edges.map((edge) => key(edge, variant.variant!)));
    for (const edge of variant.edges) {
      if (named.has(key(edge, variant.variant))) continue;
      diagnostics.push(diagnostic(variant.path, edge.line, edge.column, 'variant-drift', `expected only the ${WHAT[edge.kind]}s ${canonical.path} names, found ${edge.target}`));
    }
  }
  return diagnostics;
}

/** What an edge names, a variant sibling folded onto its canonical file. */
function key(edge: Edge, variant: string): string {
  const target = edge.resolved ?? edge.target;
  return `${WHAT[edge.kind]}:${target.replace(new RegExp(`\\.${variant}(\\.md)?$`), '$1')}`;
}
