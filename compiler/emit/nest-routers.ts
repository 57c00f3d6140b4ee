// Namespace layout for runtimes whose skill loaders do not recurse: the
// routers (the layout's router prefix, IR `router`) sit at the top and the
// commands they route live under them. A router's table then names files to
// read instead of skills to invoke: its route spans (load/router-routes.ts)
// render as reads, in the target's words (compose/rewrite-spans.ts).
import path from 'node:path';
import { compareText } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';
import type { RouterReads } from '../compose/compose-context.ts';

/** Routed command stem → the router that owns it (the first by name when several route it). */
export function routedCommands(commands: readonly IrNode[]): Map<string, string> {
  const owners = new Map<string, string>();
  const routers = commands.filter((command) => command.router).sort((a, b) => compareText(a.name, b.name));
  for (const router of routers) {
    for (const edge of router.edges) {
      if (edge.kind === 'requires' && edge.target !== router.name && !owners.has(edge.target)) owners.set(edge.target, router.name);
    }
  }
  return owners;
}

/** What a nested router's rows read: each routed command's file relative to the router's folder, in the target's words. */
export function routerReads(routerPath: string, routes: ReadonlyMap<string, string>, nested: { header: string; instruction: string }): RouterReads {
  const folder = path.posix.dirname(routerPath);
  return { files: new Map([...routes].map(([stem, file]) => [stem, path.posix.relative(folder, file)])), header: nested.header, instruction: nested.instruction };
}
