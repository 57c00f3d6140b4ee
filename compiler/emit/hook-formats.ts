// How each runtime registers hooks. The registry is data (hooks/hooks.json,
// in Claude Code's events and tool names); a target picks one of these
// formats and maps events and matchers. Each format is one small function.
import { stringify as stringifyToml } from 'smol-toml';
import { Document } from 'yaml';
import type { HookEntry } from '../load/load-hooks.ts';
import type { HookSurface, ScopeId, Target, ToolMap } from '../targets/target-types.ts';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { mapTools } from './render-frontmatter.ts';
import { CLINE_DISPATCHER, clineHookScript } from './hook-format-cline.ts';
import type { RuntimeHook } from './runtime-hook.ts';
import type { MergeFormat } from '../../source/runtime/install/bundle-types.ts';

/** Where a registration file lands, for a format whose file refers to a hook script: `scriptFrom(name)` is the script's path relative to the file's folder. */
export interface HookPlace {
  scriptFrom: (name: string) => string;
}

/**
 * One way a runtime registers hooks: how the registration is written, whether
 * its file is shared with the user (merged by the installer in that format)
 * or GSD's own (null: Copilot's hooks/gsd.json, Cline's dispatchers), and
 * whether it is itself a program the runtime runs. A format reads the
 * runtime's vocabulary from the hook surface, never from constants here.
 */
