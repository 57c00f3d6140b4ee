// .planning/config.json: load, validate, resolve defaults, read and write keys.
// The schema (schemas/config.schema.json) is the one source of key names,
// types and defaults; this module derives everything from it.
import path from 'node:path';
import schemaJson from '../../../schemas/config.schema.json' with { type: 'json' };
import type { Ctx } from '../core/context.ts';
import { CliError, FileFormatError } from '../core/errors.ts';
import { readTextIfExists } from '../core/fs.ts';
import { isForbiddenKey, lineOfPointer, parseJson } from '../core/json.ts';
import { validateConfigShape, type AjvError } from './validate-shape.ts';

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export type JsonMap = { [k: string]: Json };

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  oneOf?: SchemaNode[];
  enum?: unknown[];
  default?: Json;
  deprecated?: boolean;
}

const schema = schemaJson as unknown as SchemaNode;

export const SECRET_KEYS = ['brave_search', 'firecrawl', 'exa_search', 'tavily_search', 'ref_search', 'perplexity', 'jina'];

function isMap(v: unknown): v is JsonMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function defaultsOf(node: SchemaNode, deprecated = true): Json | undefined {
  if (node.default !== undefined) return structuredClone(node.default);
  if (node.properties) {
    const out: JsonMap = {};
    for (const [k, sub] of Object.entries(node.properties)) {
      if (!deprecated && sub.deprecated === true) continue;
      const d = defaultsOf(sub, deprecated);
      if (d !== undefined) out[k] = d;
    }
    return out;
  }
  return undefined;
}

let defaultsCache: JsonMap | undefined;
/** The default configuration, derived from the schema's `default` keywords. */
export function configDefaults(): JsonMap {
  defaultsCache ??= defaultsOf(schema) as JsonMap;
  return structuredClone(defaultsCache);
}

/** What a new project's config.json starts from: the defaults, less the keys the schema marks deprecated (GSD does not act on them). */
export function newConfigDefaults(): JsonMap {
  return defaultsOf(schema, false) as JsonMap;
}

export function deepMerge(base: Json, over: Json): Json {
  if (!isMap(base) || !isMap(over)) return structuredClone(over);
  const out: JsonMap = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in base ? deepMerge(base[k]!, v) : structuredClone(v);
  return out;
}

/** The schema node for a dotted key, or null when the schema does not allow it. */
export function schemaFor(key: string): SchemaNode | null {
  let node: SchemaNode | undefined = schema;
  for (const part of key.split('.')) {
    if (!node) return null;
    if (part === '' || isForbiddenKey(part)) return null;
    const candidates: SchemaNode[] = node.oneOf ? node.oneOf : [node];
    let next: SchemaNode | undefined;
    for (const c of candidates) {
      if (c.properties && Object.prototype.hasOwnProperty.call(c.properties, part)) next = c.properties[part];
      else if (c.additionalProperties === true) next = {};
      else if (isMap(c.additionalProperties)) next = c.additionalProperties as SchemaNode;
      if (next) break;
    }
    node = next;
  }
  return node ?? null;
}

/** Flat top-level spellings config-get also answers (see applyFlatAliases). */
const FLAT_KEYS = ['commit_docs', 'search_gitignored'];

/** Is `key` something config-get can answer: a key the schema allows, or a flat alias? */
export function isConfigKey(key: string): boolean {
  return schemaFor(key) !== null || FLAT_KEYS.includes(key);
}

/** Every static dotted key in the schema (for messages and docs), but for the deprecated ones: accepted from
 * upstream configs, they do nothing, so no message points a user to them. */
export function knownKeys(node: SchemaNode = schema, prefix = ''): string[] {
  const out: string[] = [];
  const nodes = node.oneOf ?? [node];
  for (const n of nodes) {
    for (const [k, sub] of Object.entries(n.properties ?? {})) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (k === '$schema' || sub.deprecated === true) continue;
      out.push(key);
      if (sub.properties || sub.oneOf) out.push(...knownKeys(sub, key));
    }
  }
  return [...new Set(out)];
}

export interface LoadedConfig {
  path: string;
  exists: boolean;
  /** The file as read, minus the values that do not match the schema (those fall back to defaults). */
  file: JsonMap;
  /** The file exactly as parsed, wrong values included (what config-set edits). */
  raw: JsonMap;
  /** Defaults with the file merged over them. */
  resolved: JsonMap;
  text: string | null;
  /** Values of the wrong type or out of range, set aside. */
  problems: ConfigProblem[];
}

