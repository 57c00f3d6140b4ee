// emit: (IR, target, scope) → the bundle as a virtual tree of files. Pure.
import path from 'node:path';
import { createRequire } from 'node:module';
import type HandlebarsModule from 'handlebars';
import { stringify as stringifyToml } from 'smol-toml';
import { compareText } from '../diagnostics.ts';
import type { CapabilityView, CorpusIr, IrNode } from '../ir/types.ts';
import { ownCorpusPath } from '../load/load-capabilities.ts';
import { inlineSections } from '../compose/compose-capabilities.ts';
import { buildSectionManifest } from '../compose/section-manifest.ts';
import { CAPABILITY_LIST_FILE, capabilityListText } from '../compose/capability-list.ts';
import type { CommandSurface, ConfigFile, ScopeId, Target, TargetScope } from '../targets/target-types.ts';
import { agentIndex, renderAgent } from './agent-formats.ts';
import { renderFrontmatter, truncate } from './render-frontmatter.ts';
import type { ComposeContext } from '../compose/compose-context.ts';
import { composeString, composeText } from '../compose/compose-text.ts';
import { rewriteRoot } from '../compose/rewrite-root.ts';
import { routedCommands, routerReads } from './nest-routers.ts';
import { hookFiles, hookFormat, runtimeHooks } from './hook-formats.ts';
import { addBundleManifest, MANIFEST_FILE, type ManifestParts } from './bundle-manifest.ts';
import { contentFacts, type TextFacts } from './content-facts.ts';
import { nodeDigest } from '../ir/node-digest.ts';
import type { BundleDelta, EmissionShape, UnitReuse } from './render-units.ts';
import { BUNDLE_FACTS_FILE } from '../../source/runtime/core/bundle-facts.ts';
import { bundleFactsText } from './bundle-facts.ts';
import { CONFIG_MERGE_FORMATS } from '../targets/landing-policy.ts';
import type { MergeFormat } from '../../source/runtime/install/bundle-types.ts';
import { digestOf, type TreeFile, type VirtualTree } from './virtual-tree.ts';
import type { HookEntry } from '../load/load-hooks.ts';
import { sourceFacts, type SourceFile } from '../load/read-source-tree.ts';
import { DEFAULT_PAYLOAD } from '../load/layout.ts';
import { RELEASE_FILE } from '../../source/hooks/lib/release.ts';

export interface GeneratedFile {
  /** Path under the bundle's root, e.g. gsd-core/bin/gsd-tools.cjs. */
  path: string;
  contents: string | Uint8Array;
  executable?: boolean;
  /** Shipped as the corpus has it, not built from its code. */
  verbatim?: true;
  /** Built for one runtime only (a hook dispatcher): shipped in that target's bundles alone. */
  runtime?: string;
}

export interface EmitInput {
  ir: CorpusIr;
  target: Target;
  scope: ScopeId;
  version: string;
  /** Files built from source/runtime and source/hooks. */
  generated?: GeneratedFile[];
  /** The hook registry (hooks/hooks.json). */
  hooks?: HookEntry[];
  /** The skill profile `ir` was selected for (compose/select-profile.ts); recorded in the manifest unless full. */
  profile?: string;
  /** An incremental build's units of the last build (render-units.ts): a unit found there is not rendered again. */
  reuse?: UnitReuse;
  /** This process's last emission of the bundle (render-units.ts BundleDelta): only what changed since is emitted. */
  delta?: BundleDelta;
  /** Filled with what the next build's delta needs (render-units.ts EmissionShape). */
  shape?: EmissionShape;
  /** Given each file a unit renders as text, as soon as it is placed (pipeline.ts emitBundles: its facts read, its text encoded). */
  rendered?: (file: string, entry: TreeFile) => void;
}

interface RenderedFile {
  path: string;
  contents: string | Uint8Array;
  extra?: Omit<TreeFile, 'contents'>;
}

/** Each built file's digest and size, once per build: built code (the runtime CLI, the hooks) is the same text in every bundle. */
const builtFacts = new WeakMap<GeneratedFile, TextFacts>();
export function generatedFacts(file: GeneratedFile): TextFacts {
  let facts = builtFacts.get(file);
  if (facts === undefined) builtFacts.set(file, (facts = contentFacts(file.contents)));
  return facts;
}

