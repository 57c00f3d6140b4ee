// The whole compiler as named stages:
//   load → check → (compose, emit per target and scope) → write / compare.
// Only load and write touch the file system.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sortDiagnostics, type Diagnostic } from './diagnostics.ts';
import type { CorpusIr } from './ir/types.ts';
import { buildIr, type NodeMemo } from './load/build-ir.ts';
import { compilerFingerprint, hashParts, readCacheEntry, writeCacheEntry } from './cache/build-cache.ts';
import { loadHooks, loadSettingsHooks, type HookEntry } from './load/load-hooks.ts';
import { detectLayout, loadLayout, type Layout } from './load/layout.ts';
import { readSourceTree, type SourceFile } from './load/read-source-tree.ts';
import { buildCorpusRuntime, type BuiltRuntime } from './load/build-runtime.ts';
import { checkFrontmatter } from './check/check-frontmatter.ts';
import { checkReferences } from './check/check-references.ts';
import { checkStepFiles } from './check/check-step-files.ts';
import { checkBudgets, loadBudgets, measureBudgets, type BudgetRow, type LoadedBudgets } from './check/check-budgets.ts';
import { checkEmittedPaths, checkLimits, foreignRoots } from './check/check-emitted.ts';
import { checkOnlyBlocks } from './check/check-only-blocks.ts';
import { checkCliCalls, type CommandTable } from './check/check-cli-calls.ts';
import { checkOrphanReferences, checkUnreadConfigKeys, checkUnusedWhenAtoms, predicateAtoms, type SettingsSources } from './check/check-dead-settings.ts';
import type { WhenVocabulary } from './load/parse-sections.ts';
import { checkShellLiterals } from './check/check-shell-literals.ts';
import { checkCodeCommands, checkCommandCells, shippedCommandNames } from './check/check-code-commands.ts';
import { isConfigKey } from '../source/runtime/config/config.ts';
import { emitBundle, type GeneratedFile } from './emit/emit-bundle.ts';
import type { VirtualTree } from './emit/virtual-tree.ts';
import { loadTargets } from './targets/load-targets.ts';
import { SCOPE_IDS, type ScopeId, type Target } from './targets/target-types.ts';
import vocabularyData from './data/when-vocabulary.json' with { type: 'json' };

export const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const WHEN_VOCABULARY: ReadonlySet<string> = new Set(vocabularyData.atoms.map((entry) => entry.atom));
export const FROZEN_WHEN: WhenVocabulary = { atoms: WHEN_VOCABULARY, table: null };

/**
 * The when= atoms the layout allows: the runtime's own predicate table when the
 * layout says so and the tree has it (`always` is the constant every selection
 * evaluates), else the frozen vocabulary.
 */
export function whenVocabulary(files: readonly { path: string; bytes: Uint8Array }[], layout: Layout): WhenVocabulary {
  const table = layout.whenAtoms === 'predicate-table' && layout.settings ? files.find((file) => file.path === layout.settings!.whenPredicates) : undefined;
  if (!table) return FROZEN_WHEN;
  const atoms = predicateAtoms(new TextDecoder().decode(table.bytes)).map((a) => a.atom);
  return { atoms: new Set(['always', ...atoms]), table: table.path };
}

export interface CompileOptions {
  sourceDir: string;
  targetsDir?: string;
  /** A layout name from compiler/data/layouts; detected from the tree when absent. */
  layout?: string;
  /** Fill the IR's document outlines (only `gsd-build ir` shows them; they cost a full Markdown parse). */
  outline?: boolean;
  /** A build cache folder (compiler/cache): parsed nodes and built code are reused from it and stored in it. */
  cacheDir?: string;
  /** The source tree already read (readSourceTree), when the caller has it. */
  files?: SourceFile[];
}

