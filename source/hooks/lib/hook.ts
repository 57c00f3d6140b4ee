// The frame every GSD hook runs in: read the event JSON from stdin with a
// hard deadline and a size cap, translate it from the runtime named by
// `--runtime <id>` (lib/runtime.ts, targets/<id>/hook-payload.json) into Claude Code's input,
// run the hook, print its answer in the runtime's output format, and on any
// crash apply the hook's declared policy: "allow" lets the tool call through
// silently (exit 0), "deny" blocks it (exit 2 with the reason on stderr, or
// the runtime's own way of saying no). The id and the policy are required
// arguments, so every hook states its stance in code.
import fs from 'node:fs';
import path from 'node:path';
import type { CrashPolicy, HookAnswer, HookInput } from './hook-types.ts';
import { combine, normalize, REGISTRY, render, resolveRuntime, runtimeArg, type Runtime } from './runtime.ts';

export type { CrashPolicy, HookAnswer, HookInput } from './hook-types.ts';

const MAX_STDIN = 4 * 1024 * 1024;
/** Never wait longer than this for the payload, whatever the hook's timeout. */
const MAX_STDIN_WAIT_MS = 3000;

/** What came on stdin, and whether the stream ended (a payload cut short by the deadline or the size cap is not complete). */
export interface StdinRead {
  text: string;
  complete: boolean;
}

/**
 * Reads the payload with a hard deadline. The deadline holds even when the
 * writer keeps the pipe open and sends nothing, or trickles bytes forever:
 * once it passes (or the size cap is reached) the stream is destroyed, so it
 * can no longer keep the process alive either.
 */
export function readStdin(deadlineMs = MAX_STDIN_WAIT_MS, stream: NodeJS.ReadableStream = process.stdin): Promise<StdinRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (complete: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.removeAllListeners('end');
      stream.removeAllListeners('error');
      // A no-op error listener: a destroyed pipe may still report EPIPE/EOF.
      stream.on('error', () => undefined);
      // Whatever else the writer sends is not read: an open pipe must not keep the process alive.
      stream.pause();
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      resolve({ text: Buffer.concat(chunks).toString('utf8'), complete });
    };
    const timer = setTimeout(() => finish(false), deadlineMs);
    // A runtime that leaves the pipe open after a whole payload should not
    // cost the full deadline: a chunk ending in "}" may close the object, so
    // try to parse what is here (a few times at most, to stay linear).
    let tries = 0;
    stream.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_STDIN) return finish(false);
      chunks.push(c);
      if (tries < 8 && endsObject(c)) {
        tries += 1;
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          finish(true);
        } catch {
          // not whole yet
        }
      }
    });
    stream.on('end', () => finish(true));
    stream.on('error', () => finish(false));
  });
}

function endsObject(chunk: Buffer): boolean {
  for (let i = chunk.length - 1; i >= 0; i--) {
    const byte = chunk[i]!;
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7d;
  }
  return false;
}

export function parseInput(text: string): HookInput {
  if (text.trim() === '') return {};
  const value = JSON.parse(text, (key, v) => (key === '__proto__' || key === 'constructor' ? undefined : v)) as unknown;
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as HookInput) : {};
}

/** The answer a hook's crash policy gives, in Claude Code's terms (render() turns it into the runtime's). */
export function policyAnswer(policy: CrashPolicy, why: string): HookAnswer {
  return policy === 'deny' ? { exitCode: 2, stderr: `GSD hook failed and its policy is to block: ${why}` } : { exitCode: 0 };
}

/**
 * One call of a hook: the runtime's payload normalized to Claude Code inputs
 * (none when the call is not this hook's tool, several for a multi-file
 * patch), the hook run on each, the answers combined and rendered for the
 * runtime. A crash anywhere gives the policy's answer, rendered the same way,
 * and so does a payload that never finished arriving (`stdin.complete`
 * false) unless what did arrive is already a whole JSON object.
 */
