// gsd-context-monitor (PostToolUse). Reads the remaining-context figure the
// status line leaves in the temp folder and warns the agent when it falls to
// the warning threshold (default 35%) and again, as critical, at the critical
// threshold (default 25%); both come from .planning/config.json
// hooks.context_warning_threshold / hooks.context_critical_threshold.
// Repeated warnings at one level are debounced (5 tool uses apart); a rise in
// severity is reported at once. Figures older than 60 s are ignored.
// Crash policy: allow.
import os from 'node:os';
import path from 'node:path';
import { bridgeFile } from './lib/bridge.ts';
import { advise, allow, configValue, projectRoot, readJsonFile, runHook, safeSession, writeJsonFile, type HookAnswer, type HookInput } from './lib/hook.ts';

export const DEBOUNCE_CALLS = 5;
export const STALE_MS = 60_000;
export { bridgeFile };

function debounceFile(session: string, tmp: string): string {
  return path.join(tmp, `claude-ctx-${session}-warned.json`);
}

function threshold(v: unknown, fallback: number): number {
  return typeof v === 'number' && v > 0 && v < 100 ? v : fallback;
}

type Level = 'none' | 'warning' | 'critical';
const RANK: Record<Level, number> = { none: 0, warning: 1, critical: 2 };

export function contextMonitor(input: HookInput, opts: { tmp?: string; now?: number } = {}): HookAnswer {
  const tmp = opts.tmp ?? os.tmpdir();
  const now = opts.now ?? Date.now();
  const session = safeSession(input.session_id);
  if (!session) return allow();
  const root = projectRoot(typeof input.cwd === 'string' ? input.cwd : undefined);
  if (configValue(root, 'hooks.context_warnings') === false) return allow();
  const bridge = readJsonFile(bridgeFile(session, tmp)) as { remaining_percentage?: unknown; timestamp?: unknown } | null;
  const remaining = bridge?.remaining_percentage;
  const stamp = bridge?.timestamp;
  if (typeof remaining !== 'number' || typeof stamp !== 'number' || now - stamp > STALE_MS) return allow();
  let warn = threshold(configValue(root, 'hooks.context_warning_threshold'), 35);
  let critical = threshold(configValue(root, 'hooks.context_critical_threshold'), 25);
  if (critical > warn) [warn, critical] = [critical, warn];
  const level: Level = remaining <= critical ? 'critical' : remaining <= warn ? 'warning' : 'none';
  const stateFile = debounceFile(session, tmp);
  const state = (readJsonFile(stateFile) as { level?: Level; calls?: number } | null) ?? {};
  const last: Level = state.level && state.level in RANK ? state.level : 'none';
  const calls = typeof state.calls === 'number' ? state.calls + 1 : 1;
  if (level === 'none') {
    if (last !== 'none') writeJsonFile(stateFile, { level: 'none', calls: 0 });
    return allow();
  }
  const escalated = RANK[level] > RANK[last];
  if (!escalated && calls < DEBOUNCE_CALLS) {
    writeJsonFile(stateFile, { level: RANK[level] < RANK[last] ? level : last, calls });
    return allow();
  }
  writeJsonFile(stateFile, { level, calls: 0 });
  const pct = Math.round(remaining);
  const text =
    level === 'critical'
      ? `CONTEXT CRITICAL: about ${pct}% of the context window is left. Finish the current step, record progress (gsd-tools state record-session), and tell the user the context is nearly exhausted; do not start new work.`
      : `CONTEXT WARNING: about ${pct}% of the context window is left. Avoid starting new complex work; wrap up the current task and keep STATE.md current.`;
  return advise('PostToolUse', text, { level, remaining_percentage: pct });
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-context-monitor', 'allow', (input) => contextMonitor(input));