/**
 * A corpus file shipped as the corpus has it: its facts are the source
 * file's (read-source-tree.ts sourceFacts: from the stamp index, for a file
 * not read), and its bytes are read only when a unit of it is rendered, not
 * when the last build's is reused.
 */
export function verbatimFile(source: SourceFile, executable: boolean): GeneratedFile {
  const file: GeneratedFile = {
    path: source.path,
    get contents() {
      return source.bytes;
    },
    verbatim: true,
    ...(executable ? { executable: true } : {}),
  };
  builtFacts.set(file, sourceFacts(source));
  return file;
}

/** handlebars, loaded for the first command rendered from a template: an incremental build seldom renders one, and loading it costs every start. */
let handlebars: typeof HandlebarsModule | undefined;
function templateEngine(): typeof HandlebarsModule {
  return (handlebars ??= createRequire(import.meta.url)('handlebars') as typeof HandlebarsModule);
}

/**
 * Each template text compiled once per process: a target renders every
 * command through one template, and compiling it again per command cost
 * more than the rendering. Keyed by text, so an edited template in watch is
 * compiled anew; a target has one or two, so the map stays small.
 */
const compiledTemplates = new Map<string, HandlebarsModule.TemplateDelegate>();
function compiledTemplate(text: string): HandlebarsModule.TemplateDelegate {
  let template = compiledTemplates.get(text);
  if (template === undefined) {
    if (compiledTemplates.size >= 64) compiledTemplates.clear();
    compiledTemplates.set(text, (template = templateEngine().compile(text, { noEscape: true, strict: true })));
  }
  return template;
}

/** Each IR's section manifest, the same text in every bundle of a build: made once. */
const sectionManifests = new WeakMap<CorpusIr, string>();
function sectionManifestText(ir: CorpusIr): string {
  let text = sectionManifests.get(ir);
  if (text === undefined) sectionManifests.set(ir, (text = `${JSON.stringify(buildSectionManifest(ir.nodes, ir.payload ?? DEFAULT_PAYLOAD, inlineSections(ir.composition)), null, 2)}\n`));
  return text;
}

/** Node kinds shipped (rendered) under {root}/<payload>/ (gsd-core/ unless the layout names another). */
const PAYLOAD_KINDS = new Set(['workflow', 'step', 'mode', 'reference', 'template']);

/**
 * The bundle as a tree. With `delta` (a resident build: watch), only the units
 * of changed nodes and the files outside units are emitted, on top of the last
 * emission; null when the delta does not hold (a unit's files moved, a file
 * outside units came or went): the caller then emits the bundle whole.
 */
