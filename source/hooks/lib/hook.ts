// The frame every GSD hook runs in: read the event JSON from stdin with a
// timeout and a size cap, translate it from the runtime named by
// `--runtime <id>` (lib/runtime.ts, runtimes.json) into Claude Code's input,
// run the hook, print its answer in the runtime's output format, and on any
// crash apply the hook's declared policy: "allow" lets the tool call through
// silently (exit 0), "deny" blocks it (exit 2 with the reason on stderr, or
// the runtime's own way of saying no). The id and the policy are required
// arguments, so every hook states its stance in code.
import fs from 'node:fs';
import path from 'node:path';
import { combine, normalize, render, resolveRuntime, runtimeArg, type Runtime } from './runtime.ts';

export type CrashPolicy = 'allow' | 'deny';

export interface HookInput {
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  [key: string]: unknown;
}

/** What a hook returns: JSON for stdout (or nothing), and an exit code. */
export interface HookAnswer {
  stdout?: unknown;
  /** Plain text for stdout (the status line). */
  text?: string;
  stderr?: string;
  exitCode?: number;
}

const MAX_STDIN = 4 * 1024 * 1024;

export function readStdin(timeoutMs = 3000, stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(finish, timeoutMs);
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_STDIN) return finish();
      chunks.push(c);
    });
    stream.on('end', finish);
    stream.on('error', finish);
  });
}

export function parseInput(text: string): HookInput {
  if (text.trim() === '') return {};
  const value = JSON.parse(text, (key, v) => (key === '__proto__' || key === 'constructor' ? undefined : v)) as unknown;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as HookInput) : {};
}

/**
 * One call of a hook: the runtime's payload normalized to Claude Code inputs
 * (none when the call is not this hook's tool, several for a multi-file
 * patch), the hook run on each, the answers combined and rendered for the
 * runtime. A crash anywhere gives the policy's answer, rendered the same way.
 */
export async function answerHook(
  id: string,
  policy: CrashPolicy,
  hook: (input: HookInput) => HookAnswer | Promise<HookAnswer>,
  text: string,
  runtime: Runtime | undefined,
): Promise<HookAnswer> {
  let event: string | undefined;
  let runtimeEvent: string | undefined;
  let answer: HookAnswer;
  try {
    const normalized = normalize(parseInput(text), runtime, id);
    ({ event, runtimeEvent } = normalized);
    const answers: HookAnswer[] = [];
    for (const input of normalized.inputs) answers.push(await hook(input));
    answer = combine(answers);
  } catch (error) {
    answer =
      policy === 'deny'
        ? { exitCode: 2, stderr: `GSD hook failed and its policy is to block: ${(error as Error)?.message ?? error}` }
        : { exitCode: 0 };
  }
  try {
    return render(answer, runtime, event, runtimeEvent);
  } catch {
    return answer;
  }
}

/** Run a hook as a process: stdin → answer → stdout/exit code, in the protocol of the runtime its command names. */
export async function runHook(id: string, policy: CrashPolicy, hook: (input: HookInput) => HookAnswer | Promise<HookAnswer>): Promise<void> {
  const answer = await answerHook(id, policy, hook, await readStdin(), resolveRuntime(runtimeArg(process.argv.slice(2))));
  if (answer.text !== undefined) process.stdout.write(answer.text);
  else if (answer.stdout !== undefined) process.stdout.write(`${JSON.stringify(answer.stdout)}\n`);
  if (answer.stderr) process.stderr.write(`${answer.stderr}\n`);
  process.exitCode = answer.exitCode ?? 0;
}

export const allow = (): HookAnswer => ({ exitCode: 0 });

export function advise(event: string, context: string, extra: Record<string, unknown> = {}): HookAnswer {
  return { stdout: { hookSpecificOutput: { hookEventName: event, additionalContext: context, ...extra } } };
}

export function denyTool(reason: string, extra: Record<string, unknown> = {}): HookAnswer {
  return {
    stdout: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason, ...extra } },
    stderr: reason,
    exitCode: 2,
  };
}

/** The nearest ancestor of `start` with a `.planning/` directory, or null. */
export function projectRoot(start: string | undefined): string | null {
  let dir = path.resolve(start ?? process.cwd());
  for (let i = 0; i < 12; i++) {
    try {
      if (fs.statSync(path.join(dir, '.planning')).isDirectory()) return dir;
    } catch {
      // keep walking
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
  return null;
}

/** A key of .planning/config.json by dotted path, or undefined (never throws). */
export function configValue(root: string | null, key: string): unknown {
  if (!root) return undefined;
  try {
    let cur: unknown = JSON.parse(fs.readFileSync(path.join(root, '.planning', 'config.json'), 'utf8'));
    for (const part of key.split('.')) {
      if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    return cur;
  } catch {
    return undefined;
  }
}

/** Session ids become file names: keep them to a safe alphabet. */
export function safeSession(id: unknown): string | null {
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : null;
}

/** Every string inside a tool response, joined, capped. */
export function textOf(value: unknown, cap = 256 * 1024): string {
  const parts: string[] = [];
  let size = 0;
  const walk = (v: unknown, depth: number) => {
    if (size > cap || depth > 8) return;
    if (typeof v === 'string') {
      parts.push(v);
      size += v.length;
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, depth + 1));
    else if (v && typeof v === 'object') Object.values(v).forEach((x) => walk(x, depth + 1));
  };
  walk(value, 0);
  return parts.join('\n').slice(0, cap);
}

/**
 * Write a small JSON state file atomically: a fresh temp file created with
 * O_EXCL (so a planted file or symlink at that name is never followed), then
 * rename, which replaces the name itself.
 */
export function writeJsonFile(file: string, data: unknown): void {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  fs.writeFileSync(temp, JSON.stringify(data), { flag: 'wx', mode: 0o600 });
  fs.renameSync(temp, file);
}

export function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
