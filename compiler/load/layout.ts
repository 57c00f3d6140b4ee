// Layout descriptions (compiler/data/layouts/*.json): how a GSD-layout tree
// maps to IR nodes, shipped assets and ignored files, which hook registry it
// has, and which findings are warnings for that corpus. A tree is matched to
// the first layout whose `detect` files it has; this project's own layout is
// the default.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { diagnostic, DIAGNOSTIC_CODES, formatDiagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';
import { parseJsonWithPositions } from './yaml-position.ts';
import type { NodeKind } from '../ir/types.ts';
import { LAYOUTS_DIR } from '../locations.ts';
import { layoutNames } from './layout-names.ts';

export interface Layout {
  name: string;
  detect: string[];
  nodes: { pattern: RegExp; kind: NodeKind }[];
  assets: RegExp[];
  ignore: RegExp[];
  families: string[];
  external: RegExp[];
  /**
   * The hook registry: a corpus file (`registry`), or registrations written in the layout (`entries`,
   * settings.json's hooks shape with each command the script's corpus path) for a corpus whose installer
   * registers its hooks in code.
   */
  hooks?: { registry?: string; entries?: Record<string, { matcher?: string; hooks: { command: string; timeout?: number }[] }[]>; format: 'gsd-hooks' | 'settings-json' };
  warnings: Partial<Record<DiagnosticCode, string>>;
  /** Text that names another runtime's folder on purpose (regex → reason); the leak check lets it be. */
  allowedForeignPaths: RegExp[];
  /** The runtime CLI's command table, against which every call in the corpus is checked. */
  cliTable?: string;
  /** The payload folder (workflows, references, templates, bin/): `gsd-core` unless the layout names another. */
  payload: string;
  /** Commands whose name starts with this are routers (their table routes to other commands). */
  routerPrefix?: string;
  /** Where the dead-settings check finds the config schema, the code that reads config, and the when= predicates. */
  settings?: LayoutSettings;
  /** The folder of the corpus's own capabilities (<folder>/<id>/capability.json), read by load-capabilities. */
  capabilities?: string;
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
  $comment?: string;
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
  payload?: string;
  settings?: LayoutSettings;
  capabilities?: string;
  whenAtoms?: Layout['whenAtoms'];
}

export const DEFAULT_LAYOUT = 'gsd-build';
/** The payload folder of a layout that names none. */
export const DEFAULT_PAYLOAD = 'gsd-core';

/** A built-in layout of compiler/data/layouts by name; they are checked like a user's (a test builds every one). */
export function loadLayout(name: string): Layout {
  const file = path.join(LAYOUTS_DIR, `${name}.json`);
  const { layout, diagnostics } = parseLayout(`compiler/data/layouts/${name}.json`, readFileSync(file, 'utf8'));
  if (!layout) throw new Error(`internal: ${diagnostics.map((d) => formatDiagnostic(d)).join('\n')}`);
  return layout;
}

/**
 * Pure: the text of a layout file (a built-in one or `--layout FILE`) →
 * a layout, or positioned diagnostics: not JSON, not schemas/layout.schema.json,
 * a pattern that is not a regular expression (or a node pattern without a
 * `name` group), a warning keyed by no diagnostic code.
 */
export function parseLayout(file: string, text: string): { layout: Layout | null; diagnostics: Diagnostic[] } {
  const parsed = parseJsonWithPositions(text);
  if (parsed.error) return { layout: null, diagnostics: [diagnostic(file, parsed.error.line, parsed.error.column, 'layout-schema', `expected JSON, found ${parsed.error.message}`)] };
  const { locate: at } = parsed;
  const report = (keyPath: (string | number)[], message: string, atKey = false) => {
    const { line, column } = at(keyPath, atKey);
    return diagnostic(file, line, column, 'layout-schema', message);
  };
  const validate = schemaValidator('layout.schema.json');
  if (!validate(parsed.data)) return { layout: null, diagnostics: describeSchemaErrors(validate.errors, parsed.data).map((finding) => report(finding.path, finding.message, finding.atKey)) };
  const data = parsed.data as LayoutData;
  const diagnostics: Diagnostic[] = [];
  const regex = (source: string, keyPath: (string | number)[], atKey = false): RegExp => {
    try {
      return new RegExp(source);
    } catch (error) {
      diagnostics.push(report(keyPath, `expected a regular expression, found ${JSON.stringify(source)} (${(error as Error).message})`, atKey));
      return /$^/;
    }
  };
  const nodes = data.nodes.map((entry, index) => {
    const pattern = regex(entry.pattern, ['nodes', index, 'pattern']);
    if (!entry.pattern.includes('(?<name>')) diagnostics.push(report(['nodes', index, 'pattern'], `expected a pattern with a (?<name>…) group, found ${JSON.stringify(entry.pattern)}`));
    return { pattern, kind: entry.kind as NodeKind };
  });
  const list = (key: 'assets' | 'ignore' | 'external') => data[key].map((source, index) => regex(source, [key, index]));
  for (const code of Object.keys(data.warnings)) {
    if (!(code in DIAGNOSTIC_CODES)) diagnostics.push(report(['warnings', code], `expected a diagnostic code (compiler/diagnostics.ts), found "${code}"`, true));
  }
  const layout: Layout = {
    name: data.name,
    detect: data.detect,
    nodes,
    assets: list('assets'),
    ignore: list('ignore'),
    families: data.families,
    external: list('external'),
    ...(data.hooks ? { hooks: data.hooks } : {}),
    warnings: data.warnings as Layout['warnings'],
    allowedForeignPaths: Object.keys(data.allowedForeignPaths).map((source) => regex(source, ['allowedForeignPaths', source], true)),
    ...(data.cliTable ? { cliTable: data.cliTable } : {}),
    payload: data.payload ?? DEFAULT_PAYLOAD,
    ...(data.routerPrefix ? { routerPrefix: data.routerPrefix } : {}),
    ...(data.settings ? { settings: data.settings } : {}),
    ...(data.capabilities ? { capabilities: data.capabilities } : {}),
    whenAtoms: data.whenAtoms ?? 'frozen-vocabulary',
  };
  return diagnostics.length > 0 ? { layout: null, diagnostics } : { layout, diagnostics };
}


/** The layout whose detect files the tree has, else the default. */
export function detectLayout(paths: ReadonlySet<string>): Layout {
  for (const name of layoutNames()) {
    const detect = detectFiles(name);
    if (detect.length > 0 && detect.some((file) => paths.has(file))) return loadLayout(name);
  }
  return loadLayout(DEFAULT_LAYOUT);
}

/**
 * A built-in layout's detect files, read without the positioned parse and the
 * schema check, which every build would otherwise pay for each built-in layout:
 * only the layout detected is loaded whole. A file that does not read as one
 * is loaded whole, which reports what is wrong with it.
 */
function detectFiles(name: string): readonly string[] {
  let detect: unknown;
  try {
    detect = (JSON.parse(readFileSync(path.join(LAYOUTS_DIR, `${name}.json`), 'utf8')) as { detect?: unknown } | null)?.detect;
  } catch {
    detect = undefined;
  }
  return Array.isArray(detect) && detect.every((file) => typeof file === 'string') ? detect : loadLayout(name).detect;
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