export function emitBundle(input: EmitInput & { delta: BundleDelta }): VirtualTree | null;
export function emitBundle(input: EmitInput): VirtualTree;
export function emitBundle({ ir, target, scope: scopeId, version, generated = [], hooks = [], profile, reuse, delta, shape, rendered }: EmitInput): VirtualTree | null {
  const scope = target.definition.scopes[scopeId];
  if (!scope) throw new Error(`target ${target.definition.id} has no ${scopeId} scope`);
  const context: ComposeContext = { target: target.definition, scope, version };
  // A delta's files go to `fresh`, to be laid over the last emission's tree at the end.
  const tree: VirtualTree = new Map();
  const fresh: VirtualTree = new Map();
  const putPaths: string[] = [];
  const place = (file: string, entry: TreeFile) => {
    const normalized = normalizedPath(file);
    const into = delta ? fresh : tree;
    if (into.has(normalized)) throw new Error(`internal: two files emitted at ${normalized}`);
    into.set(normalized, entry);
    return normalized;
  };
  /** A unit's file, placed; a text made now (not built code, which has its facts) goes to `rendered`. */
  const placeRendered = (file: RenderedFile) => {
    const entry: TreeFile = { contents: file.contents, ...file.extra };
    const placed = place(file.path, entry);
    if (rendered && typeof entry.contents === 'string' && !entry.generated) rendered(placed, entry);
    return placed;
  };
  const put = (file: string, contents: string | Uint8Array, extra: Omit<TreeFile, 'contents'> = {}) => {
    const placed = place(file, { contents, ...extra });
    putPaths.push(placed);
    return placed;
  };
  const at = (pattern: string, names: Record<string, string> = {}) => expandPath(pattern, scope, names);
  const payload = ir.payload ?? DEFAULT_PAYLOAD;
  /** A redone node's unit keys (a delta), or every node's (shape). */
  const keysByNode = new Map<string, string[]>();
  /** The paths each redone node's units hold now (a delta). */
  const pathsByNode = new Map<string, string[]>();
  /**
   * Puts the files of one render unit: the last build's, when `reuse` has them,
   * else rendered now. A unit of a node (`node`) whose inputs did not change
   * since the last emission is left out of a delta: its files are there.
   */
  const unit = (parts: readonly string[], render: () => RenderedFile[], node?: IrNode) => {
    // A file not of a node (built code) is keyed by inputs a delta never sees change (the caller compares them).
    if (delta && (node === undefined || !delta.redone.has(node.path))) return;
    if (!reuse) {
      for (const file of render()) placeRendered(file);
      return;
    }
    // The parts never hold a NUL (digests, indexes, JSON, paths): joined, they are a key without a hash's cost.
    const key = parts.join('\u0000');
    if (node && (delta || shape)) {
      const keys = keysByNode.get(node.path);
      if (keys) keys.push(key);
      else keysByNode.set(node.path, [key]);
    }
    if (delta) {
      const paths = pathsByNode.get(node!.path) ?? [];
      pathsByNode.set(node!.path, paths);
      const kept = delta.last.units.get(key);
      if (kept) {
        // The same key: the same files, already in the last tree.
        for (const file of kept) paths.push(file.path);
        return;
      }
      const made: string[] = [];
      for (const file of render()) made.push(placeRendered(file));
      paths.push(...made);
      reuse.made.set(key, made);
      return;
    }
    const reused = reuse.lookup(key);
    const paths: string[] = [];
    if (reused) {
      for (const file of reused) {
        const entry: TreeFile = { contents: '', facts: reuse.factsOf(file), reused: true };
        if (file.executable) entry.executable = true;
        if (file.source !== undefined) entry.source = file.source;
        if (file.generated) entry.generated = true;
        if (file.verbatim) entry.verbatim = true;
        paths.push(place(file.path, entry));
      }
    } else {
      for (const file of render()) paths.push(placeRendered(file));
    }
    reuse.made.set(key, paths);
  };

  const commands = ir.nodes.filter((node) => node.kind === 'command' && node.variant === undefined);
  // A delta redoes every command or none (pipeline.ts redoneNodes): none, and the commands' units all stay.
  const commandUnits = delta ? commands.some((command) => delta.redone.has(command.path)) : true;
  for (const [index, surface] of commandUnits ? scope.commands.entries() : []) {
    for (const placed of placeCommands(commands, surface, at)) {
      const reads = placed.routes && surface.nested ? routerReads(placed.path, placed.routes, surface.nested) : undefined;
      const where = JSON.stringify([placed.path, reads ? [...reads.files] : null]);
      unit(['command', String(index), where, nodeDigest(placed.command)], () => [
        { path: placed.path, contents: renderCommand(placed.command, surface, target, reads ? { ...context, routes: reads } : context, placed.path), extra: { source: placed.command.path } },
      ], placed.command);
    }
  }
  const agents = ir.nodes.filter((node) => node.kind === 'agent' && node.variant === undefined);
  for (const [index, surface] of scope.agents.entries()) {
    for (const agent of agents) {
      if (delta && !delta.redone.has(agent.path)) continue;
      unit(['agent', String(index), nodeDigest(agent)], () => renderAgent(agent, surface, context, at).map((file) => ({ path: file.path, contents: file.contents, extra: { source: file.source! } })), agent);
    }
    const listing = agentIndex(agents, surface, context, at);
    if (listing) put(listing.path, listing.contents);
  }
  for (const node of ir.nodes) {
    if (delta && !delta.redone.has(node.path)) continue;
    // A variant (a `.compact.md` step, mode or template) lands at its own path, next to its
    // canonical file, where the corpus's compact-content gate reads it.
    if (PAYLOAD_KINDS.has(node.kind) && node.path.startsWith(`${payload}/`)) {
      unit(['payload', nodeDigest(node)], () => [{ path: at(`{root}/${node.path}`), contents: composeText(node, context, 0), extra: { source: node.path } }], node);
    }
    // An agent's variant is a prompt to read, not a second agent: no runtime's agent folder can hold two
    // files with one `name:` (or, where the file name is the name, without listing a second agent every
    // turn), so it lands under <payload>/agents/, where `init` points a workflow at it (agentVariantPath).
    if (node.kind === 'agent' && node.variant !== undefined) {
      // Its frontmatter is text to read here, rendered like the body (slash mentions in the runtime's syntax).
      unit(['agent-variant', nodeDigest(node)], () => [
        {
          path: at(`{root}/${agentVariantPath(node.name, node.variant!, payload)}`),
          contents: `${composeString(node.text.slice(0, node.body.start), context)}${composeText(node, context)}`,
          extra: { source: node.path },
        },
      ], node);
    }
  }
  put(at(`{root}/${payload}/workflows/section-manifest.json`), sectionManifestText(ir));
  put(at(`{root}/${payload}/VERSION`), `${version}\n`);
  const capabilityList = capabilityListText(ir);
  if (capabilityList !== null) put(at(`{root}/${CAPABILITY_LIST_FILE}`), capabilityList);
  put(at(`{root}/${payload}/${BUNDLE_FACTS_FILE}`), bundleFactsText(target.definition, scopeId, version));
  // A delta keeps the built files' units as they were (its caller took it up only with the same built files:
  // pipeline.ts generatedKey), so it places none and works out none of their paths.
  for (const file of delta ? [] : generated) {
    // Hook scripts go where the runtime's hook surface says, and only to runtimes that run hooks.
    const hookScript = file.path.startsWith('hooks/');
    if (hookScript && !scope.hooks) continue;
    if (file.runtime !== undefined && file.runtime !== target.definition.id) continue;
    const destination = hookScript ? at(scope.hooks!.scripts, { file: file.path.slice('hooks/'.length) }) : at(`{root}/${file.path}`);
    const extra = { generated: true, ...(file.executable ? { executable: true } : {}), ...(file.verbatim ? { verbatim: true } : {}) } as const;
    const { sha256, bytes } = generatedFacts(file);
    unit(['generated', destination, JSON.stringify(extra), sha256], () => [{ path: destination, contents: file.contents, extra: { ...extra, facts: { sha256, bytes } } }]);
  }
  if (scope.hooks && hooks.length > 0) {
    // What the hooks know of this bundle (source/hooks/lib/update.ts): its version and the update command, if shipped, as the runtime types it.
    const update = commands.some((command) => command.name === 'update') ? { updateCommand: composeString('/gsd-update', context) } : {};
    put(at(scope.hooks.scripts, { file: RELEASE_FILE }), `${JSON.stringify({ version, ...update }, null, 2)}\n`);
    const registered = runtimeHooks(hooks, scope.hooks, target.definition.toolMaps ?? {}, hookScriptName);
    const format = hookFormat(scope.hooks.format);
    const extra = { ...(format.executable ? { executable: true } : {}), ...(format.merge ? { merge: format.merge } : {}) };
    for (const [file, list] of hookFiles(scope.hooks.path, registered)) {
      const place = { scriptFrom: (name: string) => path.posix.relative(path.posix.dirname(at(file)), at(scope.hooks!.scripts, { file: name })) };
      put(at(file), format.render(list, scope.hooks, place), extra);
    }
  }
  for (const config of scope.config ?? []) {
    const merge = CONFIG_MERGE_FORMATS[config.format];
    put(at(config.path), renderConfig(config, target), merge ? { merge } : {});
  }
  const body = delta ? overlay(delta, fresh, putPaths, pathsByNode) : tree;
  if (!body) return null;
  if (shape) {
    shape.putPaths = putPaths;
    shape.keysByNode = delta ? new Map([...delta.last.keysByNode, ...keysByNode]) : keysByNode;
    shape.changed = delta ? [...fresh.keys()] : null;
    if (delta) shape.body = body;
  }
  const capabilities = (ir.capabilities ?? []).map((c) => {
    const files = capabilityFiles(c, ir, body, scope.hooks ? (hook) => at(scope.hooks!.scripts, { file: hookScriptName(hook) }) : null, hooks);
    return { id: c.id, version: c.version, origin: c.origin, source: c.source, digest: c.digest, hooks: c.own.hooks.length > 0, files };
  });
  // Kept shapes keep the manifest's parts too; a delta makes its manifest from the last one's, as bytes unless a limit of
  // the target reads the manifest's text (check-emitted.ts limitHits).
  const manifestDelta = shape
    ? { last: delta?.last.manifest, changed: shape.changed ?? [], bytes: !(scope.limits ?? []).some((limit) => new RegExp(limit.files).test(MANIFEST_FILE)), keep: (parts: ManifestParts) => (shape.manifest = parts) }
    : undefined;
  return addBundleManifest(body, target, scopeId, version, capabilities, profile, manifestDelta);
}

