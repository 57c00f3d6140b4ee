// A target definition against what its runtime documents (targets/<id>/facts.json,
// schemas/facts.schema.json): every event a hook surface maps to, every tool a
// matcher or agent tool map names, every frontmatter key a rule writes, every
// permission key and every limit must be one the facts list, and each
// documented limit and prompt variable must be enforced. Pure; the caller
// gives the positions. What only the built bundle shows (events a registry
// passes through unmapped, frontmatter a surface keeps) the target-folder
// test checks on every bundle.
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import type { KeyPath } from './merge-scopes.ts';
import { SCOPE_IDS, type FrontmatterRule, type Limit, type NameGroup, type ScopeId, type TargetDefinition, type TargetFacts, type TargetScope } from './target-types.ts';

export const FACTS_FILE = 'facts.json';

type Position = { line: number; column: number };

export interface FactsCheckInput {
  id: string;
  definition: TargetDefinition;
  facts: TargetFacts;
  /** A path of target.json as written (top-level keys such as toolMaps). */
  locateTarget: (path: KeyPath) => Position;
  /** A path of a merged scope, located where it was written (shared or the scope). */
  locateScope: (scope: ScopeId, path: KeyPath) => Position;
  locateFacts: (path: KeyPath) => Position;
}

const LIMIT_KINDS = ['maxChars', 'maxBytes', 'pattern', 'forbidden'] as const;
type LimitKind = (typeof LIMIT_KINDS)[number];

/** The kind of limit (what it caps or requires) and its value. */
export function limitKind(limit: Pick<Limit, LimitKind>): { kind: LimitKind; value: string | number } {
  const kind = LIMIT_KINDS.find((key) => limit[key] !== undefined)!;
  return { kind, value: limit[kind]! };
}

/** A matcher or tool-map value as tool names: `a|b`, each without the ^…$ anchors a runtime's regex matcher needs. */
export function toolNames(value: string): string[] {
  return value.split('|').map((name) => name.replace(/^\^/, '').replace(/\$$/, '')).filter((name) => name !== '');
}

/** Whether a hook surface names events by Cascade-style action (`pre_{action}`): its matcher map then yields actions, not tools. */
export const usesActions = (hooks: TargetScope['hooks']) => Object.values(hooks?.events ?? {}).some((event) => event?.includes('{action}'));

/** Event names a surface's map can produce: `{action}` filled with each action and each matcher value. */
function mappedEvents(definition: TargetDefinition, hooks: NonNullable<TargetScope['hooks']>): { canonical: string; event: string }[] {
  const matcherValues = Object.values(definition.toolMaps?.[hooks.matcherToolMap ?? '']?.map ?? {}).flatMap((value) => (value ? value.split('|') : []));
  const actions = [...new Set([...(hooks.actions ?? []), ...matcherValues])];
  return Object.entries(hooks.events ?? {}).flatMap(([canonical, event]) =>
    !event ? [] : event.includes('{action}') ? actions.map((action) => ({ canonical, event: event.replace('{action}', action) })) : [{ canonical, event }],
  );
}

/** The frontmatter keys a surface's file may carry: a SKILL.md's, or the group for the surface kind. */
export function keyGroup(facts: TargetFacts, file: string, kind: 'commands' | 'agents'): { group: 'skillKeys' | 'commandKeys' | 'agentKeys'; names?: NameGroup } {
  const group = file.endsWith('/SKILL.md') ? 'skillKeys' : kind === 'commands' ? 'commandKeys' : 'agentKeys';
  return { group, names: facts[group] };
}

