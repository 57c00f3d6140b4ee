// gsd-read-guard. PostToolUse(Read) records each file the session read;
// PreToolUse(Edit|Write|MultiEdit) advises when an existing file is changed
// without having been read in this session. Advisory only. State lives in
// one small JSON file per session in the temp folder. Crash policy: allow.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { advise, allow, readJsonFile, runHook, safeSession, writeJsonFile, type HookAnswer, type HookInput } from './lib/hook.ts';

const MAX_TRACKED = 2000;

export function stateFile(session: string, tmp = os.tmpdir()): string {
  return path.join(tmp, `gsd-read-guard-${session}.json`);
}

export function readGuard(input: HookInput, tmp = os.tmpdir()): HookAnswer {
  const session = safeSession(input.session_id);
  const t = input.tool_input ?? {};
  const file = typeof t.file_path === 'string' ? path.resolve(typeof input.cwd === 'string' ? input.cwd : process.cwd(), t.file_path) : null;
  if (!session || !file) return allow();
  const store = stateFile(session, tmp);
  const seen = new Set<string>(((readJsonFile(store) as { read?: string[] } | null)?.read ?? []).filter((x) => typeof x === 'string'));
  if (input.hook_event_name === 'PostToolUse' || input.tool_name === 'Read') {
    if (!seen.has(file)) {
      seen.add(file);
      writeJsonFile(store, { read: [...seen].slice(-MAX_TRACKED) });
    }
    return allow();
  }
  if (!fs.existsSync(file) || seen.has(file)) return allow();
  return advise(
    'PreToolUse',
    `GSD read guard: ${path.basename(file)} exists but was not read in this session. Read it before changing it, so the edit keeps what is already there.`,
    { code: 'READ_BEFORE_EDIT', file },
  );
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-read-guard', 'allow', (input) => readGuard(input));