export interface Compiled {
  /** The layout the tree was read with. */
  layout: string;
  /** Whether the corpus has runtime code (runtime/build.ts): without it, its bundles carry no gsd-tools. */
  shipsRuntimeCli: boolean;
  /** The layout's deliberate mentions of other runtimes' folders. */
  allowedForeignPaths: RegExp[];
  /** The layout's declared corpus defects (diagnostic code → reason): warnings, here and in emitted bundles. */
  layoutWarnings: Layout['warnings'];
  ir: CorpusIr;
  targets: Target[];
  budgets: LoadedBudgets | null;
  budgetRows: BudgetRow[];
  hooks: HookEntry[];
  generated: GeneratedFile[];
  version: string;
  /** Every finding of load and check, sorted, paths relative to the source dir. Any error means nothing may be written. */
  diagnostics: Diagnostic[];
  /** Findings in target definitions, paths relative to the targets dir. */
  targetDiagnostics: Diagnostic[];
}

/** load + check: everything that does not depend on a target. */
export async function compile(options: CompileOptions): Promise<Compiled> {
  const files = options.files ?? (await readSourceTree(options.sourceDir));
  const layout = options.layout ? loadLayout(options.layout) : detectLayout(new Set(files.map((file) => file.path)));
  const outline = options.outline ?? false;
  const vocabulary = whenVocabulary(files, layout);
  // One slot per source folder, so building two corpora in turn keeps both warm.
  const slot = hashParts([path.resolve(options.sourceDir)]).slice(0, 24);
  const memo = options.cacheDir ? readNodeMemo(options.cacheDir, slot, layout, outline, vocabulary) : undefined;
  const { ir, assets, diagnostics } = buildIr(files, vocabulary, layout, { outline, ...(memo ? { memo } : {}) });
  if (options.cacheDir && memo) writeNodeMemo(options.cacheDir, slot, memo);
  const { targets, diagnostics: targetDiagnostics } = await loadTargets(options.targetsDir);
  let budgets: LoadedBudgets | null = null;
  const budgetsFile = files.find((file) => file.path === 'budgets.json');
  if (budgetsFile) {
    const loaded = loadBudgets('budgets.json', new TextDecoder().decode(budgetsFile.bytes));
    budgets = loaded.loaded;
    diagnostics.push(...loaded.diagnostics);
  }
  const budgetRows = measureBudgets(ir.nodes, budgets?.budgets ?? null);
  let hooks: HookEntry[] = [];
  const hooksFile = layout.hooks ? files.find((file) => file.path === layout.hooks!.registry) : undefined;
  if (hooksFile) {
    const text = new TextDecoder().decode(hooksFile.bytes);
    const loaded = layout.hooks!.format === 'settings-json' ? loadSettingsHooks(text) : loadHooks(text, new Set(files.map((file) => file.path)));
    hooks = loaded.hooks;
    diagnostics.push(...loaded.diagnostics);
  }
  diagnostics.push(
    ...checkFrontmatter(ir.nodes),
    ...checkReferences(ir.nodes),
    ...checkStepFiles(ir.nodes),
    ...checkBudgets(budgetRows, budgets),
    ...checkOnlyBlocks(ir.nodes, targets.map((target) => target.definition.id)),
    ...cliCallFindings(files, layout, ir.nodes),
    ...checkShellLiterals(ir.nodes),
    ...checkCodeCommands(files, codeRoots(layout), shippedCommandNames(ir.nodes)),
    ...checkCommandCells(ir.nodes, new Set([...shippedCommandNames(ir.nodes), ...ir.nodes.filter((node) => node.kind === 'agent').map((node) => node.name), ...hooks.map((hook) => hook.id)])),
    ...deadSettingFindings(await settingsSources(options.sourceDir, files, layout, ir.nodes), ir.nodes, layout.settings?.maintainerDocs ?? []),
  );
  const runtime = await cachedRuntime(options, files, hookPayloads(targets));
  diagnostics.push(...runtime.diagnostics);
  const built = runtime.files;
  const generated: GeneratedFile[] = [
    // Built programs (a shebang line) are executables: mode 0755 in bundles and zips.
    ...built.map((file) => (startsWithShebang(file.contents) ? { ...file, executable: true } : file)),
    ...assets.map((asset) => ({ path: asset.path, contents: asset.bytes, verbatim: true as const, ...(isScript(asset.path) ? { executable: true } : {}) })),
    // A corpus without a build step ships its hook scripts as written.
    ...(built.length > 0 ? [] : ir.nodes.filter((node) => node.kind === 'hook').map((node) => ({ path: `hooks/${node.path.split('/').pop()}`, contents: node.text, executable: true, verbatim: true as const }))),
  ];
  return {
    layout: layout.name,
    shipsRuntimeCli: runtime.shipsCli,
    allowedForeignPaths: layout.allowedForeignPaths,
    layoutWarnings: layout.warnings,
    ir,
    targets,
    budgets,
    budgetRows,
    hooks,
    generated,
    version: await packageVersion(),
    diagnostics: sortDiagnostics(applySeverities(diagnostics, layout.warnings)),
    targetDiagnostics: sortDiagnostics(targetDiagnostics),
  };
}

