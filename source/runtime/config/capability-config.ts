// Capability config keys (capability.json "config") merged into the config
// schema at build time, so the bundled CLI validates, defaults and reads them
// like its own. A key the schema already has is left as it is (the compiler
// has checked that the capability agrees with it); a new one is added with
// closed objects on the way, as the rest of the schema is written.

export interface CapabilityKeySpec {
  type: 'boolean' | 'string' | 'number';
  default: boolean | string | number;
  description: string;
  enum?: (string | number)[];
}

interface Node {
  type?: unknown;
  properties?: Record<string, Node>;
  additionalProperties?: unknown;
  [key: string]: unknown;
}

export function mergeCapabilityConfig(schema: unknown, slices: Readonly<Record<string, CapabilityKeySpec>>): unknown {
  const merged = structuredClone(schema) as Node;
  for (const [key, spec] of Object.entries(slices).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const parts = key.split('.');
    let node = merged;
    for (const part of parts.slice(0, -1)) {
      node.properties ??= {};
      node = node.properties[part] ??= { type: 'object', properties: {}, additionalProperties: false };
    }
    node.properties ??= {};
    const leaf = parts[parts.length - 1]!;
    if (Object.prototype.hasOwnProperty.call(node.properties, leaf)) continue;
    node.properties[leaf] = { type: spec.type, ...(spec.enum ? { enum: spec.enum } : {}), default: spec.default, description: spec.description };
  }
  return merged;
}