export async function answerHook(
  id: string,
  policy: CrashPolicy,
  hook: (input: HookInput) => HookAnswer | Promise<HookAnswer>,
  text: string,
  runtime: Runtime | undefined,
  stdin: Pick<StdinRead, 'complete'> = { complete: true },
): Promise<HookAnswer> {
  let event: string | undefined;
  let runtimeEvent: string | undefined;
  let answer: HookAnswer;
  try {
    if (!stdin.complete && text.trim() === '') throw new Error('no payload arrived on stdin before the deadline');
    const normalized = normalize(parseInput(text), runtime, id);
    ({ event, runtimeEvent } = normalized);
    const answers: HookAnswer[] = [];
    for (const input of normalized.inputs) answers.push(await hook(input));
    answer = combine(answers);
  } catch (error) {
    answer = policyAnswer(policy, String((error as Error)?.message ?? error));
  }
  try {
    return render(answer, runtime, event, runtimeEvent);
  } catch {
    return answer;
  }
}

/** The shortest timeout (seconds) the registry gives hook `id`, or null for a hook it does not list. */
export function registeredTimeout(id: string, registry: readonly { id: string; timeout?: number }[] = REGISTRY): number | null {
  const timeouts = registry.filter((entry) => entry.id === id && typeof entry.timeout === 'number').map((entry) => entry.timeout!);
  return timeouts.length > 0 ? Math.min(...timeouts) : null;
}

/**
 * How long a hook process may take, from its registered timeout: stdin gets
 * at most a third of it (and never more than 3 s); the whole answer must be
 * out by four fifths, before the runtime gives up on the hook and, for most
 * runtimes, lets the tool call through whatever the hook would have said.
 */
export function hookDeadlines(id: string): { stdinMs: number; answerMs: number } {
  const timeoutMs = (registeredTimeout(id) ?? 5) * 1000;
  return { stdinMs: Math.min(MAX_STDIN_WAIT_MS, Math.floor(timeoutMs / 3)), answerMs: Math.floor(timeoutMs * 0.8) };
}

function emit(answer: HookAnswer, sync: boolean): void {
  const out = answer.text ?? (answer.stdout !== undefined ? `${JSON.stringify(answer.stdout)}\n` : '');
  const err = answer.stderr ? `${answer.stderr}\n` : '';
  if (!sync) {
    if (out) process.stdout.write(out);
    if (err) process.stderr.write(err);
    return;
  }
  // The watchdog exits right after writing: a pending asynchronous write would be lost.
  for (const [fd, text] of [[1, out], [2, err]] as const) {
    try {
      if (text) fs.writeSync(fd, text);
    } catch {
      // a closed pipe: nothing more can be said
    }
  }
}

/**
 * Run a hook as a process: stdin → answer → stdout/exit code, in the protocol
 * of the runtime its command names. A watchdog answers with the crash policy
 * and exits if the answer is not out in time (a hung file system, a stalled
 * pipe); it is unref'd, so a hook that finishes never waits for it.
 */
export async function runHook(id: string, policy: CrashPolicy, hook: (input: HookInput) => HookAnswer | Promise<HookAnswer>): Promise<void> {
  const runtime = resolveRuntime(runtimeArg(process.argv.slice(2)));
  const { stdinMs, answerMs } = hookDeadlines(id);
  let answered = false;
  /** Answers by the crash policy, once, and exits: for a stall or an error that escaped the hook's own try. */
  const answerByPolicy = (why: string) => {
    if (answered) return;
    answered = true;
    let late = policyAnswer(policy, why);
    try {
      late = render(late, runtime, undefined, undefined);
    } catch {
      // keep the Claude Code form
    }
    emit(late, true);
    process.exit(late.exitCode ?? 0);
  };
  const watchdog = setTimeout(() => answerByPolicy(`no answer within ${answerMs} ms`), answerMs);
  watchdog.unref();
  // Node's own answer to an uncaught error is exit 1, which most runtimes treat as "let the tool run".
  process.on('uncaughtException', (error) => answerByPolicy(String((error as Error)?.message ?? error)));
  process.on('unhandledRejection', (error) => answerByPolicy(String((error as Error)?.message ?? error)));
  const stdin = await readStdin(stdinMs);
  const answer = await answerHook(id, policy, hook, stdin.text, runtime, stdin);
  if (answered) return;
  answered = true;
  clearTimeout(watchdog);
  emit(answer, false);
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

/**
 * Every string inside a tool response, joined. The cap (16 Mi characters) is
 * above anything readStdin lets in (4 MiB of JSON), so a whole response is
 * scanned; the injection scanner works through it in chunks.
 */
export function textOf(value: unknown, cap = 16 * 1024 * 1024): string {
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