export interface BundleSelection {
  target: string;
  scope: ScopeId;
}

/** Every target × scope the definitions declare. */
export function allBundles(targets: readonly Target[]): BundleSelection[] {
  return targets.flatMap((target) => SCOPE_IDS.filter((scope) => target.definition.scopes[scope]).map((scope) => ({ target: target.definition.id, scope })));
}

export function bundleKey(selection: BundleSelection): string {
  return `${selection.target}/${selection.scope}`;
}

/** compose + emit for each selection; diagnostics when an emitted tree breaks a rule. */
export function emitBundles(compiled: Compiled, selections: readonly BundleSelection[]): { bundles: Map<string, VirtualTree>; diagnostics: Diagnostic[] } {
  const bundles = new Map<string, VirtualTree>();
  const diagnostics: Diagnostic[] = [];
  const nodesByPath = new Map(compiled.ir.nodes.map((node) => [node.path, node]));
  for (const selection of selections) {
    const target = compiled.targets.find((candidate) => candidate.definition.id === selection.target)!;
    const tree = emitBundle({ ir: compiled.ir, target, scope: selection.scope, version: compiled.version, generated: compiled.generated, hooks: compiled.hooks });
    const key = bundleKey(selection);
    diagnostics.push(
      ...checkEmittedPaths(key, tree, foreignRoots(target, compiled.targets), nodesByPath, compiled.allowedForeignPaths),
      ...checkLimits(key, tree, target.definition.scopes[selection.scope]!.limits ?? []),
    );
    bundles.set(key, tree);
  }
  return { bundles, diagnostics: sortDiagnostics(applySeverities(diagnostics, compiled.layoutWarnings)) };
}

/** The hook payload specs of the targets built for, keyed by target id. */
function hookPayloads(targets: readonly Target[]): Record<string, unknown> {
  return Object.fromEntries(targets.filter((target) => target.hookPayload).map((target) => [target.definition.id, target.hookPayload]));
}

/**
 * The built code depends on the corpus's code, not its Markdown: the key
 * hashes every other source file (and the compiler's fingerprint, which
 * covers the locked dependencies), so a prose edit reuses the last build.
 */
async function cachedRuntime(options: CompileOptions, files: readonly { path: string; bytes: Uint8Array }[], payloads: Record<string, unknown>): Promise<BuiltRuntime> {
  if (!options.cacheDir) return buildCorpusRuntime(options.sourceDir, payloads, REPO_ROOT);
  const key = hashParts([compilerFingerprint(), JSON.stringify(payloads), ...files.filter((file) => !file.path.endsWith('.md')).flatMap((file) => [file.path, file.bytes])]);
  const slot = `generated-${hashParts([path.resolve(options.sourceDir)]).slice(0, 24)}`;
  const cached = readCacheEntry<BuiltRuntime>(options.cacheDir, slot, key);
  if (cached && Array.isArray(cached.files) && Array.isArray(cached.diagnostics) && typeof cached.shipsCli === 'boolean') return cached;
  const built = await buildCorpusRuntime(options.sourceDir, payloads, REPO_ROOT);
  // A failed build is not kept: its cause may lie outside the key (a missing package, say).
  if (built.diagnostics.length === 0) writeCacheEntry(options.cacheDir, slot, key, built);
  return built;
}

function readNodeMemo(cacheDir: string, slot: string, layout: Layout, outline: boolean, vocabulary: WhenVocabulary): NodeMemo {
  const salt = hashParts([compilerFingerprint(), layout.name, layout.routerPrefix ?? '', outline ? 'outline' : '', vocabulary.table ?? '', ...[...vocabulary.atoms].sort()]);
  const previous = readCacheEntry<Map<string, Uint8Array>>(cacheDir, `nodes-${slot}`, salt);
  return { salt, previous: previous instanceof Map ? previous : new Map(), next: new Map() };
}

