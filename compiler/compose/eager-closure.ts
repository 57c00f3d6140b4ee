// What a runtime loads up front for a file: the file plus everything it
// @-includes, transitively, each file counted once.
import type { IrNode } from '../ir/types.ts';

export interface EagerClosure {
  nodes: string[];
  bytes: number;
}

export function eagerClosure(root: IrNode, byId: ReadonlyMap<string, IrNode>): EagerClosure {
  const seen = new Set<string>([root.id]);
  const queue = [root];
  let bytes = 0;
  while (queue.length > 0) {
    const node = queue.shift()!;
    bytes += node.bytes;
    for (const edge of node.edges) {
      if (edge.kind !== 'include' || !edge.resolved || seen.has(edge.resolved)) continue;
      const target = byId.get(edge.resolved);
      if (!target) continue;
      seen.add(edge.resolved);
      queue.push(target);
    }
  }
  return { nodes: [...seen], bytes };
}
