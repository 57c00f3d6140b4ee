// capability list: the capabilities this bundle was built with
// (gsd-core/capabilities.json, written by gsd-build), each config key with its
// default and this project's value, and which contributions are active here:
// the same test the section selection of `init <workflow>` applies.
import path from 'node:path';
import type { Handler } from '../cli/handler.ts';
import { getPath, loadConfig } from '../config/config.ts';
import { FileFormatError } from '../core/errors.ts';
import { readTextIfExists } from '../core/fs.ts';
import { parseJson } from '../core/json.ts';

interface ListedCapability {
  id: string;
  version: string;
  origin: string;
  digest: string;
  description: string;
  config: Record<string, { type: string; default: unknown }>;
  contributions: { point: string; kind: string; workflow: string; section: string; when: string; placement?: 'inline' | 'step'; step?: string }[];
}

function readList(coreDir: string): ListedCapability[] {
  const file = path.join(coreDir, 'capabilities.json');
  const text = readTextIfExists(file);
  if (text === null) return [];
  const data = parseJson(text, file) as { capabilities?: unknown };
  if (!Array.isArray(data?.capabilities)) throw new FileFormatError(file, 1, 'expected {"capabilities": [...]}');
  return data.capabilities as ListedCapability[];
}

const list: Handler = (_inv, ctx) => {
  const resolved = loadConfig(ctx, { optionalProject: true, quiet: true }).resolved;
  const capabilities = readList(ctx.coreDir).map((capability) => {
    const contributions = capability.contributions.map((entry) => ({ ...entry, active: getPath(resolved, entry.when) === true }));
    return {
      id: capability.id,
      version: capability.version,
      origin: capability.origin,
      description: capability.description,
      config: Object.fromEntries(Object.entries(capability.config).map(([key, spec]) => [key, { ...spec, value: getPath(resolved, key) ?? spec.default }])),
      active: contributions.some((entry) => entry.active),
      contributions,
    };
  });
  const raw = capabilities.map((c) => `${c.active ? 'on ' : 'off'} ${c.id} ${c.version} (${c.origin}): ${Object.entries(c.config).map(([key, spec]) => `${key}=${JSON.stringify(spec.value)}`).join(', ')}`).join('\n');
  return { data: { capabilities }, raw: raw || 'no capabilities in this bundle' };
};

export const handlers: Record<string, Handler> = { 'capability list': list };
