// The reference graph: every include, read, spawn, command mention and
// requires entry names something that exists.
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.ts';
import type { Edge, IrNode } from '../ir/types.ts';

const UNRESOLVED: Record<Edge['kind'], { code: DiagnosticCode; expected: string }> = {
  include: { code: 'ref-include-unresolved', expected: 'an @-include of a corpus file' },
  read: { code: 'ref-read-unresolved', expected: 'a path to a corpus or generated file' },
  spawn: { code: 'ref-agent-unknown', expected: 'the name of an agent in agents/ (or general-purpose)' },
  slash: { code: 'ref-command-unknown', expected: 'the name of a command in commands/gsd/' },
  skill: { code: 'ref-command-unknown', expected: 'the name of a command in commands/gsd/' },
  requires: { code: 'ref-requires-unknown', expected: 'the stem of a command in commands/gsd/' },
};

export function checkReferences(nodes: readonly IrNode[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const node of nodes) {
    for (const edge of node.edges) {
      if (edge.resolved !== null || edge.external) continue;
      const { code, expected } = UNRESOLVED[edge.kind];
      diagnostics.push(diagnostic(node.path, edge.line, edge.column, code, `expected ${expected}, found "${edge.target}"`));
    }
    if (node.kind === 'command') diagnostics.push(...checkRequiresCoverage(node));
  }
  return diagnostics;
}

/** A command that sends the user to another command declares it in requires:. */
function checkRequiresCoverage(command: IrNode): Diagnostic[] {
  const required = new Set(command.edges.filter((edge) => edge.kind === 'requires').map((edge) => edge.target));
  const reported = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const edge of command.edges) {
    if ((edge.kind !== 'slash' && edge.kind !== 'skill') || edge.resolved === null) continue;
    if (edge.target === command.name || required.has(edge.target) || reported.has(edge.target)) continue;
    reported.add(edge.target);
    diagnostics.push(
      diagnostic(command.path, edge.line, edge.column, 'ref-requires-missing', `expected "${edge.target}" in this command's requires: list, found it mentioned but not required`),
    );
  }
  return diagnostics;
}