/** A config value the schema refuses: reported, then ignored in favour of the default. */
export interface ConfigProblem {
  /** Dotted key, e.g. workflow.research. */
  key: string;
  line: number | undefined;
  /** What the schema wants, e.g. "boolean" or "one of [\"interactive\",\"yolo\"]". */
  expected: string;
  found: Json;
  /** The value used instead (undefined: the key has no default and is ignored). */
  fallback: Json | undefined;
}

export const CONFIG_PROBLEM_CODE = 'config-invalid-value';

export function describeProblem(p: ConfigProblem): string {
  const instead = p.fallback === undefined ? 'the key is ignored' : `using the default ${JSON.stringify(p.fallback)}`;
  return `${p.key}: expected ${p.expected}, found ${JSON.stringify(p.found)}; ${instead}`;
}

/** The warning line: `path:line:col: warning config-invalid-value key: expected …, found …; using the default …`. */
export function problemWarning(file: string, p: ConfigProblem): string {
  return `${file}:${p.line ?? 1}:1: warning ${CONFIG_PROBLEM_CODE} ${describeProblem(p)}`;
}

function expectation(e: AjvError): string {
  const params = e.params as { type?: string | string[]; allowedValues?: unknown[]; limit?: number; comparison?: string; missingProperty?: string };
  if (e.keyword === 'type') return Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
  if (e.keyword === 'enum') return `one of ${JSON.stringify(params.allowedValues)}`;
  if (e.keyword === 'required') return `an object with "${params.missingProperty}"`;
  if (params.comparison && params.limit !== undefined) return `a number ${params.comparison} ${params.limit}`;
  return e.message ? e.message.replace(/^must (be )?/, '') : e.keyword;
}

function deletePointer(obj: JsonMap, pointer: string): void {
  const parts = pointer.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let cur: Json = obj;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(part)]!;
    else if (isMap(cur)) cur = cur[part]!;
    else return;
  }
  const last = parts[parts.length - 1]!;
  if (Array.isArray(cur)) cur.splice(Number(last), 1);
  else if (isMap(cur)) delete cur[last];
}

function atPointer(obj: Json, pointer: string): Json | undefined {
  let cur: Json | undefined = obj;
  for (const part of pointer.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isMap(cur) && Object.prototype.hasOwnProperty.call(cur, part)) cur = cur[part];
    else return undefined;
  }
  return cur;
}

/**
 * Sort a parsed config into what is usable and what is not. Unknown keys are
 * warnings and stay (they are ignored anyway); a value the schema refuses is
 * taken out (so its default applies) and reported as a problem. Only a
 * config that is not an object at all is an error.
 */
export function sortConfig(data: unknown, text: string, file: string): { usable: JsonMap; warnings: string[]; problems: ConfigProblem[] } {
  if (!isMap(data)) throw new FileFormatError(file, 1, 'config must be a JSON object');
  const usable = structuredClone(data) as JsonMap;
  const warnings: string[] = [];
  const problems: ConfigProblem[] = [];
  // Each round takes out the deepest refused values only, then checks again, so
  // a wrong leaf inside a oneOf branch costs that leaf, not its whole object.
  for (let round = 0; round < 50 && !validateConfigShape(usable); round++) {
    const errors = validateConfigShape.errors ?? [];
    for (const e of errors) {
      if (e.keyword !== 'additionalProperties' || round > 0) continue;
      const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
      const pointer = `${e.instancePath}/${extra}`;
      const line = lineOfPointer(text, pointer);
      warnings.push(`${file}${line ? `:${line}` : ''}: unknown config key "${pointer.slice(1).replace(/\//g, '.')}" (ignored)`);
    }
    const refused = errors.filter((e) => e.keyword !== 'additionalProperties' && e.instancePath !== '');
    if (refused.length === 0) break;
    const depth = (e: AjvError) => e.instancePath.split('/').length;
    const deepest = Math.max(...refused.map(depth));
    const byPointer = new Map<string, AjvError[]>();
    for (const e of refused.filter((x) => depth(x) === deepest)) byPointer.set(e.instancePath, [...(byPointer.get(e.instancePath) ?? []), e]);
    for (const [pointer, group] of byPointer) {
      const specific = group.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'if');
      const expected = [...new Set((specific.length ? specific : group).map(expectation))].join(' or ');
      const found = atPointer(data as Json, pointer);
      const key = pointer.slice(1).replace(/\//g, '.');
      problems.push({ key, line: lineOfPointer(text, pointer), expected, found: found === undefined ? null : found, fallback: getPath(configDefaults(), key) });
      deletePointer(usable, pointer);
    }
  }
  if (!validateConfigShape(usable) && (validateConfigShape.errors ?? []).some((e) => e.keyword !== 'additionalProperties')) {
    const e = validateConfigShape.errors!.find((x) => x.keyword !== 'additionalProperties')!;
    throw new FileFormatError(file, lineOfPointer(text, e.instancePath), describe(e));
  }
  return { usable, warnings, problems };
}