export function checkFacts(input: FactsCheckInput): Diagnostic[] {
  const { id, definition, facts } = input;
  const targetFile = `${id}/target.json`;
  const factsFile = `${id}/${FACTS_FILE}`;
  const out: Diagnostic[] = [];
  const inTarget = (at: Position, message: string) => out.push(diagnostic(targetFile, at.line, at.column, 'target-facts', message));
  const inFacts = (path: KeyPath, message: string) => {
    const at = input.locateFacts(path);
    out.push(diagnostic(factsFile, at.line, at.column, 'target-facts', message));
  };
  const scopes = SCOPE_IDS.flatMap((scope) => (definition.scopes[scope] ? [[scope, definition.scopes[scope]!] as const] : []));

  if (facts.runtime !== definition.name) inFacts(['runtime'], `"runtime": expected "${definition.name}" (target.json's name), found "${facts.runtime}"`);

  // A group the surfaces call for is there, or its absence is explained in gaps; a gap never hides a group that is there.
  const needed: Record<string, string> = {};
  for (const [, scope] of scopes) {
    if (scope.hooks) needed['events'] = 'the runtime has hooks';
    if (scope.hooks?.matcherToolMap && !usesActions(scope.hooks)) needed['tools'] = 'its hook matchers name tools';
    if (scope.limits?.length) needed['limits'] = 'target.json declares limits';
    for (const surface of scope.agents) {
      if (rulesOf(surface.frontmatter).some((rule) => rule.toolMap)) needed['tools'] ??= 'its agents list tools';
      if (rulesOf(surface.frontmatter).some((rule) => rule.permissions)) needed['permissions'] = 'its agents carry a permission map';
    }
  }
  for (const [group, why] of Object.entries(needed)) {
    const present = group === 'tools' ? facts.tools ?? (why === 'its agents list tools' ? facts.agentTools : undefined) : facts[group as keyof TargetFacts];
    if (!present && !facts.gaps?.[group]) inFacts(['runtime'], `expected a "${group}" group (${why}) or a reason in "gaps.${group}", found neither`);
  }
  for (const group of Object.keys(facts.gaps ?? {})) {
    if (facts[group as keyof TargetFacts] !== undefined) inFacts(['gaps', group], `"gaps.${group}": expected a gap only for a group left out, found the group as well`);
  }

  const documented = (group: NameGroup | undefined, name: string) => group === undefined || group.names.includes(name);
  const list = (group: NameGroup) => group.names.join(', ');

  for (const [scopeId, scope] of scopes) {
    const hooks = scope.hooks;
    if (hooks && facts.events) {
      for (const { canonical, event } of mappedEvents(definition, hooks)) {
        if (facts.events.names.includes(event) || facts.settingsKeys?.names.includes(event)) continue;
        inTarget(input.locateScope(scopeId, ['hooks', 'events', canonical]), `"hooks.events.${canonical}": expected an event ${definition.name} documents (${list(facts.events)}), found "${event}"`);
      }
    }
    scope.commands.forEach((surface, index) => checkKeys(surface.frontmatter, surface.path, 'commands', index, scopeId));
    scope.agents.forEach((surface, index) => {
      checkKeys(surface.frontmatter, surface.path, 'agents', index, scopeId);
      (Array.isArray(surface.frontmatter) ? surface.frontmatter : []).forEach((rule, ruleIndex) => {
        if (!rule.permissions || !facts.permissions) return;
        rule.permissions.keys.forEach((key, keyIndex) => {
          if (documented(facts.permissions, key)) return;
          inTarget(input.locateScope(scopeId, ['agents', index, 'frontmatter', ruleIndex, 'permissions', 'keys', keyIndex]), `permission key: expected one ${definition.name} documents (${list(facts.permissions!)}), found "${key}"`);
        });
      });
    });
    (scope.limits ?? []).forEach((limit, index) => {
      const { kind, value } = limitKind(limit);
      const counterparts = (facts.limits ?? []).filter((fact) => fact.frontmatterKey === limit.frontmatterKey && limitKind(fact).kind === kind);
      if (counterparts.some((fact) => fact[kind] === value)) return;
      const at = input.locateScope(scopeId, ['limits', index, kind]);
      const subject = limit.frontmatterKey ? `"${limit.frontmatterKey}" ${kind}` : kind;
      if (counterparts.length === 0) inTarget(at, `limit ${subject}: expected a limit facts.json documents (same frontmatterKey and kind), found none for ${JSON.stringify(value)}`);
      else inTarget(at, `limit ${subject}: expected ${counterparts.map((fact) => JSON.stringify(fact[kind])).join(' or ')} as facts.json documents (${counterparts[0]!.what}), found ${JSON.stringify(value)}`);
    });

    function checkKeys(frontmatter: FrontmatterRule[] | 'keep' | 'none' | undefined, file: string, kind: 'commands' | 'agents', index: number, at: ScopeId) {
      const { group, names } = keyGroup(facts, file, kind);
      if (!names || !Array.isArray(frontmatter)) return;
      frontmatter.forEach((rule, ruleIndex) => {
        if (names.names.includes(rule.key)) return;
        inTarget(input.locateScope(at, [kind, index, 'frontmatter', ruleIndex, 'key']), `frontmatter key: expected one of ${facts.runtime}'s ${group} (${list(names)}), found "${rule.key}"`);
      });
    }
  }

  // Tool maps: a matcher map names hook tools; an agent rule's map names what an agent's tools list holds.
  const checkedMaps = new Set<string>();
  const checkMap = (name: string | undefined, group: NameGroup | undefined, label: string) => {
    const map = name ? definition.toolMaps?.[name] : undefined;
    if (!name || !map || !group || checkedMaps.has(`${name}:${label}`)) return;
    checkedMaps.add(`${name}:${label}`);
    for (const [from, to] of Object.entries(map.map)) {
      for (const tool of to ? toolNames(to) : []) {
        if (!group.names.includes(tool)) inTarget(input.locateTarget(['toolMaps', name, 'map', from]), `"toolMaps.${name}.map.${from}": expected ${label} ${definition.name} documents (${list(group)}), found "${tool}"`);
      }
    }
  };
  for (const [, scope] of scopes) {
    if (scope.hooks && !usesActions(scope.hooks)) checkMap(scope.hooks.matcherToolMap, facts.tools, 'a hook tool name');
    for (const surface of scope.agents) for (const rule of rulesOf(surface.frontmatter)) checkMap(rule.toolMap, facts.agentTools ?? facts.tools, 'an agent tool name');
  }

  // The per-turn listing limit: target.json's is the documented one, and a documented one is in target.json.
  const listing = definition.listing;
  const documentedListing = facts.listing;
  if (listing && !documentedListing && !facts.gaps?.['listing']) {
    inTarget(input.locateTarget(['listing']), `"listing": expected a "listing" group in facts.json documenting the runtime's limit (or a reason in "gaps.listing"), found none`);
  }
  if (documentedListing && !listing) inFacts(['listing'], `"listing": expected target.json to check the documented limit (${documentedListing.what}) in a "listing", found none`);
  if (listing && documentedListing) {
    for (const key of ['maxChars', 'maxTokens'] as const) {
      if (listing[key] === documentedListing[key]) continue;
      inTarget(input.locateTarget(listing[key] === undefined ? ['listing'] : ['listing', key]), `"listing.${key}": expected ${documentedListing[key] ?? 'none'} as facts.json documents (${documentedListing.what}), found ${listing[key] ?? 'none'}`);
    }
  }

  // Each documented limit is enforced somewhere; each prompt variable is forbidden in the text GSD writes.
  const allLimits = scopes.flatMap(([, scope]) => scope.limits ?? []);
  (facts.limits ?? []).forEach((fact, index) => {
    const { kind, value } = limitKind(fact);
    if (!allLimits.some((limit) => limit.frontmatterKey === fact.frontmatterKey && limit[kind] === value)) inFacts(['limits', index], `limit "${fact.what}": expected target.json to enforce it in a scope, found no limit with ${kind} ${JSON.stringify(value)}`);
  });
  facts.promptVariables?.names.forEach((name, index) => {
    const forbidden = allLimits.filter((limit) => limit.forbidden !== undefined).map((limit) => new RegExp(limit.forbidden!, 'u'));
    if (!forbidden.some((pattern) => pattern.test(`\${${name}}`))) inFacts(['promptVariables', 'names', index], `prompt variable "${name}": expected a "forbidden" limit in target.json that refuses \${${name}}, found none`);
  });
  return out;
}

/** A surface's frontmatter rules, nested object rules included. */
function rulesOf(frontmatter: FrontmatterRule[] | 'keep' | 'none' | undefined): FrontmatterRule[] {
  return Array.isArray(frontmatter) ? frontmatter.flatMap((rule) => [rule, ...rulesOf(rule.object)]) : [];
}