/** Stores the nodes this build used (and only those), when they differ from what was read. */
function writeNodeMemo(cacheDir: string, slot: string, memo: NodeMemo): void {
  const same = memo.next.size === memo.previous.size && [...memo.next].every(([key, entry]) => memo.previous.get(key) === entry);
  if (!same) writeCacheEntry(cacheDir, `nodes-${slot}`, memo.salt, memo.next);
}

async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** The layout's declared corpus defects become warnings: printed and counted, never blocking. */
function applySeverities(diagnostics: Diagnostic[], warnings: Layout['warnings']): Diagnostic[] {
  return diagnostics.map((d) => (warnings[d.code] !== undefined ? { ...d, severity: 'warning' as const } : d));
}

export function errorsOf(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => (d.severity ?? 'error') === 'error');
}

function startsWithShebang(contents: string | Uint8Array): boolean {
  return typeof contents === 'string' ? contents.startsWith('#!') : contents[0] === 0x23 && contents[1] === 0x21;
}

function isScript(file: string): boolean {
  return /\.(?:sh|cjs|js)$/.test(file) && /(?:^|\/)(?:bin|hooks)\//.test(file);
}

/** Folders of the corpus's own code whose messages name commands: the CLI table's and the hook registry's. */
function codeRoots(layout: Layout): string[] {
  const folderOf = (file: string) => (file.includes('/') ? `${file.slice(0, file.lastIndexOf('/') + 1)}` : '');
  return [layout.cliTable, layout.hooks?.registry].filter((file): file is string => !!file && file.includes('/')).map(folderOf);
}

/** The texts the dead-settings check reads, as the layout places them; null parts when the corpus has none. */
async function settingsSources(sourceDir: string, files: readonly { path: string; bytes: Uint8Array }[], layout: Layout, nodes: CorpusIr['nodes']): Promise<SettingsSources | null> {
  const settings = layout.settings;
  if (!settings) return null;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const schemaPath = path.join(sourceDir, settings.configSchema);
  const schema = existsSync(schemaPath) ? { file: settings.configSchema, text: await readFile(schemaPath, 'utf8') } : null;
  const readers = new Map<string, string>();
  for (const node of nodes) if (!settings.configDocs.includes(node.path)) readers.set(node.path, node.text);
  for (const file of files) {
    if (settings.code.some((p) => file.path.startsWith(p)) && !settings.codeIgnore.some((p) => file.path.startsWith(p)) && file.path.endsWith('.ts')) readers.set(file.path, decode(file.bytes));
  }
  const predicatesFile = files.find((file) => file.path === settings.whenPredicates);
  return { schema, readers, predicates: predicatesFile ? { file: predicatesFile.path, text: decode(predicatesFile.bytes) } : null };
}

function deadSettingFindings(sources: SettingsSources | null, nodes: CorpusIr['nodes'], maintainerDocs: readonly string[]): Diagnostic[] {
  if (!sources) return [];
  return [...checkUnreadConfigKeys(sources), ...checkUnusedWhenAtoms(sources, nodes), ...checkOrphanReferences(nodes, maintainerDocs)];
}

/** Runtime-CLI calls against the command table the layout names, when the tree has one. */
function cliCallFindings(files: readonly { path: string; bytes: Uint8Array }[], layout: Layout, nodes: CorpusIr['nodes']): Diagnostic[] {
  const tableFile = layout.cliTable ? files.find((file) => file.path === layout.cliTable) : undefined;
  if (!tableFile) return [];
  // Template names as `template fill` takes them: the path under gsd-core/templates/ without `.md`.
  const templates = new Set(nodes.filter((node) => node.kind === 'template').map((node) => node.path.replace(/^.*?templates\//, '').replace(/\.md$/, '')));
  return checkCliCalls(nodes, JSON.parse(new TextDecoder().decode(tableFile.bytes)) as CommandTable, { isConfigKey, templates });
}
