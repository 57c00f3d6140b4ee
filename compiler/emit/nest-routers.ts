// Namespace layout for runtimes whose skill loaders do not recurse: the six
// ns-* routers sit at the top and the commands they route live under them.
// A router's table then names files to read instead of skills to invoke.
import path from 'node:path';
import { compareText } from '../diagnostics.ts';
import type { IrNode } from '../ir/types.ts';

/** Routed command stem → the router that owns it (the first by name when several route it). */
export function routedCommands(commands: readonly IrNode[]): Map<string, string> {
  const owners = new Map<string, string>();
  const routers = commands.filter((command) => command.name.startsWith('ns-')).sort((a, b) => compareText(a.name, b.name));
  for (const router of routers) {
    for (const edge of router.edges) {
      if (edge.kind === 'requires' && edge.target !== router.name && !owners.has(edge.target)) owners.set(edge.target, router.name);
    }
  }
  return owners;
}

/**
 * Rewrites a rendered router: the `| User wants | Invoke |` table's last cells
 * (`gsd-<stem> [--flags]`) become reads of the nested SKILL.md, relative to the
 * router's own folder, and the closing instruction says to read, not invoke.
 */
export function nestRouterTable(text: string, routerPath: string, routes: ReadonlyMap<string, string>): string {
  const folder = path.posix.dirname(routerPath);
  return text
    .replace(/^(\|\s*User wants\s*\|\s*)Invoke(\s*\|)\s*$/m, '$1Read$2')
    .replace(/^(\|.*\|[ \t]*)`?gsd-([a-z0-9-]+)`?((?:[ \t]+--?[a-z][\w-]*)*)([ \t]*\|)[ \t]*$/gm, (row, head: string, stem: string, flags: string, tail: string) => {
      const target = routes.get(stem);
      if (!target) return row;
      const note = flags.trim() ? ` (${flags.trim()})` : '';
      return `${head}Read \`${path.posix.relative(folder, target)}\`${note}${tail}`;
    })
    .replace(/^.*\bSkill tool\b.*$/m, "Read the matched row's SKILL.md and follow it; the paths are relative to this skill's folder.");
}
