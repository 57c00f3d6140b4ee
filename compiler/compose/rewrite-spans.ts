// Rewrites the typed spans the loader found (install root, command mentions,
// $ARGUMENTS, a router's table) into this target's and scope's words.
import type { RewriteSpan } from '../ir/types.ts';
import type { ComposeContext } from './compose-context.ts';
import type { Cut } from './cuts.ts';
import { rewriteRoot } from './rewrite-root.ts';

/** A cut for every span this bundle writes differently. */
export function spanCuts(spans: readonly RewriteSpan[], context: ComposeContext): Cut[] {
  return spans.flatMap((span) => {
    const replacement = rewriteSpan(span, context);
    return replacement === null ? [] : [{ start: span.start, end: span.end, replacement }];
  });
}

/** The span's text for this bundle, or null to keep it as written (a router's table outside a nested layout). */
export function rewriteSpan(span: RewriteSpan, { target, scope, routes }: ComposeContext): string | null {
  switch (span.kind) {
    case 'route': {
      const [stem = '', ...flags] = span.value.split(' ');
      const file = routes?.files.get(stem);
      return file === undefined ? null : `Read \`${file}\`${flags.length > 0 ? ` (${flags.join(' ')})` : ''}`;
    }
    case 'route-header':
      return routes ? routes.header : null;
    case 'route-instruction':
      return routes ? routes.instruction : null;
    case 'slash':
      return (target.slash ?? '/gsd-{name}').replace('{name}', span.value);
    case 'arguments':
      return target.arguments ?? '$ARGUMENTS';
    case 'root':
      return rewriteRoot(span.value, target, scope);
  }
}
