// The section manifest shipped in every bundle: per workflow with explicit
// sections, each section's id, its when atom and the step file it reads.
// A workflow without markers has no key ("read everything").
import { compareText } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';

export interface SectionManifest {
  workflows: Record<string, { id: string; when: string; read: string }[]>;
}

export function buildSectionManifest(nodes: readonly IrNode[], payload: string): SectionManifest {
  const workflows: SectionManifest['workflows'] = {};
  const sorted = nodes.filter((node) => node.kind === 'workflow').sort((a, b) => compareText(a.name, b.name));
  for (const workflow of sorted) {
    const explicit = workflow.sections.filter((section) => section.explicit);
    if (explicit.length === 0) continue;
    workflows[workflow.name] = explicit.map((section) => ({
      id: section.id,
      when: section.when,
      read: `${payload}/workflows/${workflow.name}/steps/${section.id}.md`,
    }));
  }
  return { workflows };
}
