// gsd-statusline (status line). Prints "model │ phase/status │ dir │ context
// bar" and leaves the remaining-context figure in the temp folder for the
// context monitor. Context comes from the status line input when the
// runtime provides it, else from the token usage of the last assistant turn
// in the transcript. When the passive update check (check-update.ts) has
// cached a newer release for this install, a short marker with the update
// command comes first. Crash policy: allow (prints nothing).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configValue, projectRoot, runHook, safeSession, writeJsonFile, type HookAnswer, type HookInput } from './lib/hook.ts';
import { bridgeFile } from './lib/bridge.ts';
import { cachedUpdate, cacheFile, disabledBy, readCache, readRelease, updateMarker } from './lib/update.ts';

function lastUsage(transcript: string): number | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(transcript, 'r');
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, 256 * 1024);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n').reverse();
    for (const line of lines) {
      if (!line.includes('"usage"')) continue;
      try {
        const u = (JSON.parse(line) as { message?: { usage?: Record<string, unknown> } }).message?.usage;
        if (!u) continue;
        const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : 0);
        return n('input_tokens') + n('cache_read_input_tokens') + n('cache_creation_input_tokens') + n('output_tokens');
      } catch {
        continue;
      }
    }
    return null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

export function remainingPercent(input: HookInput, windowTokens: number): number | null {
  const cw = input.context_window as Record<string, unknown> | undefined;
  if (cw && typeof cw.remaining_percentage === 'number') return cw.remaining_percentage;
  if (cw && typeof cw.used_percentage === 'number') return 100 - cw.used_percentage;
  if (typeof input.transcript_path !== 'string') return null;
  const used = lastUsage(input.transcript_path);
  if (used === null) return null;
  return Math.max(0, Math.min(100, 100 - (used / windowTokens) * 100));
}

function stateSummary(root: string | null): string | null {
  if (!root) return null;
  try {
    const text = fs.readFileSync(path.join(root, '.planning', 'STATE.md'), 'utf8');
    const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
    const get = (k: string) => new RegExp(`^${k}:\\s*"?([^"\\n]*)"?\\s*$`, 'm').exec(fm)?.[1]?.trim();
    const phase = get('current_phase');
    const status = get('status');
    const name = get('current_phase_name');
    if (!phase && !status) return null;
    return [phase && phase !== 'null' ? `Phase ${phase}${name && name !== 'null' ? ` ${name}` : ''}` : null, status && status !== 'unknown' ? status.replace(/_/g, ' ') : null].filter(Boolean).join(' · ');
  } catch {
    return null;
  }
}

/** The update marker when this install's cached check found a newer release and the check is not turned off here. */
export function updateNotice(root: string | null, hooksDir: string | undefined, env: Record<string, string | undefined>): string | null {
  if (!hooksDir || disabledBy(env, root)) return null;
  const release = readRelease(hooksDir);
  const latest = release ? cachedUpdate(readCache(cacheFile(hooksDir, env)), release) : null;
  return release && latest ? updateMarker(latest, release) : null;
}

export function statusline(input: HookInput, opts: { tmp?: string; now?: number; hooksDir?: string; env?: Record<string, string | undefined> } = {}): HookAnswer {
  const model = (input.model as { display_name?: unknown } | undefined)?.display_name;
  const modelName = typeof model === 'string' ? model.replace(/\s*\((\d+[KM]) context\)/i, ' ($1)') : 'Claude';
  const ws = input.workspace as { current_dir?: unknown } | undefined;
  const dir = typeof ws?.current_dir === 'string' ? ws.current_dir : typeof input.cwd === 'string' ? input.cwd : process.cwd();
  const root = projectRoot(dir);
  const cw = configValue(root, 'context_window');
  const windowTokens = typeof cw === 'number' && cw > 0 ? cw : 200_000;
  const remaining = remainingPercent(input, windowTokens);
  const session = safeSession(input.session_id);
  if (session && remaining !== null) {
    try {
      writeJsonFile(bridgeFile(session, opts.tmp ?? os.tmpdir()), { session_id: session, remaining_percentage: remaining, timestamp: opts.now ?? Date.now() });
    } catch {
      // the bar still prints
    }
  }
  const parts = [updateNotice(root, opts.hooksDir, opts.env ?? process.env), modelName, stateSummary(root), path.basename(dir)];
  if (remaining !== null) {
    const used = Math.round(100 - remaining);
    const filled = Math.round(used / 10);
    parts.push(`${'█'.repeat(filled)}${'░'.repeat(10 - filled)} ${used}%`);
  }
  return { text: parts.filter(Boolean).join(' │ ') };
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-statusline', 'allow', (input) => statusline(input, { hooksDir: path.dirname(__filename) }));
