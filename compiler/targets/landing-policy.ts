// The landing policy of a target scope (source/runtime/install/landing.ts):
// where its bundles may put files, derived from the target definition alone,
// so the installer can hold a bundle's manifest to it. Owned files are the
// runtime's declared surfaces (commands, agents, owned config, hook
// registrations that are GSD's own files, hook scripts) plus GSD's own folder
// under the root; merged files are the config files the definition shares
// with the user, in the format it merges them in.
import { hookFormat } from '../emit/hook-formats.ts';
import { RELEASE_FILE } from '../../source/hooks/lib/release.ts';
import type { LandingPolicy, MergeFormat, OwnedPattern } from '../../source/runtime/install/bundle-types.ts';
import { SCOPE_IDS, type ConfigFile, type ScopeId, type Target, type TargetDefinition } from './target-types.ts';

/** How the installer treats each config format: merged into the user's file, or (file) owned outright. */
export const CONFIG_MERGE_FORMATS: Record<ConfigFile['format'], MergeFormat | null> = { json: 'json', toml: 'toml', markdown: 'markdown', file: null };

/** The runtime CLI, the one executable file in GSD's own folder. */
const CLI_PATH = 'gsd-core/bin/gsd-tools.cjs';

export function landingPolicy(definition: TargetDefinition, scopeId: ScopeId): LandingPolicy {
  const scope = definition.scopes[scopeId];
  if (!scope) throw new Error(`internal: ${definition.id} has no ${scopeId} scope`);
  const at = (pattern: string) => pattern.replaceAll('{root}', scope.root);
  const owned: OwnedPattern[] = [];
  const merged: LandingPolicy['merged'] = [];
  const own = (pattern: string, mode: OwnedPattern['mode'] = '0644') => {
    if (/\{[^}]*\}[^/]*\{/.test(pattern)) throw new Error(`internal: ${definition.id} ${scopeId}: "${pattern}" has two placeholders in one segment`);
    if (!owned.some((entry) => entry.pattern === pattern)) owned.push({ pattern, mode });
  };
  for (const surface of scope.commands) {
    own(at(surface.path));
    if (surface.nested) own(at(surface.nested.child));
  }
  for (const surface of scope.agents) {
    own(at(surface.path));
    if (surface.spill) own(at(surface.spill.path));
    if (surface.prompt) own(at(surface.prompt));
    if (surface.index) own(at(surface.index.path));
  }
  for (const config of scope.config ?? []) {
    const format = CONFIG_MERGE_FORMATS[config.format];
    if (format) merged.push({ path: at(config.path), format });
    else own(at(config.path));
  }
  if (scope.hooks) {
    const hooks = scope.hooks;
    const format = hookFormat(hooks.format).merge;
    const mode = hookFormat(hooks.format).executable ? '0755' : '0644';
    const events = [...new Set(Object.values(hooks.events ?? {}).filter((event): event is string => typeof event === 'string'))].sort();
    const registrations = hooks.path.includes('{event}') ? events.map((event) => at(hooks.path.replaceAll('{event}', event))) : [at(hooks.path)];
    for (const file of registrations) {
      if (format) merged.push({ path: file, format });
      else own(file, mode);
    }
    // The hooks' facts about their bundle (RELEASE_FILE), data beside the scripts: before the scripts' pattern, which would make it 0755.
    own(at(hooks.scripts).replace('{file}', RELEASE_FILE));
    own(at(hooks.scripts), '0755');
  }
  // Most specific first: the CLI before the rest of GSD's folder.
  own(`${scope.root}/${CLI_PATH}`, '0755');
  own(`${scope.root}/gsd-core/**`);
  return { target: definition.id, runtime: definition.name, scope: scopeId, base: scope.base, root: scope.root, env: [...(scope.env ?? [])], owned, merged };
}

/** The policies of every scope of every target, in a stable order. */
export function landingPolicies(targets: readonly Target[]): LandingPolicy[] {
  return [...targets]
    .sort((a, b) => (a.definition.id < b.definition.id ? -1 : a.definition.id > b.definition.id ? 1 : 0))
    .flatMap((target) => SCOPE_IDS.filter((scope) => target.definition.scopes[scope]).map((scope) => landingPolicy(target.definition, scope)));
}
