// How each runtime registers hooks. The registry is data (hooks/hooks.json,
// in Claude Code's events and tool names); a target picks one of these
// formats and maps events and matchers. Each format is one small function.
import { stringify as stringifyToml } from 'smol-toml';
import { Document } from 'yaml';
import type { HookEntry } from '../load/load-hooks.ts';
import type { HookSurface, ToolMap } from '../targets/target-types.ts';
import { mapTools } from './render-frontmatter.ts';
import { clineHookScript } from './hook-format-cline.ts';
import type { MergeFormat } from '../../source/runtime/install/landing.ts';

/** A hook as one runtime sees it: its event and matcher mapped, its command line built. */
export interface RuntimeHook {
  id: string;
  event: string;
  matcher?: string;
  timeout?: number;
  /** What the hook wants when it cannot run: "deny" blocks the tool call. */
  crashPolicy?: 'allow' | 'deny';
  command: string;
}

type HookFormat = (hooks: readonly RuntimeHook[]) => string;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Events in first-registration order, each with its hooks in registry order. */
function byEvent(hooks: readonly RuntimeHook[]): Map<string, RuntimeHook[]> {
  const events = new Map<string, RuntimeHook[]>();
  for (const hook of hooks) events.set(hook.event, [...(events.get(hook.event) ?? []), hook]);
  return events;
}

/** Cascade's tool actions, for a tool event registered without a matcher. */
const WINDSURF_ACTIONS = ['read_code', 'write_code', 'run_command', 'mcp_tool_use'];

/** Antigravity events whose entries are matcher groups rather than bare handlers. */
const ANTIGRAVITY_TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse']);

export const HOOK_FORMATS: Record<string, HookFormat> = {
  /** Claude Code's settings.json shape, also read by Codex's hooks.json and several others. */
  'settings-json': (hooks) => {
    // The status line is a setting of its own, not a hook event; a target maps StatusLine to `statusLine` for it.
    const statusLine = hooks.find((hook) => hook.event === 'statusLine');
    const events = hooks.filter((hook) => hook.event !== 'statusLine');
    return json({
      ...(events.length > 0
        ? {
            hooks: Object.fromEntries(
              [...byEvent(events)].map(([event, list]) => [
                event,
                list.map((hook) => ({
                  ...(hook.matcher ? { matcher: hook.matcher } : {}),
                  hooks: [{ type: 'command', command: hook.command, ...(hook.timeout ? { timeout: hook.timeout } : {}) }],
                })),
              ]),
            ),
          }
        : {}),
      ...(statusLine ? { statusLine: { type: 'command', command: statusLine.command } } : {}),
    });
  },
  /**
   * Cursor's hooks.json: version 1, a flat list of commands per event, each
   * with its own matcher and timeout; a hook whose crash policy is `deny` is
   * marked failClosed, so Cursor blocks the call when the hook cannot run.
   */
  'cursor-json': (hooks) =>
    json({
      version: 1,
      hooks: Object.fromEntries(
        [...byEvent(hooks)].map(([event, list]) => [
          event,
          list.map((hook) => ({
            command: hook.command,
            ...(hook.matcher ? { matcher: hook.matcher } : {}),
            ...(hook.timeout ? { timeout: hook.timeout } : {}),
            ...(hook.crashPolicy === 'deny' ? { failClosed: true } : {}),
          })),
        ]),
      ),
    }),
  /**
   * Windsurf's hooks.json: a flat list of commands per event, no version.
   * Cascade names tool events by action (pre_write_code, pre_run_command…),
   * so a target maps a tool event to a pattern such as `pre_{action}` and its
   * matcher tool map names the actions; the hook is listed under each one.
   */
  'windsurf-json': (hooks) => {
    const expanded = hooks.flatMap((hook) =>
      hook.event.includes('{action}')
        ? (hook.matcher?.split('|') ?? WINDSURF_ACTIONS).map((action) => ({ ...hook, event: hook.event.replace('{action}', action) }))
        : [hook],
    );
    return json({ hooks: Object.fromEntries([...byEvent(expanded)].map(([event, list]) => [event, list.map((hook) => ({ command: hook.command, show_output: false }))])) });
  },
  /**
   * Antigravity's hooks.json: top-level keys are hook names (here the GSD hook
   * id), each holding its events; tool events list matcher groups, the other
   * events list handlers directly.
   */
  'antigravity-json': (hooks) => {
    const named: Record<string, Record<string, unknown[]>> = {};
    for (const hook of hooks) {
      const handler = { type: 'command', command: hook.command, ...(hook.timeout ? { timeout: hook.timeout } : {}) };
      const events = (named[hook.id] ??= {});
      (events[hook.event] ??= []).push(ANTIGRAVITY_TOOL_EVENTS.has(hook.event) ? { matcher: hook.matcher ?? '*', hooks: [handler] } : handler);
    }
    return json(named);
  },
  /** GitHub Copilot's hook file: version 1, bash commands with a timeout in seconds. */
  'copilot-json': (hooks) =>
    json({
      version: 1,
      hooks: Object.fromEntries(
        [...byEvent(hooks)].map(([event, list]) => [event, list.map((hook) => ({ type: 'command', bash: hook.command, timeoutSec: hook.timeout ?? 10 }))]),
      ),
    }),
  /** Kimi's config.toml: one [[hooks]] table per hook. */
  'kimi-toml': (hooks) =>
    `# Entries GSD adds to this file. The installer merges them into yours and removes exactly them on uninstall.\n${stringifyToml({
      hooks: hooks.map((hook) => ({ event: hook.event, ...(hook.matcher ? { matcher: hook.matcher } : {}), command: hook.command, timeout: hook.timeout ?? 10 })),
    })}\n`,
  /**
   * Hermes Agent's shell hooks: a `hooks:` block in the profile's config.yaml,
   * one list of {matcher, command, timeout} per event; a pre_tool_call hook
   * that must block when it cannot run is marked fail_closed.
   */
  'hermes-yaml': (hooks) =>
    `# Entries GSD adds to this file. The installer merges them into yours and removes exactly them on uninstall.\n${new Document({
      hooks: Object.fromEntries(
        [...byEvent(hooks)].map(([event, list]) => [
          event,
          list.map((hook) => ({
            ...(hook.matcher ? { matcher: hook.matcher } : {}),
            command: hook.command,
            ...(hook.timeout ? { timeout: hook.timeout } : {}),
            ...(hook.crashPolicy === 'deny' && event === 'pre_tool_call' ? { fail_closed: true } : {}),
          })),
        ]),
      ),
    }).toString({ lineWidth: 0 })}`,
  /** Cline: an executable Node dispatcher per event file (compiler/emit/hook-format-cline.ts). */
  'cline-script': clineHookScript,
};

/**
 * Whether a format's registration file is shared with the user (merged into
 * theirs by the installer, in this format) or owned by GSD (null: its own
 * file, such as Copilot's hooks/gsd.json or Cline's per-event dispatchers).
 */
export const HOOK_MERGE_FORMATS: Record<string, MergeFormat | null> = {
  'settings-json': 'json',
  'cursor-json': 'json',
  'windsurf-json': 'json',
  'antigravity-json': 'json',
  'copilot-json': null,
  'kimi-toml': 'toml',
  'hermes-yaml': 'yaml',
  'cline-script': null,
};

/** Formats whose registration file is itself a program the runtime runs. */
export const EXECUTABLE_HOOK_FORMATS: ReadonlySet<string> = new Set(['cline-script']);

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
