// The one step between a runtime and a GSD hook. The hooks are written
// against Claude Code's hook protocol; a hook command that carries
// `--runtime <id>` names another runtime, and its hook-payload.json
// (targets/<id>/, lib/payload-table.ts) says how that
// runtime spells the event, the tool and its arguments, and what it reads
// back. normalize() turns the runtime's payload into Claude Code inputs (one,
// or one per file of a multi-file patch); render() turns the hook's Claude
// Code answer into the runtime's stdout, stderr and exit code. No
// --runtime, or `--runtime claude`, leaves both untouched.
import registryData from '../hooks.json' with { type: 'json' };
import { PAYLOADS } from './payload-table.ts';
import type { HookAnswer, HookInput } from './hook-types.ts';

type Paths = string | readonly string[];
type Field = 'event' | 'tool' | 'input' | 'response' | 'session' | 'cwd' | 'transcript' | 'prompt';
type Kind = 'allow' | 'context' | 'deny' | 'block';

export interface ToolSpec {
  tool: string;
  input?: Record<string, Paths>;
  edits?: { from?: Paths; old?: string; new?: string; numbered?: { old: string; new: string } };
  patch?: Paths;
  /** One call per element of a list argument (or of JSON text holding one): the element, or its `field`, becomes tool_input[key]. */
  each?: { from: Paths; key: string; field?: string };
}

export interface Render {
  stdout?: unknown;
  stderr?: string;
  exitCode?: number;
}

export interface RuntimeSpec {
  name: string;
  docs: string[];
  base?: string;
  target?: string;
  matcherToolMap?: string;
  matchers?: boolean;
  /** A dispatcher under source/hooks/ that calls GSD's hooks for this runtime, translating both ways; the hooks themselves then see Claude Code's protocol. */
  dispatcher?: string;
  fields?: Partial<Record<Field, Paths>>;
  events?: Record<string, string | { event: string; tool: string }>;
  tools?: Record<string, ToolSpec>;
  output?: 'claude' | Record<string, Partial<Record<Kind, Render>>>;
}

/** A runtime with its base folded in. */
export interface Runtime {
  id: string;
  fields: Partial<Record<Field, Paths>>;
  events: Record<string, string | { event: string; tool: string }>;
  tools: Record<string, ToolSpec>;
  matchers: boolean;
  output: 'claude' | Record<string, Partial<Record<Kind, Render>>>;
}

interface RegistryEntry {
  id: string;
  event: string;
  matcher?: string;
  timeout?: number;
}

export const RUNTIMES = PAYLOADS as unknown as Record<string, RuntimeSpec>;
export const REGISTRY = registryData as unknown as RegistryEntry[];

/** The value after `--runtime` (or of `--runtime=<id>`) in the hook's arguments. */
export function runtimeArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--runtime') return argv[i + 1];
    if (arg.startsWith('--runtime=')) return arg.slice('--runtime='.length);
  }
  return undefined;
}

/** The runtime named `id`, its base chain applied; undefined for Claude Code itself or a name the table lacks. */
export function resolveRuntime(id: string | undefined, table: Record<string, RuntimeSpec> = RUNTIMES): Runtime | undefined {
  if (!id || id === 'claude' || !Object.hasOwn(table, id)) return undefined;
  const chain: RuntimeSpec[] = [];
  for (let name: string | undefined = id; name && Object.hasOwn(table, name) && chain.length < 8; name = table[name]!.base) chain.unshift(table[name]!);
  let fields: Partial<Record<Field, Paths>> = {};
  let output: Runtime['output'] = 'claude';
  let matchers = true;
  for (const spec of chain) {
    fields = { ...fields, ...spec.fields };
    if (spec.output !== undefined) output = spec.output;
    if (spec.matchers !== undefined) matchers = spec.matchers;
  }
  const own = table[id]!;
  return { id, fields, events: own.events ?? {}, tools: own.tools ?? {}, matchers, output };
}

