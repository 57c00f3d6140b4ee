// The section manifest shipped in every bundle: per workflow with explicit
// sections, each section's id, its when atom and the step file it reads, or
// `inline: true` for a capability's contribution composed into the workflow
// itself (nothing to read: the workflow's own text is selected or skipped).
// A workflow without markers has no key ("read everything").
import { compareText } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';

export interface SectionManifest {
  workflows: Record<string, ({ id: string; when: string; read: string; compact?: string } | { id: string; when: string; inline: true })[]>;
  /** Canonical step, mode or template path → its compact variant, for every variant the bundle ships (absent when none). */
  compact?: Record<string, string>;
}

/** `inline` holds `<workflow>/<section id>` of the sections composed inline (compose-capabilities.ts inlineSections). */
export function buildSectionManifest(nodes: readonly IrNode[], payload: string, inline: ReadonlySet<string> = new Set()): SectionManifest {
  const workflows: SectionManifest['workflows'] = {};
  const sorted = nodes.filter((node) => node.kind === 'workflow').sort((a, b) => compareText(a.name, b.name));
  // Steps that have a compact variant in the IR: the runtime reads it instead when workflow.compact_content is on.
  const compactSteps = new Set(nodes.filter((node) => node.kind === 'step' && node.variant === 'compact').map((node) => node.name));
  for (const workflow of sorted) {
    const explicit = workflow.sections.filter((section) => section.explicit);
    if (explicit.length === 0) continue;
    workflows[workflow.name] = explicit.map((section) => {
      if (inline.has(`${workflow.name}/${section.id}`)) return { id: section.id, when: section.when, inline: true as const };
      return {
        id: section.id,
        when: section.when,
        read: `${payload}/workflows/${workflow.name}/steps/${section.id}.md`,
        ...(compactSteps.has(`${workflow.name}/${section.id}`) ? { compact: `${payload}/workflows/${workflow.name}/steps/${section.id}.compact.md` } : {}),
      };
    });
  }
  // Every payload variant, whether or not a section gates it: init hands the map to workflows as read_instead.
  const compact = Object.fromEntries(
    nodes
      .filter((node) => node.variant === 'compact' && node.kind !== 'agent' && node.kind !== 'command' && node.path.startsWith(`${payload}/`))
      .map((node) => [node.path.replace(/\.compact\.md$/, '.md'), node.path] as const)
      .sort(([a], [b]) => compareText(a, b)),
  );
  return Object.keys(compact).length > 0 ? { workflows, compact } : { workflows };
}