export interface HookFormat {
  render: (hooks: readonly RuntimeHook[], surface: HookSurface, place: HookPlace) => string;
  merge: MergeFormat | null;
  executable?: true;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const MERGED_HEADER = '# Entries GSD adds to this file. The installer merges them into yours and removes exactly them on uninstall.\n';

/** Events in first-registration order, each with its hooks in registry order. */
function byEvent(hooks: readonly RuntimeHook[]): Map<string, RuntimeHook[]> {
  const events = new Map<string, RuntimeHook[]>();
  for (const hook of hooks) events.set(hook.event, [...(events.get(hook.event) ?? []), hook]);
  return events;
}

/** Each event's hooks, written by `entry`. */
const perEvent = (hooks: readonly RuntimeHook[], entry: (hook: RuntimeHook, event: string) => unknown) =>
  Object.fromEntries([...byEvent(hooks)].map(([event, list]) => [event, list.map((hook) => entry(hook, event))]));

/** Claude Code's settings.json shape, also read by Codex's hooks.json and several others. */
function settingsJson(hooks: readonly RuntimeHook[]): string {
  // The status line is a setting of its own, not a hook event; a target maps StatusLine to `statusLine` for it.
  const statusLine = hooks.find((hook) => hook.event === 'statusLine');
  const events = hooks.filter((hook) => hook.event !== 'statusLine');
  return json({
    ...(events.length > 0
      ? { hooks: perEvent(events, (hook) => ({ ...(hook.matcher ? { matcher: hook.matcher } : {}), hooks: [{ type: 'command', command: hook.command, ...(hook.timeout ? { timeout: hook.timeout } : {}) }] })) }
      : {}),
    ...(statusLine ? { statusLine: { type: 'command', command: statusLine.command } } : {}),
  });
}

export const HOOK_FORMATS: Readonly<Record<string, HookFormat>> = {
  'settings-json': { merge: 'json', render: settingsJson },
  /**
   * Cursor's hooks.json: version 1, a flat list of commands per event, each
   * with its own matcher and timeout; a hook whose crash policy is `deny` is
   * marked failClosed, so Cursor blocks the call when the hook cannot run.
   */
  'cursor-json': {
    merge: 'json',
    render: (hooks) =>
      json({
        version: 1,
        hooks: perEvent(hooks, (hook) => ({
          command: hook.command,
          ...(hook.matcher ? { matcher: hook.matcher } : {}),
          ...(hook.timeout ? { timeout: hook.timeout } : {}),
          ...(hook.crashPolicy === 'deny' ? { failClosed: true } : {}),
        })),
      }),
  },
  /**
   * Windsurf's hooks.json: a flat list of commands per event, no version.
   * Cascade names tool events by action (pre_write_code, pre_run_command…),
   * so a target maps a tool event to a pattern such as `pre_{action}`; the
   * hook is listed under each action its matcher names, or under every one
   * of the surface's `actions` when it has no matcher.
   */
  'windsurf-json': {
    merge: 'json',
    render: (hooks, surface) => {
      const expanded = hooks.flatMap((hook) =>
        hook.event.includes('{action}') ? (hook.matcher?.split('|') ?? surface.actions ?? []).map((action) => ({ ...hook, event: hook.event.replace('{action}', action) })) : [hook],
      );
      return json({ hooks: perEvent(expanded, (hook) => ({ command: hook.command, show_output: false })) });
    },
  },
  /**
   * Antigravity's hooks.json: top-level keys are hook names (here the GSD hook
   * id), each holding its events; the surface's `matcherEvents` list matcher
   * groups, the other events list handlers directly.
   */
  'antigravity-json': {
    merge: 'json',
    render: (hooks, surface) => {
      const grouped = new Set(surface.matcherEvents ?? []);
      const named: Record<string, Record<string, unknown[]>> = {};
      for (const hook of hooks) {
        const handler = { type: 'command', command: hook.command, ...(hook.timeout ? { timeout: hook.timeout } : {}) };
        const events = (named[hook.id] ??= {});
        (events[hook.event] ??= []).push(grouped.has(hook.event) ? { matcher: hook.matcher ?? '*', hooks: [handler] } : handler);
      }
      return json(named);
    },
  },
  /** GitHub Copilot's hook file: version 1, bash commands with a timeout in seconds. */
  'copilot-json': {
    merge: null,
    render: (hooks) => json({ version: 1, hooks: perEvent(hooks, (hook) => ({ type: 'command', bash: hook.command, timeoutSec: hook.timeout ?? 10 })) }),
  },
  /** Kimi's config.toml: one [[hooks]] table per hook. */
  'kimi-toml': {
    merge: 'toml',
    render: (hooks) =>
      `${MERGED_HEADER}${stringifyToml({ hooks: hooks.map((hook) => ({ event: hook.event, ...(hook.matcher ? { matcher: hook.matcher } : {}), command: hook.command, timeout: hook.timeout ?? 10 })) })}\n`,
  },
  /**
   * Hermes Agent's shell hooks: a `hooks:` block in the profile's config.yaml,
   * one list of {matcher, command, timeout} per event; a hook that must block
   * when it cannot run is marked fail_closed on the surface's `failClosedEvents`.
   */
  'hermes-yaml': {
    merge: 'yaml',
    render: (hooks, surface) => {
      const failClosed = new Set(surface.failClosedEvents ?? []);
      const block = perEvent(hooks, (hook, event) => ({
        ...(hook.matcher ? { matcher: hook.matcher } : {}),
        command: hook.command,
        ...(hook.timeout ? { timeout: hook.timeout } : {}),
        ...(hook.crashPolicy === 'deny' && failClosed.has(event) ? { fail_closed: true } : {}),
      }));
      return `${MERGED_HEADER}${new Document({ hooks: block }).toString({ lineWidth: 0 })}`;
    },
  },
  /** Cline: per event file, an executable launcher that hands the event's hooks to GSD's bundled Cline dispatcher (compiler/emit/hook-format-cline.ts). */
  'cline-script': { merge: null, executable: true, render: (hooks, _surface, place) => clineHookScript(hooks, place.scriptFrom(CLINE_DISPATCHER)) },
};

/** The format a target names; the loader has checked the name (load-targets.ts). */
export function hookFormat(name: string): HookFormat {
  const format = HOOK_FORMATS[name];
  if (!format) throw new Error(`internal: no hook format "${name}"`);
  return format;
}

/**
 * The registration files of a hook surface: one file at its path, or, when the
 * path names `{event}`, one file per event holding that event's hooks.
 */
export function hookFiles(pathPattern: string, hooks: readonly RuntimeHook[]): [string, RuntimeHook[]][] {
  if (hooks.length === 0) return [];
  if (!pathPattern.includes('{event}')) return [[pathPattern, [...hooks]]];
  return [...byEvent(hooks)].map(([event, list]) => [pathPattern.replaceAll('{event}', event), list]);
}

/** The registry as this runtime sees it; hooks on events it lacks, or opt-in ones, are left out. */
/**
 * A capability's hook must run where it is built for: a target without a hook
 * surface, without the event, or without a tool of the matcher is an error at
 * the hook's entry in capability.json (the corpus's own hooks are skipped
 * there instead: the registry is written for every runtime).
 */
export function capabilityHookFindings(registry: readonly HookEntry[], target: Target, scopeId: ScopeId): Diagnostic[] {
  const findings: Diagnostic[] = [];
  const surface = target.definition.scopes[scopeId]?.hooks;
  const id = target.definition.id;
  for (const hook of registry) {
    if (!hook.capability) continue;
    const at = (message: string) => findings.push(diagnostic(hook.capability!.file, hook.capability!.line, hook.capability!.column, 'capability-hook', message));
    if (!surface) {
      at(`expected ${id} (${scopeId}) to run hooks for capability ${hook.capability.id}'s ${hook.id}, found no hook support there; build that capability for other targets (--target)`);
      continue;
    }
    const event = surface.events && Object.hasOwn(surface.events, hook.event) ? surface.events[hook.event] : hook.event;
    if (!event) at(`expected ${id} (${scopeId}) to have event ${hook.event} for hook ${hook.id}, found none`);
    const toolMap = surface.matcherToolMap ? target.definition.toolMaps?.[surface.matcherToolMap] : undefined;
    const missing = (hook.matcher?.split('|') ?? []).filter((tool) => mapTools([tool], toolMap).length === 0);
    if (missing.length > 0) at(`expected ${id} (${scopeId}) to have tool${missing.length > 1 ? 's' : ''} ${missing.join(', ')} for hook ${hook.id}, found none`);
  }
  return findings;
}

export function runtimeHooks(registry: readonly HookEntry[], surface: HookSurface, toolMaps: Record<string, ToolMap>, scriptName: (hook: HookEntry) => string): RuntimeHook[] {
  const hooks: RuntimeHook[] = [];
  for (const hook of registry) {
    if (hook.optIn) continue;
    const event = surface.events && Object.hasOwn(surface.events, hook.event) ? surface.events[hook.event] : hook.event;
    if (!event) continue;
    const toolMap = surface.matcherToolMap ? toolMaps[surface.matcherToolMap] : undefined;
    const matcher = hook.matcher === undefined ? undefined : mapTools(hook.matcher.split('|'), toolMap).join('|') || undefined;
    if (hook.matcher !== undefined && matcher === undefined) continue;
    // The registry counts seconds; a runtime that reads milliseconds (Auggie) would otherwise kill every hook after a few ms.
    const timeout = hook.timeout && surface.timeoutUnit === 'milliseconds' ? hook.timeout * 1000 : hook.timeout;
    hooks.push({ id: hook.id, event, ...(matcher ? { matcher } : {}), ...(timeout ? { timeout } : {}), ...(hook.crashPolicy ? { crashPolicy: hook.crashPolicy } : {}), command: surface.command.replaceAll('{file}', scriptName(hook)) });
  }
  return hooks;
}
