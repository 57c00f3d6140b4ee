// Loop points in place: each point only in its host workflow, every point of a
// host present once the corpus declares loop points at all (a corpus without
// them, such as upstream's, composes nothing), and every role that an agent
// plays spawned by the workflow or one of its step files.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import { LOOP_POINTS, LOOP_ROLES } from '../load/parse-loop-points.ts';

export function checkLoopPoints(nodes: readonly IrNode[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const hostOf = new Map(LOOP_POINTS.map((spec) => [spec.point, spec.workflow]));
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const declaring = nodes.filter((node) => (node.loopPoints ?? []).length > 0);
  for (const node of declaring) {
    for (const point of node.loopPoints!) {
      const host = hostOf.get(point.point)!;
      if (node.kind !== 'workflow' || node.name !== host) {
        diagnostics.push(diagnostic(node.path, point.line, point.column, 'loop-misplaced', `expected loop point "${point.point}" only in gsd-core/workflows/${host}.md, found it in ${node.path}`));
        continue;
      }
      const spawned = new Set([node, ...(node.children ?? []).map((id) => byId.get(id)!)].flatMap((file) => file.edges.filter((edge) => edge.kind === 'spawn').map((edge) => edge.target)));
      for (const role of point.roles) {
        const agent = LOOP_ROLES[role];
        if (agent && !spawned.has(agent)) {
          diagnostics.push(diagnostic(node.path, point.line, point.column, 'loop-role-unspawned', `expected ${node.path} or its step files to spawn ${agent} for role "${role}" at "${point.point}", found no such spawn`));
        }
      }
    }
  }
  if (declaring.length === 0) return diagnostics;
  for (const node of nodes) {
    if (node.kind !== 'workflow') continue;
    const present = new Set((node.loopPoints ?? []).map((point) => point.point));
    const missing = LOOP_POINTS.filter((spec) => spec.workflow === node.name && !present.has(spec.point)).map((spec) => spec.point);
    if (missing.length > 0) {
      diagnostics.push(diagnostic(node.path, node.body.line, 1, 'loop-missing-point', `expected the loop point${missing.length > 1 ? 's' : ''} ${missing.map((point) => `"${point}"`).join(', ')} in this host workflow, found none`));
    }
  }
  return diagnostics;
}
