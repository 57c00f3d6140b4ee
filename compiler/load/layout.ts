// Layout descriptions (compiler/data/layouts/*.json): how a GSD-layout tree
// maps to IR nodes, shipped assets and ignored files, which hook registry it
// has, and which findings are warnings for that corpus. A tree is matched to
// the first layout whose `detect` files it has; this project's own layout is
// the default.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { DiagnosticCode } from '../diagnostics.ts';
import type { NodeKind } from '../ir/types.ts';

export interface Layout {
  name: string;
  detect: string[];
  nodes: { pattern: RegExp; kind: NodeKind }[];
  assets: RegExp[];
  ignore: RegExp[];
  families: string[];
  external: RegExp[];
  hooks?: { registry: string; format: 'gsd-hooks' | 'settings-json' };
  warnings: Partial<Record<DiagnosticCode, string>>;
  /** Text that names another runtime's folder on purpose (regex → reason); the leak check lets it be. */
  allowedForeignPaths: RegExp[];
  /** The runtime CLI's command table, against which every call in the corpus is checked. */
  cliTable?: string;
  /** Commands whose name starts with this are routers (their table routes to other commands). */
  routerPrefix?: string;
  /** Where the dead-settings check finds the config schema, the code that reads config, and the when= predicates. */
  settings?: LayoutSettings;
  /**
   * Which atoms a marker's when= may name: `predicate-table`, the runtime CLI's
   * own table at `settings.whenPredicates` (a corpus whose runtime selects its
   * sections); `frozen-vocabulary`, compiler/data/when-vocabulary.json (a corpus
   * whose runtime is not ours to read, such as the upstream one).
   */
  whenAtoms: 'predicate-table' | 'frozen-vocabulary';
}

export interface LayoutSettings {
  /** The config schema, relative to the corpus root (it may sit beside it: ../schemas/…). */
  configSchema: string;
  /** Path prefixes of code that reads config (runtime CLI, hooks). */
  code: string[];
  /** Path prefixes under `code` that do not count (tests). */
  codeIgnore: string[];
  /** Documents that describe or set config keys without acting on them. */
  configDocs: string[];
  /** The runtime's when= predicate table. */
  whenPredicates: string;
  /** References written for people who edit the corpus: shipped, never loaded, not orphans. */
  maintainerDocs?: string[];
}

interface LayoutData {
  name: string;
  detect: string[];
  nodes: { pattern: string; kind: string }[];
  assets: string[];
  ignore: string[];
  families: string[];
  external: string[];
  hooks?: Layout['hooks'];
  warnings: Record<string, string>;
  allowedForeignPaths: Record<string, string>;
  cliTable?: string;
  routerPrefix?: string;
  settings?: LayoutSettings;
  whenAtoms?: Layout['whenAtoms'];
}

const LAYOUTS_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), '../data/layouts');
export const DEFAULT_LAYOUT = 'gsd-build';

export function loadLayout(name: string): Layout {
  const data = JSON.parse(readFileSync(path.join(LAYOUTS_DIR, `${name}.json`), 'utf8')) as LayoutData;
  return {
    name: data.name,
    detect: data.detect,
    nodes: data.nodes.map((entry) => ({ pattern: new RegExp(entry.pattern), kind: entry.kind as NodeKind })),
    assets: data.assets.map((pattern) => new RegExp(pattern)),
    ignore: data.ignore.map((pattern) => new RegExp(pattern)),
    families: data.families,
    external: data.external.map((pattern) => new RegExp(pattern)),
    ...(data.hooks ? { hooks: data.hooks } : {}),
    warnings: data.warnings as Layout['warnings'],
    allowedForeignPaths: Object.keys(data.allowedForeignPaths).map((pattern) => new RegExp(pattern)),
    ...(data.cliTable ? { cliTable: data.cliTable } : {}),
    ...(data.routerPrefix ? { routerPrefix: data.routerPrefix } : {}),
    ...(data.settings ? { settings: data.settings } : {}),
    whenAtoms: data.whenAtoms ?? 'frozen-vocabulary',
  };
}

export function layoutNames(): string[] {
  return readdirSync(LAYOUTS_DIR)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
}

/** The layout whose detect files the tree has, else the default. */
export function detectLayout(paths: ReadonlySet<string>): Layout {
  for (const name of layoutNames()) {
    const layout = loadLayout(name);
    if (layout.detect.length > 0 && layout.detect.some((file) => paths.has(file))) return layout;
  }
  return loadLayout(DEFAULT_LAYOUT);
}

export interface Classified {
  kind: NodeKind;
  name: string;
  parent?: string;
  variant?: string;
}

/** The node a path holds; 'asset', 'ignored', or 'unknown' for a misplaced file. */
export function classifyPath(layout: Layout, file: string): Classified | 'asset' | 'ignored' | 'unknown' {
  for (const { pattern, kind } of layout.nodes) {
    const match = pattern.exec(file);
    if (match?.groups) {
      const { name, parent, variant } = match.groups;
      return {
        kind,
        name: parent ? `${parent}/${name}` : name!,
        ...(parent ? { parent: `workflow:${parent}` } : {}),
        ...(variant ? { variant } : {}),
      };
    }
  }
  if (layout.assets.some((pattern) => pattern.test(file))) return 'asset';
  if (layout.ignore.some((pattern) => pattern.test(file))) return 'ignored';
  return layout.families.some((family) => file.startsWith(family)) ? 'unknown' : 'ignored';
}
