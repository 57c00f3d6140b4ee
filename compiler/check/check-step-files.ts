// Sections and their step files: every explicit section has steps/<id>.md
// (but a capability's contribution composed inline, which is its own text),
// and every steps/ or modes/ file is reached from its workflow.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { canonicalId } from './check-variants.ts';

export function checkStepFiles(nodes: readonly IrNode[], inline: ReadonlySet<string> = new Set()): Diagnostic[] {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const diagnostics: Diagnostic[] = [];
  for (const workflow of nodes) {
    if (workflow.kind !== 'workflow') continue;
    for (const section of workflow.sections) {
      if (!section.explicit || inline.has(`${workflow.name}/${section.id}`)) continue;
      if (!byId.has(`step:${workflow.name}/${section.id}`)) {
        diagnostics.push(
          diagnostic(workflow.path, section.markerLine ?? section.startLine, 1, 'step-file-missing', `expected gsd-core/workflows/${workflow.name}/steps/${section.id}.md for section "${section.id}", found no such file`),
        );
      }
    }
    const reached = reachedChildren(workflow, byId);
    for (const childId of workflow.children ?? []) {
      const child = byId.get(childId)!;
      // A variant is read in place of its canonical file: reached when that is.
      if (reached.has(canonicalId(child))) continue;
      diagnostics.push(
        diagnostic(child.path, 1, 1, 'step-file-orphan', `expected ${workflow.path} (or a file it reaches) to read this ${child.kind} file, found no reference`),
      );
    }
  }
  return diagnostics;
}

/** Children reached from the workflow by section ids and references, to a fixed point. */
function reachedChildren(workflow: IrNode, byId: ReadonlyMap<string, IrNode>): Set<string> {
  const children = new Set(workflow.children ?? []);
  const reached = new Set<string>();
  for (const section of workflow.sections) {
    if (section.explicit) reached.add(`step:${workflow.name}/${section.id}`);
  }
  const queue = [workflow, ...[...reached].map((id) => byId.get(id)).filter((n): n is IrNode => n !== undefined)];
  while (queue.length > 0) {
    const node = queue.pop()!;
    for (const edge of node.edges) {
      if (edge.resolved && children.has(edge.resolved) && !reached.has(edge.resolved)) {
        reached.add(edge.resolved);
        queue.push(byId.get(edge.resolved)!);
      }
    }
  }
  return reached;
}
