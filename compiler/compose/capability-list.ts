// gsd-core/capabilities.json in every bundle built with capabilities: what
// each one is, its config keys and where it was composed in (inline in the
// workflow, or in a step file read only when its section is selected). The runtime CLI
// reads it for `capability list`; nothing else at run time needs it.
import type { CorpusIr } from '../ir/types.ts';

export const CAPABILITY_LIST_FILE = 'gsd-core/capabilities.json';

export function capabilityListText(ir: CorpusIr): string | null {
  if (!ir.capabilities || ir.capabilities.length === 0) return null;
  const entries = Object.values(ir.composition ?? {}).flat();
  const capabilities = ir.capabilities.map((capability) => ({
    id: capability.id,
    version: capability.version,
    origin: capability.origin,
    digest: capability.digest,
    description: capability.description,
    config: Object.fromEntries(Object.entries(capability.config).map(([key, spec]) => [key, { type: spec.type, default: spec.default }])),
    contributions: entries
      .filter((entry) => entry.capability === capability.id)
      .map((entry) => ({
        point: entry.point,
        kind: entry.kind,
        workflow: entry.workflow,
        section: entry.section,
        when: entry.when.slice('config:'.length),
        placement: entry.placement,
        ...(entry.step ? { step: entry.step } : {}),
      })),
  }));
  return `${JSON.stringify({ capabilities }, null, 2)}\n`;
}