function describe(e: AjvError): string {
  const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
  if (e.keyword === 'enum') return `${where}: must be one of ${JSON.stringify((e.params as { allowedValues?: unknown[] }).allowedValues)}`;
  return `${where}: ${e.message ?? e.keyword}`;
}

/**
 * Check a parsed config. Unknown keys are warnings (returned); any other
 * schema violation is an error naming the file and line of the bad key.
 */
export function checkConfig(data: unknown, text: string, file: string): string[] {
  if (!isMap(data)) throw new FileFormatError(file, 1, 'config must be a JSON object');
  if (validateConfigShape(data)) return [];
  const warnings: string[] = [];
  const errors: { line: number | undefined; text: string }[] = [];
  for (const e of validateConfigShape.errors ?? []) {
    if (e.keyword === 'additionalProperties') {
      const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
      const pointer = `${e.instancePath}/${extra}`;
      const key = pointer.slice(1).replace(/\//g, '.');
      const line = lineOfPointer(text, pointer);
      warnings.push(`${file}${line ? `:${line}` : ''}: unknown config key "${key}" (ignored)`);
    } else if (e.keyword === 'oneOf' || e.keyword === 'if') {
      continue; // the branch errors explain it better
    } else {
      errors.push({ line: lineOfPointer(text, e.instancePath), text: describe(e) });
    }
  }
  if (errors.length === 0 && warnings.length === 0) {
    // Only oneOf failures: report the key itself.
    const e = validateConfigShape.errors?.[0];
    if (e) errors.push({ line: lineOfPointer(text, e.instancePath), text: describe(e) });
  }
  if (errors.length) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more: ${errors.slice(1).map((x) => x.text).join('; ')})` : '';
    throw new FileFormatError(file, first.line, `${first.text}${more}`);
  }
  return warnings;
}

const cache = new WeakMap<Ctx, LoadedConfig>();

/**
 * Load and validate the project's config; cached per invocation. A value of
 * the wrong type never blocks: it is reported (`ctx.warn`, unless quiet) and
 * its default used, so every other key still reads and config-set can fix it.
 * Invalid JSON still fails: there is no telling which values were meant.
 */
export function loadConfig(ctx: Ctx, opts: { optionalProject?: boolean; quiet?: boolean } = {}): LoadedConfig {
  const hit = cache.get(ctx);
  if (hit) return hit;
  const root = opts.optionalProject ? ctx.maybeRoot : ctx.root;
  // A workstream's config.json is an overlay on the project's: its keys win, the rest come from the project.
  const base = readConfigFile(ctx, ctx.draftPlanningPath('config.json'), root !== null, opts.quiet);
  const overlay = root && ctx.workstream ? readConfigFile(ctx, path.join(ctx.planning, 'config.json'), true, opts.quiet) : null;
  const own = overlay ?? base;
  const data = overlay ? (deepMerge(base.usable, overlay.usable) as JsonMap) : base.usable;
  const resolved = deepMerge(configDefaults(), data) as JsonMap;
  applyFlatAliases(resolved, data, root);
  const loaded: LoadedConfig = {
    path: own.file,
    exists: base.text !== null || own.text !== null,
    file: data,
    raw: own.raw,
    resolved,
    text: own.text,
    problems: [...base.problems, ...(overlay?.problems ?? [])],
  };
  cache.set(ctx, loaded);
  return loaded;
}

/** One config file read and sorted into usable values and problems; absent reads as empty. */
function readConfigFile(ctx: Ctx, file: string, read: boolean, quiet: boolean | undefined) {
  const label = ctx.rel(file);
  const text = read ? readTextIfExists(file) : null;
  if (text === null) return { file, text, usable: {} as JsonMap, raw: {} as JsonMap, problems: [] as ConfigProblem[] };
  let parsed: unknown;
  try {
    parsed = parseJson(text, label);
  } catch (error) {
    if (error instanceof CliError) throw new CliError('failed', error.message);
    throw error;
  }
  const sorted = sortConfig(parsed, text, label);
  if (!quiet) {
    for (const w of sorted.warnings) ctx.warn(w);
    for (const p of sorted.problems) ctx.warn(problemWarning(label, p));
  }
  return { file, text, usable: sorted.usable, raw: parsed as JsonMap, problems: sorted.problems };
}

export function forgetConfig(ctx: Ctx): void {
  cache.delete(ctx);
}

function planningIgnored(root: string | null): boolean {
  if (!root) return false;
  const gi = readTextIfExists(path.join(root, '.gitignore'));
  if (!gi) return false;
  return gi.split(/\r?\n/).some((l) => /^\/?\.planning\/?\s*$/.test(l.trim()));
}

/** Flat top-level keys (commit_docs, search_gitignored) win over their nested homes. */
function applyFlatAliases(resolved: JsonMap, file: JsonMap, root: string | null): void {
  const planning = resolved.planning as JsonMap;
  const filePlanning = isMap(file.planning) ? file.planning : {};
  if (typeof file.commit_docs === 'boolean') planning.commit_docs = file.commit_docs;
  else if (filePlanning.commit_docs === undefined && planningIgnored(root)) planning.commit_docs = false;
  if (typeof file.search_gitignored === 'boolean') planning.search_gitignored = file.search_gitignored;
  resolved.commit_docs = planning.commit_docs ?? true;
  resolved.search_gitignored = planning.search_gitignored ?? false;
}

/** Own-property walk of a dotted path; undefined when any step is missing. */
export function getPath(obj: Json, key: string): Json | undefined {
  let cur: Json | undefined = obj;
  for (const part of key.split('.')) {
    if (!isMap(cur) || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = cur[part];
  }
  return cur;
}

export function maskSecret(key: string, value: Json): Json {
  if (!SECRET_KEYS.includes(key) || typeof value !== 'string') return value;
  if (value === '') return '(unset)';
  return value.length < 8 ? '****' : `****${value.slice(-4)}`;
}

/** Coerce a command-line value: booleans, null, finite numbers, JSON objects/arrays, else string. */
export function coerceValue(raw: string, label: string): Json {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(raw) && Number.isFinite(Number(raw))) return Number(raw);
  if (/^\s*[[{]/.test(raw)) return parseJson(raw, label) as Json;
  return raw;
}

export function setPath(obj: JsonMap, key: string, value: Json | undefined): void {
  const parts = key.split('.');
  let cur: JsonMap = obj;
  for (const part of parts.slice(0, -1)) {
    if (isForbiddenKey(part)) throw new CliError('refused', `config key segment "${part}" is not allowed`);
    const next = cur[part];
    if (!isMap(next)) {
      if (value === undefined) return;
      cur[part] = {};
    }
    cur = cur[part] as JsonMap;
  }
  const last = parts[parts.length - 1]!;
  if (isForbiddenKey(last)) throw new CliError('refused', `config key segment "${last}" is not allowed`);
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/** Flat projection of the resolved config, the shape `state load` returns. */
export function flatConfig(resolved: JsonMap): JsonMap {
  const wf = (isMap(resolved.workflow) ? resolved.workflow : {}) as JsonMap;
  const git = (isMap(resolved.git) ? resolved.git : {}) as JsonMap;
  const planning = (isMap(resolved.planning) ? resolved.planning : {}) as JsonMap;
  const par = resolved.parallelization;
  return {
    model_profile: resolved.model_profile ?? 'balanced',
    commit_docs: resolved.commit_docs ?? true,
    search_gitignored: resolved.search_gitignored ?? false,
    sub_repos: planning.sub_repos ?? [],
    branching_strategy: git.branching_strategy ?? 'none',
    phase_branch_template: git.phase_branch_template ?? null,
    milestone_branch_template: git.milestone_branch_template ?? null,
    research: wf.research ?? true,
    plan_checker: wf.plan_check ?? true,
    verifier: wf.verifier ?? true,
    nyquist_validation: wf.nyquist_validation ?? true,
    parallelization: isMap(par) ? (par.enabled ?? true) : (par ?? true),
    mode: resolved.mode ?? 'interactive',
    granularity: resolved.granularity ?? 'standard',
    context_window: resolved.context_window ?? 200000,
    text_mode: wf.text_mode ?? false,
    auto_advance: wf.auto_advance ?? false,
    tdd_mode: wf.tdd_mode ?? false,
    use_worktrees: wf.use_worktrees ?? true,
    resolve_model_ids: resolved.resolve_model_ids ?? false,
    brave_search: Boolean(resolved.brave_search),
    firecrawl: Boolean(resolved.firecrawl),
    exa_search: Boolean(resolved.exa_search),
  };
}
