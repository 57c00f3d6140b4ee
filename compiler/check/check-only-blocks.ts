// gsd:only blocks name runtimes that have a target.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';

export function checkOnlyBlocks(nodes: readonly IrNode[], targetIds: readonly string[]): Diagnostic[] {
  const known = new Set(targetIds);
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    for (const block of node.onlyBlocks) {
      block.runtimes.forEach((runtime, index) => {
        if (known.has(runtime)) return;
        diagnostics.push(diagnostic(node.path, block.openLine, block.columns[index]!, 'only-unknown-runtime', `expected a runtime id with a target (${[...known].join(', ')}), found "${runtime}"`));
      });
    }
  }
  return diagnostics;
}