/**
 * The last emission's tree with a delta's files laid over it, or null when the
 * delta does not hold: every file outside units must be where it was, and each
 * redone node's units must hold the same paths as before, so the tree's paths
 * (and their order) are the last tree's.
 */
function overlay(delta: BundleDelta, fresh: VirtualTree, putPaths: readonly string[], pathsByNode: ReadonlyMap<string, string[]>): VirtualTree | null {
  const { last } = delta;
  if (putPaths.length !== last.putPaths.length || putPaths.some((file, index) => file !== last.putPaths[index])) return null;
  for (const [node, paths] of pathsByNode) {
    const before = new Set((last.keysByNode.get(node) ?? []).flatMap((key) => last.units.get(key)?.map((file) => file.path) ?? []));
    if (before.size !== new Set(paths).size || paths.some((file) => !before.has(file))) return null;
  }
  // A redone node that had units and has none now took its files away.
  for (const node of delta.redone) if (last.keysByNode.has(node) && !pathsByNode.has(node)) return null;
  const body: VirtualTree = new Map(last.body);
  for (const [file, entry] of fresh) {
    const before = body.get(file);
    if (!before) return null;
    // The same bytes and flags as last time (most files outside units): the last file stays, with its facts.
    if (sameFile(before, entry)) fresh.delete(file);
    else body.set(file, entry);
  }
  return body;
}

