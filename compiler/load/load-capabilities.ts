// Capabilities: folders with a capability.json (schemas/capability.schema.json)
// and Markdown fragments, read from disk here (the only file-system reads for
// them) and validated against our data: loop points and roles
// (data/loop-points.json), limits (data/capabilities.json), our version
// (engines.gsd) and the config schema the runtime CLI validates against.
// Hostile folders are normal: paths stay inside the folder, symlinks may not
// lead out of it, sizes and counts are capped before anything is read whole.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { compareText, diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics.ts';
import { describeSchemaErrors, schemaValidator } from '../schemas.ts';
import { parseRange, parseVersion } from '../util/semver.ts';
import type { HookEntry } from './load-hooks.ts';
import { LOOP_POINTS, LOOP_ROLES } from './parse-loop-points.ts';
import { scanLines } from './scan-lines.ts';
import { parseJsonWithPositions } from './yaml-position.ts';
import limits from '../data/capabilities.json' with { type: 'json' };

export type CapabilityOrigin = 'first-party' | 'third-party';

export interface CapabilitySource {
  /** The folder on disk. */
  dir: string;
  /** How diagnostics name the folder: `capabilities/<id>` inside the corpus, the path or package given otherwise. */
  display: string;
  origin: CapabilityOrigin;
}

export interface ConfigKeySpec {
  type: 'boolean' | 'string' | 'number';
  default: boolean | string | number;
  description: string;
  enum?: (string | number)[];
}

export type ContributionKind = 'step' | 'contribution' | 'gate';

export interface CapabilityContribution {
  kind: ContributionKind;
  point: string;
  /** contribution: the role whose prompt it joins. */
  into?: string;
  /** step: what runs. */
  run?: { agent?: string; command?: string };
  /** gate: whether a failure stops the workflow. */
  blocking?: boolean;
  when: string;
  produces: string[];
  consumes: string[];
  onError: 'skip' | 'halt';
  /** Folder-relative path of the fragment, and its text. */
  fragment: string;
  text: string;
  /** Index in the manifest's contributions list. */
  index: number;
  /** Position of the entry in capability.json. */
  line: number;
  column: number;
}

/**
 * A hook a capability brings: the registry's fields (id is `<capability id>-<script name>`, the
 * script ships as hooks/<id><extension>; entry is folder-relative), a description it must give,
 * and the position of the entry in capability.json.
 */
export interface CapabilityHook extends Omit<HookEntry, 'optIn' | 'capability' | 'description'> {
  description: string;
  line: number;
  column: number;
}

/** Where a capability's own files go in the corpus tree: folder-relative prefix → corpus prefix. */
export const OWN_FILE_HOMES = { commands: ['commands/gsd/', 'commands/gsd/'], agents: ['agents/', 'agents/'], templates: ['templates/', 'gsd-core/templates/'] } as const;

/** The corpus path of a capability's own command, agent or template. */
export function ownCorpusPath(family: keyof typeof OWN_FILE_HOMES, file: string): string {
  const [from, to] = OWN_FILE_HOMES[family];
  return `${to}${file.slice(from.length)}`;
}

export interface Capability {
  id: string;
  version: string;
  description: string;
  engines: string;
  origin: CapabilityOrigin;
  /** Diagnostic path of the folder. */
  display: string;
  /** sha256 over the folder's files (path, NUL, bytes, NUL; sorted by path). */
  digest: string;
  config: Record<string, ConfigKeySpec>;
  contributions: CapabilityContribution[];
  /** Files of its own beyond fragments (commands, agents, templates, hooks), folder-relative. */
  own: { commands: string[]; agents: string[]; templates: string[]; hooks: string[] };
  /** Its hooks, registered like hooks/hooks.json's (ids `<capability id>-<script name>`). */
  hooks: CapabilityHook[];
  /** Every file of the folder, folder-relative, with its bytes. */
  files: { path: string; bytes: Uint8Array }[];
}

/** A node of a JSON Schema, as far as merging and checking config keys needs. */
export interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  default?: unknown;
  enum?: unknown[];
  description?: string;
}

