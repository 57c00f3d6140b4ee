// gsd-core/bin/runtime.json: what the runtime CLI of one bundle knows about
// it (source/runtime/core/bundle-facts.ts reads it). The CLI's code is the
// same in every bundle; these facts are what differ, so no bundle's code
// names another runtime's root or instruction file.
import type { BundleFacts } from '../../source/runtime/core/bundle-facts.ts';
import { landingPolicy } from '../targets/landing-policy.ts';
import type { ScopeId, TargetDefinition } from '../targets/target-types.ts';
import { composeString } from '../compose/compose-text.ts';

/** The canonical forms, rendered for the bundle the way its prose is. */
const CANONICAL_INVOCATION = 'node "$HOME/.claude/gsd-core/bin/gsd-tools.cjs"';
const CANONICAL_INSTRUCTIONS = 'CLAUDE.md';

export function bundleFacts(definition: TargetDefinition, scopeId: ScopeId, version: string): BundleFacts {
  const scope = definition.scopes[scopeId];
  if (!scope) throw new Error(`internal: ${definition.id} has no ${scopeId} scope`);
  const context = { target: definition, scope, version };
  return {
    target: definition.id,
    runtime: definition.name,
    scope: scopeId,
    root: scope.root,
    base: scope.base,
    instructionFile: composeString(CANONICAL_INSTRUCTIONS, context),
    invocation: composeString(CANONICAL_INVOCATION, context),
    landing: landingPolicy(definition, scopeId),
  };
}

export function bundleFactsText(definition: TargetDefinition, scopeId: ScopeId, version: string): string {
  return `${JSON.stringify(bundleFacts(definition, scopeId, version), null, 2)}\n`;
}
