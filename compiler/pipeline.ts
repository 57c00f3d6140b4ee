// The whole compiler as named stages:
//   load → check → (compose, emit per target and scope) → write / compare.
// Only load and write touch the file system.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { diagnostic, sortDiagnostics, type Diagnostic } from './diagnostics.ts';
import type { CorpusIr } from './ir/types.ts';
import { buildIr, type EarlierParse, type NodeMemo } from './load/build-ir.ts';
import { loadMarkdown, withMarkdown } from './load/markdown-parsers.ts';
import { compilerFingerprint, hasCacheEntry, hashParts, readBytesMap, readCacheEntry, readTree, writeBytesMap, writeCacheEntry } from './cache/build-cache.ts';
import { loadHooks, loadSettingsHooks, type HookEntry } from './load/load-hooks.ts';
import { detectLayout, loadLayout, type Layout } from './load/layout.ts';
import { readSourceTree, sourceDigest, type SourceFile } from './load/read-source-tree.ts';
import { firstPartySources, loadCapabilities, type Capability, type CapabilityHook, type CapabilitySource, type ConfigKeySpec, type SchemaNode } from './load/load-capabilities.ts';
import { composeCapabilities, inComposedText, inlineSections, placeOwnFiles, remapDiagnostics, type LineOrigin } from './compose/compose-capabilities.ts';
import { buildCorpusRuntime, bundleCorpusBuilder, type BuiltRuntime, type PreparedBuilder } from './load/build-runtime.ts';
import { checkFrontmatter } from './check/check-frontmatter.ts';
import { checkReferences } from './check/check-references.ts';
import { checkStepFiles } from './check/check-step-files.ts';
import { checkVariants } from './check/check-variants.ts';
import { checkLoopPoints } from './check/check-loop-points.ts';
import { checkBudgets, loadBudgets, measureBudgets, type BudgetRow, type LoadedBudgets } from './check/check-budgets.ts';
import { checkEmittedPaths, checkLimits, checkPathCollisions, foreignRoots, leakScan, limitCheck, type ForeignRoots, type LeakScan, type LimitCheck } from './check/check-emitted.ts';
import { checkOnlyBlocks } from './check/check-only-blocks.ts';
import { checkCliCalls, type CommandTable } from './check/check-cli-calls.ts';
import { loadShellParser } from './load/cli-calls.ts';
import { sameFacts, withTextFacts, type TextFactsMemo } from './util/text-facts.ts';
import { checkOrphanReferences, checkUnreadConfigKeys, checkUnusedWhenAtoms, predicateAtoms, type SettingsSources } from './check/check-dead-settings.ts';
import type { WhenVocabulary } from './load/parse-sections.ts';
import { checkShellLiterals } from './check/check-shell-literals.ts';
import { checkCodeCommands, checkCommandCells, shippedCommandNames } from './check/check-code-commands.ts';
import { isConfigKey } from '../source/runtime/config/config.ts';
import { emitBundle, generatedFacts, hookScriptName, verbatimFile, type GeneratedFile } from './emit/emit-bundle.ts';
import type { BundleDelta, EmissionShape, LastEmission, ReusedFile, UnitReuse } from './emit/render-units.ts';
import { nodeDigest } from './ir/node-digest.ts';
import { encodedText, releaseEncoded } from './emit/content-facts.ts';
import { MANIFEST_FILE, README_FILE } from './emit/bundle-manifest.ts';
import type { BundleRecord } from './write/output-state.ts';
import { recordMap } from './write/write-tree.ts';
import { capabilityHookFindings } from './emit/hook-formats.ts';
import { checkListing, listedFiles, listedOf, listingCost } from './report/listing-cost.ts';
import { commandsOf, FULL_PROFILE, loadProfiles, profileLabel, selectProfile, type LoadedProfiles } from './compose/select-profile.ts';
import { digestOf, byteLengthOf, factsOf, isTextFile, renderedText, type FileFacts, type TreeFile, type VirtualTree } from './emit/virtual-tree.ts';
import { loadTargets } from './targets/load-targets.ts';
import { DEFAULT_TARGETS_DIR, REPO_ROOT } from './locations.ts';
import { SCOPE_IDS, type ScopeId, type Target } from './targets/target-types.ts';
import vocabularyData from './data/when-vocabulary.json' with { type: 'json' };

