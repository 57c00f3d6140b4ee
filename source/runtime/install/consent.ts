// The consent gate for capabilities. A bundle's manifest says which
// capabilities were composed in and which of its files each one brought; the
// installer trusts none of that on its face. From our own data
// (capability-trust.json and the hook registry) it decides what is ours: a
// capability is first-party only when its id, origin and digest match our
// list, and every program in the bundle is GSD's own or claimed by exactly one
// capability, under that capability's name. Code a third-party capability
// brings (hooks, scripts) lands only when the user names it with
// --allow-capability; consent is never read from a manifest or a previous
// install record, so neither can be edited to claim it.
import path from 'node:path';
import { refused, usage } from '../core/errors.ts';
import type { BundleManifest, ManifestFile } from './bundle-types.ts';
import trust from './capability-trust.json' with { type: 'json' };
import hookRegistry from '../../hooks/hooks.json' with { type: 'json' };

export interface InstalledCapability {
  id: string;
  version: string;
  /** As checked against our data, not as the manifest claims. */
  origin: 'first-party' | 'third-party';
  digest: string;
  /** Whether it brings code (hooks or other programs). */
  code: boolean;
  /** Whether the user allowed it (--allow-capability); first-party capabilities and those without code need no consent. */
  allowed: boolean;
  /** The bundle paths it brought. */
  files: string[];
}

const CODE_FILE = /\.(?:c?js|mjs|ts|sh|py)$/;
const isCode = (file: ManifestFile) => file.mode === '0755' || CODE_FILE.test(file.path);
const baseName = (file: string) => path.posix.basename(file);

/** GSD's own program names: the runtime CLI, the dispatchers, Cline's launchers and the registry's hooks. */
function ownPrograms(): Set<string> {
  return new Set([...trust.programs, ...(hookRegistry as { id: string }[]).map((hook) => `${hook.id}.cjs`)]);
}

/**
 * The capabilities of a bundle as the install records them, or a refusal
 * naming what is wrong and what to pass. Pure: the manifest and the ids the
 * user allowed in, nothing read from disk.
 */
export function checkCapabilities(manifest: Pick<BundleManifest, 'capabilities' | 'files'>, allowed: readonly string[]): InstalledCapability[] {
  const capabilities = manifest.capabilities ?? [];
  const files = new Map(manifest.files.map((file) => [file.path, file]));
  const owner = new Map<string, string>();
  const ids = new Set<string>();
  for (const capability of capabilities) {
    if (ids.has(capability.id)) throw refused(`refused: the bundle lists capability ${capability.id} twice; nothing was written`);
    ids.add(capability.id);
    for (const file of capability.files) {
      if (!files.has(file)) throw refused(`refused: capability ${capability.id} claims ${file}, which the bundle does not have; nothing was written`);
      const other = owner.get(file);
      if (other) throw refused(`refused: ${file} is claimed by capabilities ${other} and ${capability.id}; nothing was written`);
      owner.set(file, capability.id);
    }
  }
  for (const id of allowed) if (!ids.has(id)) throw usage(`expected --allow-capability to name a capability of this bundle (${[...ids].join(', ') || 'it has none'}), found "${id}"`);

  const programs = ownPrograms();
  for (const file of manifest.files) {
    if (!isCode(file)) continue;
    const claimed = owner.get(file.path);
    const name = baseName(file.path);
    if (!claimed && !programs.has(name)) throw refused(`refused: ${file.path} is a program that is neither GSD's own nor claimed by a capability of the bundle; nothing was written`);
    if (claimed && programs.has(name)) throw refused(`refused: capability ${claimed} claims ${file.path}, a program of GSD's own; nothing was written`);
    // A capability's programs carry its id: one cannot pass its code off as another's.
    if (claimed && !name.startsWith(`${claimed}-`)) throw refused(`refused: ${file.path} is claimed by capability ${claimed} but not named after it (${claimed}-…); nothing was written`);
  }

  const records = capabilities.map((capability): InstalledCapability => {
    const ours = Object.prototype.hasOwnProperty.call(trust.firstParty, capability.id) ? (trust.firstParty as Record<string, { digest: string; code: boolean }>)[capability.id]! : null;
    const firstParty = ours !== null && capability.origin === 'first-party' && capability.digest === ours.digest;
    const code = capability.hooks || capability.files.some((file) => isCode(files.get(file)!));
    const exempt = !code || (firstParty && ours!.code);
    return { id: capability.id, version: capability.version, origin: firstParty ? 'first-party' : 'third-party', digest: capability.digest, code, allowed: !exempt && allowed.includes(capability.id), files: [...capability.files] };
  });
  const missing = records.filter((record) => record.code && !record.allowed && !(record.origin === 'first-party' && trust.firstParty[record.id as keyof typeof trust.firstParty]?.code));
  if (missing.length > 0) {
    const lines = missing.map((record) => {
      const claim = capabilities.find((capability) => capability.id === record.id)!;
      const posing = record.origin === 'first-party' ? ' (ours brings no code: this is not it)' : claim.origin === 'first-party' ? ' (the bundle calls it first-party; it is not one of ours)' : '';
      return `${record.id} ${record.version}${posing}: ${record.files.filter((file) => isCode(files.get(file)!)).join(', ') || 'hooks'}`;
    });
    throw refused(`refused: the bundle brings code of third-party capabilities, installed only with your consent: ${lines.join('; ')}. Read it, then pass --allow-capability ${missing.map((record) => record.id).join(' ')}; nothing was written`, {
      capabilities: missing.map((record) => record.id),
    });
  }
  return records;
}