/** Whether a file made now is the reused one of the last emission: same bytes, mode, flags and source. */
function sameFile(reused: TreeFile, made: TreeFile): boolean {
  return (
    reused.facts?.sha256 === digestOf(made) &&
    !reused.executable === !made.executable &&
    !reused.generated === !made.generated &&
    !reused.verbatim === !made.verbatim &&
    reused.merge === made.merge &&
    reused.source === made.source
  );
}

/**
 * The bundle files a capability brought: what was rendered from its own
 * commands, agents and templates and from its step files, and its hook
 * scripts. The installer asks consent for them and removes exactly them.
 */
function capabilityFiles(capability: CapabilityView, ir: CorpusIr, tree: VirtualTree, scriptAt: ((hook: HookEntry) => string) | null, hooks: readonly HookEntry[]): string[] {
  const sources = new Set([
    ...(['commands', 'agents', 'templates'] as const).flatMap((family) => capability.own[family].map((file) => ownCorpusPath(family, file))),
    ...Object.values(ir.composition ?? {}).flat().filter((entry) => entry.capability === capability.id).map((entry) => entry.step),
  ]);
  const files = [...tree].filter(([, file]) => file.source !== undefined && sources.has(file.source)).map(([file]) => file);
  if (scriptAt) files.push(...hooks.filter((hook) => hook.capability?.id === capability.id).map(scriptAt).filter((file) => tree.has(file)));
  return [...new Set(files)].sort(compareText);
}

interface PlacedCommand {
  command: IrNode;
  path: string;
  /** For a router in a nested layout: routed stem → the file that holds it. */
  routes?: Map<string, string>;
}

/**
 * Where each command lands. Flat: every command at `surface.path`. Nested:
 * routers and commands no router routes at the top, each routed command once,
 * under the first router (by name) that routes it.
 */
