// Rewrites the canonical install root for one bundle.
import type { TargetDefinition, TargetScope } from '../targets/target-types.ts';

/**
 * The canonical root `~/.claude` (or `$HOME/.claude`, `./.claude`, `.claude`)
 * becomes this bundle's root: home-relative in global bundles, project-relative
 * in local ones. `./.claude` always means the project's own folder.
 */
export function rewriteRoot(anchor: string, target: TargetDefinition, scope: TargetScope): string {
  const projectRoot = target.scopes.local?.root ?? scope.root;
  if (anchor === '.') return `./${projectRoot}`;
  if (anchor === '') return scope.root;
  return scope.base === 'home' ? `${anchor}/${scope.root}` : scope.root;
}