/** The first of `paths` present in `value` (dotted keys, numeric steps into arrays). */
export function pick(value: unknown, paths: Paths | undefined): unknown {
  if (paths === undefined) return undefined;
  for (const p of typeof paths === 'string' ? [paths] : paths) {
    let cur: unknown = value;
    for (const step of p.split('.')) {
      if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, step)) {
        cur = undefined;
        break;
      }
      cur = (cur as Record<string, unknown>)[step];
    }
    if (cur !== undefined && cur !== null) return cur;
  }
  return undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function argumentsOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return record(JSON.parse(value)) ?? {};
    } catch {
      return {};
    }
  }
  return { ...record(value) };
}

function editsOf(args: Record<string, unknown>, spec: NonNullable<ToolSpec['edits']>): { old_string: string; new_string: string }[] {
  const edits: { old_string: string; new_string: string }[] = [];
  const push = (oldValue: unknown, newValue: unknown) => {
    if (typeof newValue === 'string') edits.push({ old_string: typeof oldValue === 'string' ? oldValue : '', new_string: newValue });
  };
  if (spec.from !== undefined) {
    const from = pick(args, spec.from);
    for (const item of Array.isArray(from) ? from : [from]) {
      const r = record(item);
      if (r) push(r[spec.old ?? 'old_string'], r[spec.new ?? 'new_string']);
    }
  }
  if (spec.numbered) for (let i = 1; i <= 100 && `${spec.numbered.new}${i}` in args; i++) push(args[`${spec.numbered.old}${i}`], args[`${spec.numbered.new}${i}`]);
  return edits;
}