function placeCommands(commands: IrNode[], surface: CommandSurface, at: (pattern: string, names?: Record<string, string>) => string): PlacedCommand[] {
  if (!surface.nested) return commands.map((command) => ({ command, path: at(surface.path, { name: command.name }) }));
  const owners = routedCommands(commands);
  const pathOf = (command: IrNode) => {
    const owner = owners.get(command.name);
    return owner ? at(surface.nested!.child, { router: owner, name: command.name }) : at(surface.path, { name: command.name });
  };
  const byName = new Map(commands.map((command) => [command.name, command]));
  return commands.map((command) => {
    const placed: PlacedCommand = { command, path: pathOf(command) };
    if (command.router) {
      placed.routes = new Map(
        command.edges
          .filter((edge) => edge.kind === 'requires' && byName.has(edge.target))
          .map((edge) => [edge.target, pathOf(byName.get(edge.target)!)]),
      );
    }
    return placed;
  });
}

function renderCommand(command: IrNode, surface: CommandSurface, target: Target, context: ComposeContext, filePath: string): string {
  const data = command.frontmatter?.data ?? {};
  const frontmatter =
    surface.frontmatter === 'none'
      ? ''
      : surface.frontmatter === 'keep'
        ? composeText(command, context, 0, command.body.start)
        : fence(
            renderFrontmatter(surface.frontmatter, {
              data,
              name: command.name,
              version: context.version,
              toolMaps: context.target.toolMaps ?? {},
              renderValue: (text) => composeString(text, context),
            }),
          );
  if (surface.template) {
    const template = compiledTemplate(target.files[surface.template] ?? '');
    return `${frontmatter}${template({
      name: command.name,
      description: truncate(composeString(String(data['description'] ?? ''), context).replace(/\s+/g, ' ').trim(), 180),
      invocation: (context.target.slash ?? '/gsd-{name}').replaceAll('{name}', command.name),
      root: rewriteRoot('~', context.target, context.scope),
      file: filePath,
    })}`;
  }
  const preamble = surface.preamble ? target.files[surface.preamble] ?? '' : '';
  return `${frontmatter}${preamble}${composeText(command, context)}`;
}

function fence(yaml: string): string {
  return yaml ? `---\n${yaml}---\n` : '';
}

function renderConfig(config: ConfigFile, target: Target): string {
  switch (config.format) {
    case 'json':
      return `${JSON.stringify(config.entries ?? {}, null, 2)}\n`;
    case 'toml':
      return `# Entries GSD adds to this file. The installer merges them into yours and removes exactly them on uninstall.\n${stringifyToml(config.entries ?? {})}\n`;
    case 'markdown':
    case 'file':
      return target.files[config.file ?? ''] ?? '';
  }
}

/** Where an agent's variant prompt sits under the bundle root, e.g. gsd-core/agents/gsd-planner.compact.md. */
export function agentVariantPath(name: string, variant: string, payload: string): string {
  return `${payload}/agents/${name}.${variant}.md`;
}

/**
 * path.posix.normalize, skipped for a path it would return unchanged: one
 * with no empty, `.` or `..` segment and no trailing slash (most paths; the
 * test is a few native searches, normalize a scan in JavaScript per file).
 */
export function normalizedPath(file: string): string {
  return file === '' || file.includes('//') || file.includes('./') || file.endsWith('.') || file.endsWith('/') ? path.posix.normalize(file) : file;
}

export function expandPath(pattern: string, scope: TargetScope, names: Record<string, string>): string {
  let result = pattern.replaceAll('{root}', scope.root);
  for (const [key, value] of Object.entries(names)) result = result.replaceAll(`{${key}}`, value);
  return normalizedPath(result);
}

/**
 * A hook's script in the bundle: its id, as built CommonJS (`.cjs`, which Node
 * never loads as an ES module, whatever the project's package.json says), or
 * the script as written, with its own extension.
 */
export function hookScriptName(hook: HookEntry): string {
  const extension = hook.entry.endsWith('.ts') ? '.cjs' : /\.[A-Za-z0-9]+$/.exec(hook.entry)?.[0] ?? '.js';
  return `${hook.id}${extension}`;
}