export interface LoadContext {
  /** Our version, for engines.gsd. */
  version: string;
  /** The base config schema (null when the corpus has none): keys a slice repeats must agree with it. */
  configSchema: SchemaNode | null;
}

/** The capability folders of a corpus: <folder>/<id>/ under the source dir (the layout's folder), sorted. */
export function firstPartySources(sourceDir: string, folder: string): CapabilitySource[] {
  const root = path.join(sourceDir, folder);
  let entries: string[];
  try {
    entries = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
  return entries.sort(compareText).map((name) => ({ dir: path.join(root, name), display: `${folder}/${name}`, origin: 'first-party' as const }));
}

export function loadCapabilities(sources: readonly CapabilitySource[], context: LoadContext): { capabilities: Capability[]; diagnostics: Diagnostic[] } {
  const capabilities: Capability[] = [];
  const diagnostics: Diagnostic[] = [];
  const keyOwner = new Map<string, string>();
  for (const source of sources) {
    const loaded = loadOne(source, context);
    diagnostics.push(...loaded.diagnostics);
    if (!loaded.capability) continue;
    const capability = loaded.capability;
    const clash = capabilities.find((other) => other.id === capability.id);
    if (clash) {
      diagnostics.push(diagnostic(`${source.display}/capability.json`, 1, 1, 'capability-clash', `expected a capability id not taken, found "${capability.id}" already defined by ${clash.origin} ${clash.display}`));
      continue;
    }
    let shared = false;
    for (const key of Object.keys(capability.config)) {
      const owner = keyOwner.get(key);
      if (owner) {
        diagnostics.push(diagnostic(`${source.display}/capability.json`, 1, 1, 'capability-config', `expected config key "${key}" to belong to one capability, found it in ${owner} too`));
        shared = true;
      }
    }
    if (shared) continue;
    for (const key of Object.keys(capability.config)) keyOwner.set(key, capability.id);
    capabilities.push(capability);
  }
  return { capabilities, diagnostics };
}

function loadOne(source: CapabilitySource, context: LoadContext): { capability: Capability | null; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const manifestFile = `${source.display}/capability.json`;
  const report = (file: string, line: number, column: number, code: DiagnosticCode, message: string) => diagnostics.push(diagnostic(file, line, column, code, message));
  const walked = walkFolder(source);
  diagnostics.push(...walked.diagnostics);
  const files = walked.files;
  const manifest = files.find((file) => file.path === 'capability.json');
  if (!manifest) {
    report(manifestFile, 1, 1, 'capability-schema', 'expected a capability.json in the capability folder, found none');
    return { capability: null, diagnostics };
  }
  if (manifest.bytes.length > limits.manifestMaxBytes) {
    report(manifestFile, 1, 1, 'capability-fragment-size', `expected capability.json of at most ${limits.manifestMaxBytes} bytes, found ${manifest.bytes.length}`);
    return { capability: null, diagnostics };
  }
  const parsed = parseJsonWithPositions(new TextDecoder().decode(manifest.bytes));
  if (parsed.error) {
    report(manifestFile, parsed.error.line, parsed.error.column, 'capability-schema', `expected JSON, found ${parsed.error.message}`);
    return { capability: null, diagnostics };
  }
  const { locate } = parsed;
  const validate = schemaValidator('capability.schema.json');
  if (!validate(parsed.data)) {
    // The kind dispatch (if/then) adds a summary error per entry; its branch's own errors say more.
    for (const finding of describeSchemaErrors((validate.errors ?? []).filter((error) => error.keyword !== 'if'), parsed.data)) {
      const { line, column } = locate(finding.path, finding.atKey);
      report(manifestFile, line, column, 'capability-schema', finding.message.replace(/^frontmatter/, 'capability.json'));
    }
    return { capability: null, diagnostics };
  }
  const data = parsed.data as {
    id: string;
    version: string;
    engines: { gsd: string };
    description: string;
    config: Record<string, ConfigKeySpec>;
    contributions: (Omit<CapabilityContribution, 'text' | 'index' | 'line' | 'column' | 'produces' | 'consumes' | 'onError'> & { produces?: string[]; consumes?: string[]; onError?: 'skip' | 'halt' })[];
    commands?: string[];
    agents?: string[];
    templates?: string[];
    hooks?: Omit<CapabilityHook, 'id' | 'line' | 'column'>[];
  };
  const at = (where: (string | number)[], code: DiagnosticCode, message: string, atKey = false) => {
    const { line, column } = locate(where, atKey);
    report(manifestFile, line, column, code, message);
  };
  const folderName = path.basename(source.dir);
  if (data.id !== folderName) at(['id'], 'capability-id', `expected id "${folderName}" (the folder name), found "${data.id}"`);

  const range = parseRange(data.engines.gsd);
  const ours = parseVersion(context.version);
  if (!range) at(['engines', 'gsd'], 'capability-engines', `expected a version range such as ">=0.1.0 <1.0.0" or "^0.1.0", found "${data.engines.gsd}"`);
  else if (ours && !range(ours)) at(['engines', 'gsd'], 'capability-engines', `expected engines.gsd to admit gsd-build ${context.version}, found "${data.engines.gsd}"`);

  for (const [key, spec] of Object.entries(data.config)) {
    const problem = configProblem(key, spec, context.configSchema);
    if (problem) at(['config', key], 'capability-config', problem);
  }

  const byName = new Map(files.map((file) => [file.path, file]));
  const hosts = new Map(LOOP_POINTS.map((spec) => [spec.point, spec]));
  const contributions: CapabilityContribution[] = [];
  data.contributions.forEach((entry, index) => {
    const where = ['contributions', index];
    const before = diagnostics.length;
    if (!hosts.has(entry.point)) {
      at([...where, 'point'], 'loop-unknown-point', `expected one of ${[...hosts.keys()].join(', ')}, found "${entry.point}"`);
    }
    if (entry.kind === 'contribution' && !Object.prototype.hasOwnProperty.call(LOOP_ROLES, entry.into ?? '')) {
      at([...where, 'into'], 'loop-unknown-role', `expected a role from ${Object.keys(LOOP_ROLES).join(', ')}, found "${entry.into}"`);
    }
    const whenSpec = Object.prototype.hasOwnProperty.call(data.config, entry.when) ? data.config[entry.when] : undefined;
    if (!whenSpec || whenSpec.type !== 'boolean') {
      at([...where, 'when'], 'capability-when', `expected a boolean key of this capability's config (${Object.keys(data.config).filter((key) => data.config[key]!.type === 'boolean').join(', ') || 'none declared'}), found "${entry.when}"`);
    }
    const text = readFragment(entry.fragment, byName, (code, message) => at([...where, 'fragment'], code, message));
    if (diagnostics.length > before || text === null) return;
    const { line, column } = locate(where);
    contributions.push({
      ...entry,
      produces: entry.produces ?? [],
      consumes: entry.consumes ?? [],
      onError: entry.onError ?? 'skip',
      text,
      index,
      line,
      column,
    });
  });
  const hookSpecs = data.hooks ?? [];
  const own = { commands: data.commands ?? [], agents: data.agents ?? [], templates: data.templates ?? [], hooks: hookSpecs.map((hook) => hook.entry) };
  for (const family of ['commands', 'agents', 'templates'] as const) {
    own[family].forEach((file, index) => {
      const home = OWN_FILE_HOMES[family][0];
      const problem = pathProblem(file, '.md') ?? (file.startsWith(home) && !file.slice(home.length).includes('/') ? null : `expected ${family} file "${file}" as ${home}<name>.md`);
      if (problem) at([family, index], 'capability-path', problem);
      else if (!byName.has(file)) at([family, index], 'capability-fragment-missing', `expected ${family} file "${file}" inside ${source.display}, found none`);
    });
  }
  const events: readonly string[] = hookEvents();
  const hooks: CapabilityHook[] = [];
  hookSpecs.forEach((spec, index) => {
    if (!byName.has(spec.entry)) at(['hooks', index, 'entry'], 'capability-fragment-missing', `expected hook script "${spec.entry}" inside ${source.display}, found none`);
    if (!events.includes(spec.event)) at(['hooks', index, 'event'], 'capability-hook', `expected an event of hooks/hooks.json's vocabulary (${events.join(', ')}), found "${spec.event}"`);
    const { line, column } = locate(['hooks', index]);
    const name = spec.entry.slice('hooks/'.length).replace(/\.[a-z]+$/, '');
    hooks.push({ ...spec, id: `${data.id}-${name}`, line, column });
  });
  if (diagnostics.length > 0) return { capability: null, diagnostics };
  return {
    capability: {
      id: data.id,
      version: data.version,
      description: data.description,
      engines: data.engines.gsd,
      origin: source.origin,
      display: source.display,
      digest: digestOf(files),
      config: data.config,
      contributions,
      own,
      hooks,
      files,
    },
    diagnostics,
  };
}

/** The events a hook may name: the hook registry's schema (hooks.schema.json). */
function hookEvents(): string[] {
  const schema = schemaValidator('hooks.schema.json').schema as { items: { properties: { event: { enum: string[] } } } };
  return schema.items.properties.event.enum;
}

/** Why a folder-relative path is refused, or null. `ext` null: any file name. */
export function pathProblem(file: string, ext: string | null): string | null {
  if (file.startsWith('/') || /^[A-Za-z]:/.test(file) || file.includes('\\')) return `expected a path relative to the capability folder with / separators, found "${file}"`;
  if (file.split('/').some((part) => part === '..' || part === '.' || part === '')) return `expected a path inside the capability folder (no "..", "." or empty parts), found "${file}"`;
  if (ext && !file.endsWith(ext)) return `expected a ${ext} file, found "${file}"`;
  return null;
}

function readFragment(file: string, byName: ReadonlyMap<string, { bytes: Uint8Array }>, report: (code: DiagnosticCode, message: string) => void): string | null {
  const problem = pathProblem(file, '.md');
  if (problem) {
    report('capability-path', problem);
    return null;
  }
  const found = byName.get(file);
  if (!found) {
    report('capability-fragment-missing', `expected fragment "${file}" inside the capability folder, found no such file`);
    return null;
  }
  if (found.bytes.length > limits.fragmentMaxBytes) {
    report('capability-fragment-size', `expected fragment "${file}" of at most ${limits.fragmentMaxBytes} bytes, found ${found.bytes.length}`);
    return null;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(found.bytes).replace(/\r\n/g, '\n');
  } catch {
    report('capability-fragment-missing', `expected fragment "${file}" as UTF-8 text, found an invalid byte sequence`);
    return null;
  }
  if (text.trim() === '') {
    report('capability-fragment-missing', `expected fragment "${file}" to hold text, found an empty file`);
    return null;
  }
  // A fragment is spliced into a section of its own: markers in it would nest or move loop points.
  const directive = scanLines(text).find((line) => line.kind === 'marker' || line.kind === 'loop');
  if (directive) {
    report('capability-fragment-marker', `expected fragment "${file}" without gsd:section or gsd:loop markers, found one on its line ${directive.line}`);
    return null;
  }
  if (text.startsWith('---\n')) {
    report('capability-fragment-marker', `expected fragment "${file}" without frontmatter, found a "---" block`);
    return null;
  }
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A slice key's spec is self-consistent and, where the base schema has the key, agrees with it. */
function configProblem(key: string, spec: ConfigKeySpec, base: SchemaNode | null): string | null {
  if (typeof spec.default !== spec.type) return `expected a ${spec.type} default for "${key}", found ${JSON.stringify(spec.default)}`;
  if (spec.enum && (spec.type === 'boolean' || !spec.enum.includes(spec.default as string | number))) return `expected the default of "${key}" among its enum values, found ${JSON.stringify(spec.default)}`;
  const existing = base ? schemaAt(base, key) : null;
  if (existing === 'blocked') return `expected "${key}" under a config object that takes new keys, found a value or a closed key there`;
  if (existing && (existing.type !== spec.type || existing.default !== spec.default)) {
    return `expected "${key}" to agree with the config schema (${String(existing.type)}, default ${JSON.stringify(existing.default)}), found ${spec.type}, default ${JSON.stringify(spec.default)}`;
  }
  return null;
}

/** The schema node of a dotted key; null when absent but addable; 'blocked' when a parent is not an object. */
export function schemaAt(schema: SchemaNode, key: string): SchemaNode | null | 'blocked' {
  let node: SchemaNode = schema;
  const parts = key.split('.');
  for (const [index, part] of parts.entries()) {
    const next = node.properties && Object.prototype.hasOwnProperty.call(node.properties, part) ? node.properties[part] : undefined;
    if (!next) {
      const isObject = node.type === undefined || node.type === 'object';
      return isObject ? null : 'blocked';
    }
    if (index < parts.length - 1 && next.type !== undefined && next.type !== 'object') return 'blocked';
    node = next;
  }
  return node;
}

/** Every regular file of the folder, bounded; symlinks are followed only while they stay inside. */
function walkFolder(source: CapabilitySource): { files: { path: string; bytes: Uint8Array }[]; diagnostics: Diagnostic[] } {
  const files: { path: string; bytes: Uint8Array }[] = [];
  const diagnostics: Diagnostic[] = [];
  let real: string;
  try {
    real = realpathSync(source.dir);
  } catch {
    return { files, diagnostics: [diagnostic(`${source.display}/capability.json`, 1, 1, 'capability-path', `expected a capability folder at ${source.display}, found none`)] };
  }
  const inside = (target: string) => target === real || target.startsWith(`${real}${path.sep}`);
  const visit = (dir: string, relative: string, depth: number) => {
    const names = readdirSync(dir).sort(compareText);
    for (const name of names) {
      const rel = relative ? `${relative}/${name}` : name;
      const full = path.join(dir, name);
      const display = `${source.display}/${rel}`;
      if (name.startsWith('.') || name === 'node_modules') continue;
      let stat = lstatSync(full);
      if (stat.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(full);
        } catch {
          diagnostics.push(diagnostic(display, 1, 1, 'capability-path', 'expected a symlink that resolves inside the capability folder, found a dangling link'));
          continue;
        }
        if (!inside(target)) {
          diagnostics.push(diagnostic(display, 1, 1, 'capability-path', `expected a symlink that stays inside the capability folder, found one leading out of it`));
          continue;
        }
        stat = statSync(full);
      }
      if (stat.isDirectory()) {
        if (depth >= limits.maxDepth) {
          diagnostics.push(diagnostic(display, 1, 1, 'capability-path', `expected folders at most ${limits.maxDepth} deep in a capability, found ${rel}`));
          continue;
        }
        visit(full, rel, depth + 1);
        continue;
      }
      if (!stat.isFile()) continue;
      if (files.length >= limits.maxFiles) {
        diagnostics.push(diagnostic(display, 1, 1, 'capability-path', `expected at most ${limits.maxFiles} files in a capability, found more`));
        return;
      }
      // Size first: a huge file is refused without reading it.
      if (stat.size > Math.max(limits.fragmentMaxBytes, limits.manifestMaxBytes) * 4) {
        diagnostics.push(diagnostic(display, 1, 1, 'capability-fragment-size', `expected files of at most ${Math.max(limits.fragmentMaxBytes, limits.manifestMaxBytes) * 4} bytes in a capability, found ${stat.size}`));
        continue;
      }
      files.push({ path: rel, bytes: readFileSync(full) });
    }
  };
  visit(real, '', 0);
  return { files, diagnostics };
}

function digestOf(files: readonly { path: string; bytes: Uint8Array }[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => compareText(a.path, b.path))) hash.update(file.path).update('\0').update(file.bytes).update('\0');
  return `sha256:${hash.digest('hex')}`;
}