export { REPO_ROOT };
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
  /** Third-party capability folders (--capability), composed in after the corpus's own. */
  capabilities?: CapabilitySource[];
  /** A layout name from compiler/data/layouts, or a parsed layout (--layout FILE); detected from the tree when absent. */
  layout?: string | Layout;
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
  /** The corpus's skill profiles (profiles.json); null when it has none, and then only the full profile exists. */
  profiles: LoadedProfiles | null;
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
  const sourceFiles = options.files ?? (await readSourceTree(options.sourceDir));
  const layout = typeof options.layout === 'string' ? loadLayout(options.layout) : (options.layout ?? detectLayout(new Set(sourceFiles.map((file) => file.path))));
  const version = await packageVersion();
  const outline = options.outline ?? false;
  const vocabulary = whenVocabulary(sourceFiles, layout);
  // One slot per source folder, so building two corpora in turn keeps both warm.
  const slot = hashParts([path.resolve(options.sourceDir)]).slice(0, 24);
  // With no runtime kept for this folder (a cold build), bundling the corpus's builder starts at once.
  const builder = runtimeKept(options, slot) ? undefined : bundleCorpusBuilder(options.sourceDir);
  // The targets and the capabilities are loaded first: the runtime build needs
  // both, and then runs (esbuild's own process, worker threads) beside the parse.
  const { targets, diagnostics: targetDiagnostics } = options.cacheDir ? await cachedTargets(options.cacheDir, options.targetsDir ?? DEFAULT_TARGETS_DIR) : await loadTargets(options.targetsDir);
  const capabilities = await capabilityStage(options, layout, version);
  const runtimeBuild = cachedRuntime(options, slot, sourceFiles, hookPayloads(targets), configSlices(capabilities?.capabilities ?? []), builder);
  runtimeBuild.catch(() => {}); // awaited below, where a failure is thrown
  const memo = options.cacheDir ? readNodeMemo(options.cacheDir, slot, layout, outline, vocabulary) : undefined;
  if (outline) await loadMarkdown();
  const corpus = await withMarkdown(() => buildIr(sourceFiles, vocabulary, layout, { outline, ...(memo ? { memo } : {}) }));
  if (options.cacheDir && memo) writeNodeMemo(options.cacheDir, slot, memo);
  const { assets, diagnostics } = corpus;
  let budgets: LoadedBudgets | null = null;
  const budgetsFile = sourceFiles.find((file) => file.path === 'budgets.json');
  if (budgetsFile) {
    const loaded = loadBudgets('budgets.json', new TextDecoder().decode(budgetsFile.bytes));
    budgets = loaded.loaded;
    diagnostics.push(...loaded.diagnostics);
  }
  const composed = await composeStage(options, layout, capabilities, sourceFiles, corpus.ir, corpus.parsed, budgets, vocabulary, slot);
  diagnostics.push(...composed.diagnostics);
  const { ir, files } = composed;
  const budgetRows = measureBudgets(ir.nodes, budgets?.budgets ?? null);
  let profiles: LoadedProfiles | null = null;
  const profilesFile = files.find((file) => file.path === 'profiles.json');
  if (profilesFile) {
    const loaded = loadProfiles('profiles.json', new TextDecoder().decode(profilesFile.bytes), new Set(ir.nodes.filter((node) => node.kind === 'command').map((node) => node.name)));
    profiles = loaded.loaded;
    diagnostics.push(...loaded.diagnostics);
    // Every profile must be closed: no file it ships sends the user to a command it leaves out.
    for (const [name, definition] of Object.entries(profiles?.profiles.profiles ?? {})) if (!definition.addon) diagnostics.push(...selectProfile(ir, commandsOf([name], profiles!.profiles), name).diagnostics);
  }
  let hooks: HookEntry[] = [];
  const hooksFile = layout.hooks?.registry !== undefined ? files.find((file) => file.path === layout.hooks!.registry) : undefined;
  const hooksText = layout.hooks?.entries ? JSON.stringify({ hooks: layout.hooks.entries }) : hooksFile ? new TextDecoder().decode(hooksFile.bytes) : undefined;
  if (hooksText !== undefined) {
    const loaded = layout.hooks!.format === 'settings-json' ? loadSettingsHooks(hooksText) : loadHooks(hooksText, new Set(files.map((file) => file.path)));
    hooks = loaded.hooks;
    diagnostics.push(...loaded.diagnostics);
    // Registrations a layout writes name corpus files: each script must be there.
    for (const [event, groups] of Object.entries(layout.hooks!.entries ?? {})) {
      for (const hook of groups.flatMap((group) => group.hooks)) {
        if (!files.some((file) => file.path === hook.command)) diagnostics.push(diagnostic(hook.command, 1, 1, 'layout-schema', `expected the hook script the ${layout.name} layout registers for ${event} in the corpus, found no such file`));
      }
    }
  }
  const capabilityHooks = registerCapabilityHooks(hooks, composed.hooks);
  hooks = [...hooks, ...capabilityHooks.hooks];
  diagnostics.push(...capabilityHooks.diagnostics);
  // The CLI-call and shell-literal checks read shell with tree-sitter-bash.
  await loadShellParser();
  const settings = await settingsSources(options.sourceDir, files, layout, ir.nodes);
  // Without a cache, a process that builds again (watch --no-cache) still keeps its last build's.
  const factsMemo: TextFactsMemo = { previous: options.cacheDir ? readTextFacts(options.cacheDir, slot) : (uncachedFacts.get(slot) ?? new Map()), next: new Map() };
  const checked: Diagnostic[] = withTextFacts(factsMemo, () => [
    ...checkFrontmatter(ir.nodes),
    ...checkReferences(ir.nodes),
    ...checkStepFiles(ir.nodes, inlineSections(ir.composition)),
    ...checkVariants(ir.nodes),
    ...checkLoopPoints(ir.nodes),
    ...checkBudgets(budgetRows, budgets),
    ...checkOnlyBlocks(ir.nodes, targets.map((target) => target.definition.id)),
    ...cliCallFindings(files, layout, ir.nodes),
    ...checkShellLiterals(ir.nodes),
    ...checkCodeCommands(files, codeRoots(layout), shippedCommandNames(ir.nodes)),
    ...checkCommandCells(ir.nodes, new Set([...shippedCommandNames(ir.nodes), ...ir.nodes.filter((node) => node.kind === 'agent').map((node) => node.name), ...hooks.map((hook) => hook.id)])),
    ...deadSettingFindings(settings, ir.nodes, layout.settings?.maintainerDocs ?? []),
  ]);
  if (!options.cacheDir) uncachedFacts.set(slot, factsMemo.next);
  else if (!sameFacts(factsMemo)) writeCacheEntry(options.cacheDir, `text-facts-${slot}`, compilerFingerprint(), factsMemo.next);
  // Findings on composed text belong to the files people edit: a host's own lines, a fragment, capability.json.
  diagnostics.push(...(composed.origins ? remapDiagnostics(checked, composed.origins) : checked));
  const runtime = await runtimeBuild;
  diagnostics.push(...runtime.diagnostics);
  const built = runtime.files;
  const generated: GeneratedFile[] = [
    // Built programs (a shebang line) are executables: mode 0755 in bundles and zips.
    ...built.map((file) => (startsWithShebang(file.contents) ? { ...file, executable: true } : file)),
    ...assets.map((asset) => verbatimFile(asset, isScript(asset.path))),
    // A corpus without a build step ships its hook scripts as written.
    ...(built.length > 0 ? [] : ir.nodes.filter((node) => node.kind === 'hook').map((node) => ({ path: `hooks/${node.path.split('/').pop()}`, contents: node.text, executable: true, verbatim: true as const }))),
    // A capability's hook scripts are built code of its own: shipped as written.
    ...capabilityHooks.scripts,
  ];
  return {
    layout: layout.name,
    // Built from runtime/build.ts, or shipped as the corpus has it (upstream's and the predecessor's <payload>/bin/gsd-tools.cjs).
    shipsRuntimeCli: runtime.shipsCli || assets.some((asset) => asset.path === `${layout.payload}/bin/gsd-tools.cjs`),
    allowedForeignPaths: layout.allowedForeignPaths,
    layoutWarnings: layout.warnings,
    ir,
    targets,
    budgets,
    budgetRows,
    profiles,
    hooks,
    generated,
    version,
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

/** The IR a set of profiles ships (their union) and the label bundles record; the full profile is the IR itself. */
export function profileIr(compiled: Compiled, names: readonly string[] = [FULL_PROFILE]): { ir: CorpusIr; label: string; diagnostics: Diagnostic[] } {
  const table = compiled.profiles?.profiles ?? null;
  const label = profileLabel(names, table);
  const selected = selectProfile(compiled.ir, commandsOf(names, table), label);
  return { ir: selected.ir, label, diagnostics: selected.diagnostics };
}

/**
 * What an incremental build hands emit (compiler/incremental.ts): for a bundle
 * the last build left on disk exactly as it wrote it, that build's render
 * units, each with its files' facts, and the bundle's record of those files.
 */
export interface UnitSource {
  /** `heldBack`: files whose units are rendered again although the record holds them (a check shows their diffs). */
  previous(bundle: string): { units: StoredUnits; record: BundleRecord; heldBack?: ReadonlySet<string> } | undefined;
  /**
   * This process's last emission of the bundle, while the bundle's trusted
   * record is the one that emission was written with (a resident build: watch).
   * Without it, no emission is kept for the next build.
   */
  emission?(bundle: string): Emission | undefined;
}

/** A bundle's emission as the next build in this process takes it up (emitBundle's delta). */
export interface Emission extends LastEmission {
  /** The bundle's salt (render-units.ts). */
  salt: string;
  /** The built files it shipped (generatedKey). */
  generated: string;
  /** The nodes it was emitted from: a delta needs the same paths in the same order. */
  nodes: NodeList;
}

/** A build's nodes: each path and its digest (ir/node-digest.ts), in IR order. */
interface NodeList {
  paths: string[];
  digests: string[];
  kinds: string[];
}

function nodeListOf(nodes: CorpusIr['nodes']): NodeList {
  return { paths: nodes.map((node) => node.path), digests: nodes.map(nodeDigest), kinds: nodes.map((node) => node.kind) };
}

/**
 * The nodes whose units a delta keys again: those whose digest changed and,
 * when any command changed, every command (where a command lands depends on
 * the others: nested routers). Null when the node lists differ in paths or
 * order: the units themselves are then other ones.
 */
function redoneNodes(last: NodeList, now: NodeList): Set<string> | null {
  if (last.paths.length !== now.paths.length) return null;
  const redone = new Set<string>();
  let commandChanged = false;
  for (let index = 0; index < now.paths.length; index += 1) {
    if (last.paths[index] !== now.paths[index] || last.kinds[index] !== now.kinds[index]) return null;
    if (last.digests[index] !== now.digests[index]) {
      redone.add(now.paths[index]!);
      if (now.kinds[index] === 'command') commandChanged = true;
    }
  }
  if (commandChanged) for (let index = 0; index < now.paths.length; index += 1) if (now.kinds[index] === 'command') redone.add(now.paths[index]!);
  return redone;
}

/** The built files a bundle may ship, as one key: a delta leaves their units as they were, so they must be the same. */
function generatedKey(generated: readonly GeneratedFile[]): string {
  return hashParts(generated.flatMap((file) => [file.path, generatedFacts(file).sha256, file.executable ? 'x' : '-', file.verbatim ? 'v' : '-', file.runtime ?? '']));
}

/** A file as the next build reuses it: no bytes, every fact the manifest and the checks read. */
function reusedForm(entry: TreeFile): TreeFile {
  if (entry.reused) return entry;
  const { sha256, bytes, leaks = [], limits = [], listed } = entry.facts ?? {};
  const reused: TreeFile = { contents: '', reused: true, facts: { sha256: sha256!, bytes: bytes!, leaks, limits, ...(listed ? { listed } : {}) } };
  if (entry.executable) reused.executable = true;
  if (entry.source !== undefined) reused.source = entry.source;
  if (entry.generated) reused.generated = true;
  if (entry.verbatim) reused.verbatim = true;
  if (entry.merge !== undefined) reused.merge = entry.merge;
  return reused;
}

/**
 * Turns every rendered file of a tree the writer has taken (its bytes are on
 * their way to disk) into its reused form, facts only, so that a build holds
 * one bundle's texts at a time, not every bundle's to the end: on the upstream
 * corpus, all bundles, 352 MB of heap still live after emit, now 84 MB.
 */
export function releaseTexts(tree: VirtualTree): void {
  for (const [file, entry] of tree) {
    if (entry.reused || !isTextFile(entry)) continue;
    digestOf(entry);
    byteLengthOf(entry);
    tree.set(file, reusedForm(entry));
    if (entry.encoded) releaseEncoded(entry.contents as Uint8Array);
  }
}

/**
 * A rendered text's facts, read now (digest and size, leak hits, limit
 * findings, listed fields: what the manifest, the checks and the next build
 * read), and the text itself kept as its UTF-8 bytes (EmitOptions.encodeTexts).
 */
function encodeText(file: string, entry: TreeFile, leaks: LeakScan, limits: LimitCheck, listed: readonly RegExp[]): void {
  const { sha256, bytes, encoded } = encodedText(renderedText(entry));
  const facts = factsOf(entry);
  facts.sha256 = sha256;
  facts.bytes = bytes;
  leaks.hitsOf(entry);
  limits(file, entry);
  if (listed.some((pattern) => pattern.test(file))) listedOf(entry);
  entry.contents = encoded;
  entry.encoded = true;
}

/**
 * A checked tree as the next delta starts from it: without its manifest and
 * README, every file in reused form. A delta's own body (emitBundle made it for
 * this tree and nothing else holds it) has only its changed files turned.
 */
function emissionBody(tree: VirtualTree, shape: EmissionShape): VirtualTree {
  if (shape.body && shape.changed) {
    for (const file of shape.changed) shape.body.set(file, reusedForm(tree.get(file)!));
    return shape.body;
  }
  const body: VirtualTree = new Map();
  for (const [file, entry] of tree) if (file !== MANIFEST_FILE && file !== README_FILE) body.set(file, reusedForm(entry));
  return body;
}

/**
 * A bundle's render units as stored: the salt of every input but the units' own
 * (render-units.ts), and unit key → its files, each with the facts the checks
 * read (digest and size come from the bundle's record).
 */
export interface StoredUnits {
  salt: string;
  /** A Map, as read and made: a keyed property write or read with a string made at run time first looks it up in V8's string table, a Map's does not. */
  units: Map<string, ReusedFile[]>;
}

/** What a caller of emitBundles does with the bundles. */
export interface EmitOptions {
  /** Called with each bundle once it is built and checked (a build starts writing it). */
  emitted?: (key: string, tree: VirtualTree) => void;
  /**
   * Keep each text a unit renders as its UTF-8 bytes (TreeFile.encoded), its
   * facts read at once: a build that writes reads no text again, and a text
   * dropped as soon as it is made is never copied by V8's young generation
   * (upstream corpus, all bundles: 365 MB promoted, now 90 MB; GC pauses
   * 1.10 s, now 0.57 s).
   */
  encodeTexts?: boolean;
}

/** compose + emit for each selection; diagnostics when an emitted tree breaks a rule. With `reuse`, also every bundle's units for the next build. */
export function emitBundles(
  compiled: Compiled,
  selections: readonly BundleSelection[],
  profile: readonly string[] = [FULL_PROFILE],
  reuse?: UnitSource,
  { emitted, encodeTexts = false }: EmitOptions = {},
): {
  bundles: Map<string, VirtualTree>;
  diagnostics: Diagnostic[];
  units: Map<string, StoredUnits>;
  unitChanges: Map<string, UnitChanges>;
  /** Each bundle's emission for the next build in this process (only when `reuse` keeps emissions). */
  emissions: Map<string, Emission>;
  /** For a bundle emitted as a delta, the files that may differ from its record: the rest are the record's. */
  changedFiles: Map<string, string[]>;
  /** The bundles emitted as a delta of their last emission. */
  deltas: string[];
} {
  const bundles = new Map<string, VirtualTree>();
  const units = new Map<string, StoredUnits>();
  const unitChanges = new Map<string, UnitChanges>();
  const emissions = new Map<string, Emission>();
  const changedFiles = new Map<string, string[]>();
  const deltas: string[] = [];
  const { ir, label, diagnostics } = profileIr(compiled, profile);
  const nodesByPath = new Map(ir.nodes.map((node) => [node.path, node]));
  // Everything a unit's bytes and facts depend on besides its own input (render-units.ts); the targets whole, since the leak check reads every root.
  const common = reuse ? hashParts([compilerFingerprint(), JSON.stringify(compiled.targets), compiled.version, ir.payload ?? '', label, ...compiled.allowedForeignPaths.map((pattern) => `/${pattern.source}/${pattern.flags}`)]) : '';
  const keeps = reuse?.emission !== undefined;
  const nodes = keeps ? nodeListOf(ir.nodes) : null;
  const generated = keeps ? generatedKey(compiled.generated) : '';
  // The redone nodes against each last node list (one for every bundle, as a rule).
  const redoneFor = new Map<NodeList, Set<string> | null>();
  // One per target: its two scopes are checked against the same roots, and the check keeps the last bundle's scan for the next.
  const roots = new Map<Target, ForeignRoots>();
  const rootsOf = (target: Target) => roots.get(target) ?? roots.set(target, foreignRoots(target, compiled.targets, ir.payload)).get(target)!;
  for (const selection of selections) {
    const target = compiled.targets.find((candidate) => candidate.definition.id === selection.target)!;
    const key = bundleKey(selection);
    const salt = hashParts([common, key]);
    const input = { ir, target, scope: selection.scope, version: compiled.version, generated: compiled.generated, hooks: compiled.hooks, profile: label };
    const last = keeps ? reuse!.emission!(key) : undefined;
    let delta: BundleDelta | null = null;
    if (last && last.salt === salt && last.generated === generated) {
      if (!redoneFor.has(last.nodes)) redoneFor.set(last.nodes, redoneNodes(last.nodes, nodes!));
      const redone = redoneFor.get(last.nodes);
      if (redone) delta = { last, redone };
    }
    const scope = target.definition.scopes[selection.scope]!;
    const leaks = leakScan(rootsOf(target), nodesByPath, compiled.allowedForeignPaths);
    const limits = limitCheck(scope.limits ?? []);
    const listed = listedFiles(scope);
    const rendered = encodeTexts ? (file: string, entry: TreeFile) => encodeText(file, entry, leaks, limits, listed) : undefined;
    let shape: EmissionShape = {};
    let unitReuse = reuse ? bundleReuse(salt, reuse.previous(key)) : undefined;
    let tree = delta && unitReuse ? emitBundle({ ...input, reuse: unitReuse, delta, shape, rendered }) : null;
    if (!tree) {
      // No delta, or one that does not hold: the whole bundle, its units reused where they can be.
      delta = null;
      shape = {};
      unitReuse = reuse ? bundleReuse(salt, reuse.previous(key)) : undefined;
      tree = emitBundle({ ...input, ...(unitReuse ? { reuse: unitReuse } : {}), ...(keeps ? { shape } : {}), rendered });
    }
    diagnostics.push(
      ...checkEmittedPaths(key, tree, leaks),
      ...checkLimits(key, tree, limits),
      ...checkPathCollisions(key, tree),
      ...capabilityHookFindings(compiled.hooks, target, selection.scope),
      ...checkListing(key, listingCost(tree, scope), label, target.definition, compiled.budgets?.budgets ?? null),
    );
    bundles.set(key, tree);
    if (unitReuse) {
      let stored: StoredUnits['units'];
      if (delta) {
        // The last emission's units, less the redone nodes' old keys, with their new ones.
        stored = new Map(delta.last.units);
        const changes: UnitChanges = new Map();
        const now = new Set([...delta.redone].flatMap((node) => shape.keysByNode!.get(node) ?? []));
        for (const node of delta.redone) {
          for (const old of delta.last.keysByNode.get(node) ?? []) {
            if (now.has(old)) continue;
            stored.delete(old);
            changes.set(old, null);
          }
        }
        for (const [unit, files] of storedUnits(tree, unitReuse.made, new Map())) {
          stored.set(unit, files);
          changes.set(unit, files);
        }
        unitChanges.set(key, changes);
        changedFiles.set(key, [...shape.changed!, MANIFEST_FILE, README_FILE]);
        deltas.push(key);
      } else {
        stored = storedUnits(tree, unitReuse.made, unitReuse.taken);
        if (unitReuse.previous) unitChanges.set(key, changedUnits(unitReuse.previous, stored, unitReuse.taken));
      }
      units.set(key, { salt, units: stored });
      if (keeps) {
        const body = emissionBody(tree, shape);
        emissions.set(key, { body, units: stored, keysByNode: shape.keysByNode!, putPaths: shape.putPaths!, ...(shape.manifest ? { manifest: shape.manifest } : {}), salt, generated, nodes: nodes! });
      }
    }
    emitted?.(key, tree);
  }
  return { bundles, diagnostics: sortDiagnostics(applySeverities(diagnostics, compiled.layoutWarnings)), units, unitChanges, emissions, changedFiles, deltas };
}

/**
 * One bundle's reuse: a unit is taken back only when its every file is in the
 * bundle's record and none is held back; its digest and size are the record's. The stored units are
 * never changed, so a unit taken back is stored again as it was (taken).
 */
function bundleReuse(salt: string, previous: ReturnType<UnitSource['previous']>): UnitReuse & { taken: Map<string, ReusedFile[]>; previous: StoredUnits['units'] | null } {
  const same = previous?.units.salt === salt;
  const units = same ? previous.units.units : new Map<string, ReusedFile[]>();
  // Made when first read: a delta (emitBundle) reads none of it.
  let recordFiles: ReadonlyMap<string, BundleRecord[string]> | undefined;
  const recordOf = () => (recordFiles ??= previous ? recordMap(previous.record) : new Map<string, BundleRecord[string]>());
  const taken = new Map<string, ReusedFile[]>();
  const heldBack = previous?.heldBack;
  return {
    made: new Map(),
    taken,
    previous: same ? units : null,
    lookup: (key) => {
      const files = units.get(key);
      const record = recordOf();
      if (!files || !files.every((file) => record.has(file.path) && heldBack?.has(file.path) !== true)) return undefined;
      taken.set(key, files);
      return files;
    },
    factsOf: (file) => {
      const [sha256, bytes] = recordOf().get(file.path)!;
      // Lists stored only when not empty (storedUnits); written out field by field, as a spread of a stored object is slow.
      const facts: FileFacts = { sha256, bytes, leaks: file.facts.leaks ?? [], limits: file.facts.limits ?? [] };
      if (file.facts.listed !== undefined) facts.listed = file.facts.listed;
      return facts;
    },
  };
}

/** A bundle's units against the last build's, the state's patch (incremental.ts): each unit made anew, and null for each unit gone. */
export type UnitChanges = Map<string, ReusedFile[] | null>;

function changedUnits(previous: StoredUnits['units'], stored: StoredUnits['units'], taken: ReadonlyMap<string, ReusedFile[]>): UnitChanges {
  const changes: UnitChanges = new Map();
  for (const [key, files] of stored) if (!taken.has(key)) changes.set(key, files);
  for (const key of previous.keys()) if (!stored.has(key)) changes.set(key, null);
  return changes;
}

/** The units of a checked tree as the next build takes them back: each file's flags and check facts. */
function storedUnits(tree: VirtualTree, made: ReadonlyMap<string, string[]>, taken: ReadonlyMap<string, ReusedFile[]>): StoredUnits['units'] {
  const stored: StoredUnits['units'] = new Map();
  for (const [key, paths] of made) {
    // A unit taken back is stored as it was read.
    const reused = taken.get(key);
    if (reused) {
      stored.set(key, reused);
      continue;
    }
    stored.set(key, paths.map((file) => {
      const entry = tree.get(file)!;
      const { leaks = [], limits = [], listed } = entry.facts ?? {};
      // Most files have no finding: empty lists are left out (bundleReuse puts them back), a third of the state's size.
      return {
        path: file,
        ...(entry.executable ? { executable: true as const } : {}),
        ...(entry.source !== undefined ? { source: entry.source } : {}),
        ...(entry.generated ? { generated: true as const } : {}),
        ...(entry.verbatim ? { verbatim: true as const } : {}),
        facts: { ...(leaks.length > 0 ? { leaks } : {}), ...(limits.length > 0 ? { limits } : {}), ...(listed ? { listed } : {}) },
      };
    }));
  }
  return stored;
}

/**
 * A capability's hooks as registry entries (ids `<capability id>-<name>`,
 * never one the registry or another capability has) and their scripts.
 */
function registerCapabilityHooks(registry: readonly HookEntry[], hooks: ComposeResult['hooks']): { hooks: HookEntry[]; scripts: GeneratedFile[]; diagnostics: Diagnostic[] } {
  const taken = new Set(registry.map((hook) => hook.id));
  const entries: HookEntry[] = [];
  const scripts: GeneratedFile[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const { capability, hook } of hooks) {
    const file = `${capability.display}/capability.json`;
    if (taken.has(hook.id)) {
      diagnostics.push(diagnostic(file, hook.line, hook.column, 'capability-clash', `expected hook id "${hook.id}" free, found it taken by the hook registry or another capability`));
      continue;
    }
    taken.add(hook.id);
    const entry: HookEntry = {
      id: hook.id,
      entry: hook.entry.slice('hooks/'.length),
      event: hook.event,
      ...(hook.matcher !== undefined ? { matcher: hook.matcher } : {}),
      ...(hook.timeout !== undefined ? { timeout: hook.timeout } : {}),
      ...(hook.crashPolicy !== undefined ? { crashPolicy: hook.crashPolicy } : {}),
      description: hook.description,
      capability: { id: capability.id, file, line: hook.line, column: hook.column },
    };
    entries.push(entry);
    scripts.push({ path: `hooks/${hookScriptName(entry)}`, contents: capability.files.find((own) => own.path === hook.entry)!.bytes, executable: true, verbatim: true });
  }
  return { hooks: entries, scripts, diagnostics };
}

/** The hook payload specs of the targets built for, keyed by target id. */
function hookPayloads(targets: readonly Target[]): Record<string, unknown> {
  return Object.fromEntries(targets.filter((target) => target.hookPayload).map((target) => [target.definition.id, target.hookPayload]));
}

/** Every capability's config keys, by dotted key. */
function configSlices(capabilities: readonly { config: Record<string, ConfigKeySpec> }[]): Record<string, ConfigKeySpec> {
  return Object.fromEntries(capabilities.flatMap((capability) => Object.entries(capability.config)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

interface ComposeResult {
  ir: CorpusIr;
  files: SourceFile[];
  origins: LineOrigin | null;
  /** The capabilities' hooks, with the capability each came from. */
  hooks: { capability: Capability; hook: CapabilityHook }[];
  diagnostics: Diagnostic[];
}

/** The capabilities (the corpus's own, then those given), loaded; null when there are none. */
async function capabilityStage(options: CompileOptions, layout: Layout, version: string): Promise<ReturnType<typeof loadCapabilities> | null> {
  const sources = [...(layout.capabilities ? firstPartySources(options.sourceDir, layout.capabilities) : []), ...(options.capabilities ?? [])];
  if (sources.length === 0) return null;
  return loadCapabilities(sources, { version, configSchema: await readConfigSchema(options.sourceDir, layout) });
}

/**
 * The loaded capabilities composed into the loop points; the IR is rebuilt
 * from the composed files so that every later stage (checks, budgets, section
 * manifest, emit, site) sees them.
 */
async function composeStage(options: CompileOptions, layout: Layout, loaded: ReturnType<typeof loadCapabilities> | null, files: SourceFile[], ir: CorpusIr, earlier: EarlierParse, budgets: LoadedBudgets | null, vocabulary: WhenVocabulary, slot: string): Promise<ComposeResult> {
  if (!loaded) return { ir, files, origins: null, hooks: [], diagnostics: [] };
  const ceilings = new Map(measureBudgets(ir.nodes, budgets?.budgets ?? null).map((row) => [row.path, row.ceiling]));
  const placed = placeOwnFiles(files, loaded.capabilities);
  const composition = composeCapabilities(placed.files, ir.nodes, loaded.capabilities, (file) => ceilings.get(file) ?? null);
  composition.origins.own = placed.own;
  const diagnostics = [...loaded.diagnostics, ...placed.diagnostics, ...composition.diagnostics];
  const capabilities = loaded.capabilities.map((capability) => ({
    id: capability.id,
    version: capability.version,
    origin: capability.origin,
    source: capability.display,
    digest: capability.digest,
    description: capability.description,
    engines: capability.engines,
    config: capability.config,
    own: capability.own,
  }));
  const hooks = loaded.capabilities.flatMap((capability) => capability.hooks.map((hook) => ({ capability, hook })));
  if (Object.keys(composition.points).length === 0 && placed.own.size === 0) return { ir: { ...ir, capabilities }, files, origins: null, hooks, diagnostics };
  const composedVocabulary = { ...vocabulary, atoms: new Set([...vocabulary.atoms, ...composition.atoms]) };
  // The composed files are parsed again: with a cache, from their own memo (most of them are the corpus's files as they were).
  const memo = options.cacheDir ? readNodeMemo(options.cacheDir, `${slot}-composed`, layout, false, composedVocabulary) : undefined;
  // Every file composition left as it was is the first pass's node (parsed == the same bytes, a wider vocabulary).
  const rebuilt = await withMarkdown(() => buildIr(composition.files, composedVocabulary, layout, { earlier, ...(memo ? { memo } : {}) }));
  if (options.cacheDir && memo) writeNodeMemo(options.cacheDir, `${slot}-composed`, memo);
  // The corpus's own findings came from the first pass; the second adds only those in the text composition generated or placed.
  diagnostics.push(...remapDiagnostics(rebuilt.diagnostics.filter((d) => inComposedText(d, composition.origins) || placed.own.has(d.file)), composition.origins));
  return { ir: { ...rebuilt.ir, capabilities, composition: composition.points }, files: composition.files, origins: composition.origins, hooks, diagnostics };
}

async function readConfigSchema(sourceDir: string, layout: Layout): Promise<SchemaNode | null> {
  const file = layout.settings ? path.join(sourceDir, layout.settings.configSchema) : null;
  return file && existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as SchemaNode) : null;
}

/**
 * The built code depends on the corpus's code, not its Markdown: the key
 * hashes every other source file (and the compiler's fingerprint, which
 * covers the locked dependencies), so a prose edit reuses the last build.
 */
async function cachedRuntime(options: CompileOptions, slot: string, files: readonly { path: string; bytes: Uint8Array }[], payloads: Record<string, unknown>, slices: Record<string, ConfigKeySpec>, builder: Promise<PreparedBuilder> | undefined): Promise<BuiltRuntime> {
  const key = hashParts([compilerFingerprint(), JSON.stringify(payloads), JSON.stringify(slices), ...files.filter((file) => !file.path.endsWith('.md')).flatMap((file) => [file.path, sourceDigest(file)])]);
  if (!options.cacheDir) return uncachedRuntime(options.sourceDir, key, payloads, slices, builder);
  const cached = readCacheEntry<BuiltRuntime>(options.cacheDir, runtimeEntry(slot), key);
  if (cached && Array.isArray(cached.files) && Array.isArray(cached.diagnostics) && typeof cached.shipsCli === 'boolean') return cached;
  const built = await buildCorpusRuntime(options.sourceDir, payloads, REPO_ROOT, slices, builder);
  // A failed build is not kept: its cause may lie outside the key (a missing package, say).
  if (built.diagnostics.length === 0) writeCacheEntry(options.cacheDir, runtimeEntry(slot), key, built);
  return built;
}

/** The cache entry of a source folder's runtime build. */
const runtimeEntry = (slot: string) => `generated-${slot}`;

/** Whether a runtime build of this source folder is kept (in the cache, or by this process): if none is, the build will make one. */
function runtimeKept(options: CompileOptions, slot: string): boolean {
  if (options.cacheDir) return hasCacheEntry(options.cacheDir, runtimeEntry(slot));
  const folder = `${path.resolve(options.sourceDir)}\0`;
  return [...runtimeBuilds.keys()].some((id) => id.startsWith(folder));
}

/** Runtime builds of this process, without a cache folder (tests, watch --no-cache), by source folder and key. */
const runtimeBuilds = new Map<string, Promise<BuiltRuntime>>();
const RUNTIME_BUILDS_KEPT = 8;

function uncachedRuntime(sourceDir: string, key: string, payloads: Record<string, unknown>, slices: Record<string, ConfigKeySpec>, builder: Promise<PreparedBuilder> | undefined): Promise<BuiltRuntime> {
  const id = `${path.resolve(sourceDir)}\0${key}`;
  let built = runtimeBuilds.get(id);
  if (built === undefined) {
    if (runtimeBuilds.size >= RUNTIME_BUILDS_KEPT) runtimeBuilds.clear();
    built = buildCorpusRuntime(sourceDir, payloads, REPO_ROOT, slices, builder);
    runtimeBuilds.set(id, built);
    // A failed build is not kept: its cause may lie outside the key (a missing package, say).
    const forget = () => {
      if (runtimeBuilds.get(id) === built) runtimeBuilds.delete(id);
    };
    void built.then((result) => result.diagnostics.length > 0 && forget(), forget);
  }
  return built;
}

function readNodeMemo(cacheDir: string, slot: string, layout: Layout, outline: boolean, vocabulary: WhenVocabulary): NodeMemo {
  const salt = hashParts([compilerFingerprint(), layoutKey(layout), outline ? 'outline' : '', vocabulary.table ?? '', ...[...vocabulary.atoms].sort()]);
  return { salt, previous: readBytesMap(cacheDir, `nodes-${slot}`, salt), next: new Map() };
}

/**
 * The target definitions, loaded and checked, from the cache while the
 * targets folder holds the same bytes: reading them with positions for their
 * diagnostics costs a tenth of a one-file rebuild.
 */
async function cachedTargets(cacheDir: string, targetsDir: string): Promise<Awaited<ReturnType<typeof loadTargets>>> {
  const key = hashParts([compilerFingerprint(), ...(await readTree(targetsDir))]);
  const slot = `targets-${hashParts([path.resolve(targetsDir)]).slice(0, 24)}`;
  const cached = readCacheEntry<Awaited<ReturnType<typeof loadTargets>>>(cacheDir, slot, key);
  if (cached && Array.isArray(cached.targets) && Array.isArray(cached.diagnostics)) return cached;
  const loaded = await loadTargets(targetsDir);
  writeCacheEntry(cacheDir, slot, key, loaded);
  return loaded;
}

/** The last build's text facts per source folder slot, in a process building without a cache. */
const uncachedFacts = new Map<string, ReadonlyMap<string, unknown>>();

/** The text facts the last build read from this source folder (util/text-facts.ts). */
function readTextFacts(cacheDir: string, slot: string): ReadonlyMap<string, unknown> {
  const previous = readCacheEntry<Map<string, unknown>>(cacheDir, `text-facts-${slot}`, compilerFingerprint());
  return previous instanceof Map ? previous : new Map();
}

/** Stores the nodes this build used, when they differ from what was read (as a delta while few changed: writeBytesMap). */
function writeNodeMemo(cacheDir: string, slot: string, memo: NodeMemo): void {
  writeBytesMap(cacheDir, `nodes-${slot}`, memo.salt, memo.previous, memo.next);
}

/** A layout as cache-key text: every field (a layout file's too), patterns by their source. */
function layoutKey(layout: Layout): string {
  return JSON.stringify(layout, (_key, value: unknown) => (value instanceof RegExp ? `/${value.source}/${value.flags}` : value));
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