/** The elements of a list argument as text (each one, or its `field`); a list sent as JSON text is read as one. */
function itemsOf(value: unknown, field: string | undefined): string[] {
  let list = value;
  if (typeof list === 'string' && /^\s*\[/.test(list)) {
    try {
      list = JSON.parse(list);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    const picked = field !== undefined && record(item) ? record(item)![field] : item;
    return picked === undefined || picked === null || typeof picked === 'object' ? [] : [String(picked)];
  });
}

/**
 * The files of an apply_patch envelope (Codex, Hermes' patch mode):
 * `*** Add File: p` becomes a Write of the added lines, `*** Update File: p`
 * an Edit of the removed and added lines; deletions carry no text.
 */
export function patchFiles(patch: string): { tool: 'Write' | 'Edit'; input: Record<string, unknown> }[] {
  const files: { tool: 'Write' | 'Edit'; path: string; removed: string[]; added: string[] }[] = [];
  let cur: (typeof files)[number] | undefined;
  for (const line of patch.split(/\r?\n/)) {
    const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (header) {
      cur = header[1] === 'Delete' ? undefined : { tool: header[1] === 'Add' ? 'Write' : 'Edit', path: header[2]!.trim(), removed: [], added: [] };
      if (cur) files.push(cur);
      continue;
    }
    if (!cur || line.startsWith('***')) continue;
    if (line.startsWith('+')) cur.added.push(line.slice(1));
    else if (line.startsWith('-')) cur.removed.push(line.slice(1));
  }
  return files.map((f) => ({
    tool: f.tool,
    input: f.tool === 'Write' ? { file_path: f.path, content: f.added.join('\n') } : { file_path: f.path, old_string: f.removed.join('\n'), new_string: f.added.join('\n') },
  }));
}

/** Whether a hook's matcher (a Claude Code tool pattern, anchored) names `tool`; no matcher names every tool. */
export function matches(matcher: string | undefined, tool: string): boolean {
  if (!matcher) return true;
  try {
    return new RegExp(`^(?:${matcher})$`).test(tool);
  } catch {
    return false;
  }
}

export interface Normalized {
  /** Claude Code inputs; empty when the call is not this hook's (its matcher does not name the tool). */
  inputs: HookInput[];
  /** Claude Code's event, when known. */
  event?: string;
  /** The event as the runtime names it, for the output. */
  runtimeEvent?: string;
}

/** The runtime's payload as Claude Code inputs for the hook `hookId`. */
export function normalize(raw: HookInput, runtime: Runtime | undefined, hookId: string, registry: readonly RegistryEntry[] = REGISTRY): Normalized {
  if (!runtime) return { inputs: [raw], ...(typeof raw.hook_event_name === 'string' ? { event: raw.hook_event_name, runtimeEvent: raw.hook_event_name } : {}) };
  const f = runtime.fields;
  const runtimeEvent = str(pick(raw, f.event));
  const mapped = runtimeEvent !== undefined && Object.hasOwn(runtime.events, runtimeEvent) ? runtime.events[runtimeEvent] : undefined;
  let event = typeof mapped === 'string' ? mapped : (mapped?.event ?? runtimeEvent);
  const runtimeTool = (typeof mapped === 'object' ? mapped.tool : undefined) ?? str(pick(raw, f.tool));
  const spec = runtimeTool !== undefined && Object.hasOwn(runtime.tools, runtimeTool) ? runtime.tools[runtimeTool] : undefined;
  const tool = spec?.tool ?? runtimeTool;
  const own = registry.filter((entry) => entry.id === hookId);
  if (event === undefined && tool !== undefined) {
    // A payload without an event name (Antigravity): the hook's registrations say which one names this tool.
    const events = [...new Set(own.filter((entry) => matches(entry.matcher, tool)).map((entry) => entry.event))];
    if (events.length === 1) event = events[0];
  }
  if (!runtime.matchers && event !== undefined && tool !== undefined) {
    // A runtime without matchers runs the hook for every tool: keep to the registry's own.
    const forEvent = own.filter((entry) => entry.event === event);
    if (forEvent.length > 0 && !forEvent.some((entry) => matches(entry.matcher, tool))) return { inputs: [], event, ...(runtimeEvent ? { runtimeEvent } : {}) };
  }
  const base: HookInput = { ...raw };
  const set = (key: string, value: unknown) => {
    if (value !== undefined) base[key] = value;
  };
  set('session_id', pick(raw, f.session));
  set('cwd', str(pick(raw, f.cwd)));
  set('transcript_path', pick(raw, f.transcript));
  set('prompt', pick(raw, f.prompt));
  set('hook_event_name', event);
  set('tool_response', pick(raw, f.response));
  let calls: { tool: string | undefined; input: Record<string, unknown> }[] = [];
  if (tool !== undefined) {
    const args = argumentsOf(pick(raw, f.input));
    const input: Record<string, unknown> = { ...args };
    for (const [key, paths] of Object.entries(spec?.input ?? {})) {
      const value = pick(args, paths);
      if (value !== undefined) input[key] = value;
    }
    if (spec?.edits) {
      const edits = editsOf(args, spec.edits);
      if (edits.length > 0) input['edits'] = edits;
    }
    calls = [{ tool, input }];
    const each = spec?.each ? itemsOf(pick(args, spec.each.from), spec.each.field) : [];
    if (each.length > 0) calls = each.map((value) => ({ tool, input: { ...input, [spec!.each!.key]: value } }));
    const patch = spec?.patch !== undefined ? str(pick(args, spec.patch)) : undefined;
    const files = patch ? patchFiles(patch) : [];
    if (files.length > 0) calls = files.map((file) => ({ tool: file.tool, input: file.input }));
  }
  const inputs = calls.length === 0 ? [base] : calls.map((call) => ({ ...base, tool_name: call.tool, tool_input: call.input }));
  return { inputs, ...(event !== undefined ? { event } : {}), ...(runtimeEvent !== undefined ? { runtimeEvent } : {}) };
}

type Decision = { kind: 'allow' } | { kind: 'context'; context: string } | { kind: 'deny'; reason: string; context?: string } | { kind: 'block'; reason: string; context?: string };

/** What a Claude Code answer decides: exit 2 or permissionDecision deny, decision block, additional context, or nothing. */
export function decisionOf(answer: HookAnswer): Decision {
  const out = record(answer.stdout) ?? {};
  const specific = record(out['hookSpecificOutput']) ?? {};
  const context = str(specific['additionalContext']);
  if (specific['permissionDecision'] === 'deny' || answer.exitCode === 2) {
    return { kind: 'deny', reason: String(specific['permissionDecisionReason'] ?? answer.stderr ?? 'GSD hook blocked the call'), ...(context ? { context } : {}) };
  }
  if (out['decision'] === 'block') return { kind: 'block', reason: String(out['reason'] ?? context ?? 'GSD hook blocked the result'), ...(context ? { context } : {}) };
  if (context) return { kind: 'context', context };
  return { kind: 'allow' };
}

/** Several answers (one per file of a patch) as one: a denial wins, then a block; contexts are joined. */
export function combine(answers: readonly HookAnswer[]): HookAnswer {
  if (answers.length === 0) return { exitCode: 0 };
  if (answers.length === 1) return answers[0]!;
  const decisions = answers.map(decisionOf);
  for (const kind of ['deny', 'block'] as const) {
    const i = decisions.findIndex((d) => d.kind === kind);
    if (i >= 0) return answers[i]!;
  }
  const withContext = decisions.map((d, i) => [d, answers[i]!] as const).filter(([d]) => d.kind === 'context');
  if (withContext.length === 0) return answers[0]!;
  const [, first] = withContext[0]!;
  const out = record(first.stdout) ?? {};
  const specific = record(out['hookSpecificOutput']) ?? {};
  const context = withContext.map(([d]) => (d as { context: string }).context).join('\n\n');
  return { ...first, stdout: { ...out, hookSpecificOutput: { ...specific, additionalContext: context } } };
}

const PLACEHOLDER = /\{(reason|context|event)\}/g;

/** A template with its placeholders filled; a key whose whole value is one placeholder with nothing to fill is left out. */
function fill(template: unknown, values: Record<string, string>): unknown {
  if (typeof template === 'string') return template.replace(PLACEHOLDER, (_, key: string) => values[key] ?? '');
  if (Array.isArray(template)) return template.map((item) => fill(item, values));
  if (template !== null && typeof template === 'object') {
    const unfilled = (v: unknown) => typeof v === 'string' && /^\{(?:reason|context|event)\}$/.test(v) && !values[v.slice(1, -1)];
    return Object.fromEntries(Object.entries(template).filter(([, v]) => !unfilled(v)).map(([k, v]) => [k, fill(v, values)]));
  }
  return template;
}

/** The hook's Claude Code answer in the runtime's own output. */
export function render(answer: HookAnswer, runtime: Runtime | undefined, event: string | undefined, runtimeEvent: string | undefined): HookAnswer {
  if (!runtime || runtime.output === 'claude' || answer.text !== undefined) return answer;
  const output = runtime.output;
  const decision = decisionOf(answer);
  const chain: Kind[] = decision.kind === 'block' ? ['block', 'context', 'allow'] : decision.kind === 'context' ? ['context', 'allow'] : [decision.kind];
  const lookup = (kind: Kind) => (event !== undefined && Object.hasOwn(output, event) ? output[event]![kind] : undefined) ?? output['*']?.[kind];
  const kind = chain.find((k) => lookup(k) !== undefined);
  const values = {
    reason: decision.kind === 'deny' || decision.kind === 'block' ? decision.reason : '',
    context: decision.kind === 'context' ? decision.context : decision.kind === 'block' ? (decision.context ?? decision.reason) : decision.kind === 'deny' ? (decision.context ?? '') : '',
    event: runtimeEvent ?? event ?? '',
  };
  const chosen = kind ? lookup(kind)! : {};
  return {
    ...(chosen.stdout !== undefined ? { stdout: fill(chosen.stdout, values) } : {}),
    ...(chosen.stderr !== undefined ? { stderr: String(fill(chosen.stderr, values)) } : {}),
    exitCode: chosen.exitCode ?? 0,
  };
}
