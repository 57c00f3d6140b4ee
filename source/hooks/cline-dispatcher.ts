// GSD's hook dispatcher for Cline. Cline runs one executable per event
// (PreToolUse, PostToolUse, TaskStart, …) with the event as JSON on stdin and
// reads {"cancel", "contextModification", "errorMessage"} from stdout. GSD's
// hooks speak Claude Code's protocol, so the per-event file the compiler
// writes (compiler/emit/hook-format-cline.ts) loads this module with that
// event's hooks, and this module: reads the payload with the hooks' stdin
// deadline (lib/hook.ts), translates it with Cline's table
// (targets/cline/hook-payload.json, lib/runtime.ts normalize), runs each hook
// whose matcher names the tool, in order, within Cline's time limit, folds
// their Claude Code answers into one and renders it in Cline's terms (render).
// A hook marked failClosed (crash policy deny) that cannot run blocks the call;
// any other that cannot run lets it through.
import { spawnSync } from 'node:child_process';
import { advise, allow, parseInput, readStdin, type HookAnswer, type HookInput } from './lib/hook.ts';
import { decisionOf, matches, normalize, pick, render, resolveRuntime, type Runtime } from './lib/runtime.ts';

/** One GSD hook as the per-event file lists it. */
export interface DispatchedHook {
  id: string;
  /** Claude Code tool names, as a hooks.json matcher. */
  matcher?: string;
  /** Seconds. */
  timeout: number;
  /** The hook's crash policy is deny: when it cannot run, the call is refused. */
  failClosed?: boolean;
  command: string;
}

/** Cline event → its hooks, in registry order. */
export type HookTable = Readonly<Record<string, readonly DispatchedHook[]>>;

/** How one hook process ended (the fields of spawnSync's result read here). */
export interface HookRun {
  status: number | null;
  signal?: string | null;
  error?: Error;
  stdout?: string;
  stderr?: string;
}

export type RunHook = (hook: DispatchedHook, input: string, cwd: string, timeoutMs: number) => HookRun;

/** The table entry (targets/<id>/hook-payload.json) this dispatcher translates with. */
const RUNTIME_ID = 'cline';
/** The id normalize() sees: no registry entry, so no matcher filtering there; the table's matchers apply here. */
const DISPATCHER_ID = 'gsd-cline-dispatcher';
/** Cline documents a 30-second hook limit (the 3.0.65 CLI core waits up to 120 s); every hook of one call stays inside the smaller. */
export const BUDGET_MS = 25_000;
/** How long the payload may take to arrive, as for the hooks themselves (lib/hook.ts). */
export const STDIN_MS = 3_000;

/** Runs a hook's command line in a shell, as Cline would run a hook of its own. */
export const spawnHook: RunHook = (hook, input, cwd, timeoutMs) => spawnSync(hook.command, { shell: true, cwd, input, encoding: 'utf8', timeout: timeoutMs });

function clineRuntime(): Runtime {
  const runtime = resolveRuntime(RUNTIME_ID);
  if (!runtime) throw new Error(`the hooks were built without targets/${RUNTIME_ID}/hook-payload.json`);
  return runtime;
}

/** What a hook that could not run answers: a refusal when it is marked failClosed, otherwise nothing. */
function couldNotRun(hook: DispatchedHook, why: string): HookAnswer {
  return hook.failClosed ? { exitCode: 2, stderr: `${hook.id} could not run (${why}) and is set to block` } : allow();
}

/**
 * A hook's Claude Code answer from how its process ended: exit 2 refuses with
 * its stderr, exit 0 answers with its JSON (or nothing); a hook that did not
 * start, was stopped, exited otherwise or printed no JSON could not run.
 */
export function answerOfRun(run: HookRun, hook: DispatchedHook): HookAnswer {
  if (run.error) return couldNotRun(hook, run.error.message);
  if (run.signal) return couldNotRun(hook, `stopped by ${run.signal}`);
  if (run.status === 2) return { exitCode: 2, stderr: (run.stderr ?? '').trim() || `${hook.id} blocked the call` };
  if (run.status !== 0) return couldNotRun(hook, `exit ${run.status}`);
  const text = (run.stdout ?? '').trim();
  if (text === '') return allow();
  try {
    return { exitCode: 0, stdout: JSON.parse(text) as unknown };
  } catch {
    return couldNotRun(hook, 'its answer is not JSON');
  }
}

/** The hooks' answers as one: every refusal's reason (deny or block), one per line; every advice, one per paragraph. */
export function fold(answers: readonly HookAnswer[], event: string | undefined): HookAnswer {
  const reasons: string[] = [];
  const contexts: string[] = [];
  for (const answer of answers) {
    const decision = decisionOf(answer);
    if (decision.kind === 'deny' || decision.kind === 'block') reasons.push(decision.reason);
    else if (decision.kind === 'context') contexts.push(decision.context);
  }
  const context = contexts.join('\n\n');
  if (reasons.length > 0) return { exitCode: 2, stderr: reasons.join('\n'), ...(context ? { stdout: { hookSpecificOutput: { additionalContext: context } } } : {}) };
  return context ? advise(event ?? '', context) : allow();
}

/** The Cline event this call is for: the one the payload names, or the only one the file holds. */
function eventOf(table: HookTable, raw: HookInput, runtime: Runtime): string | undefined {
  const named = pick(raw, runtime.fields.event);
  if (typeof named === 'string' && Object.hasOwn(table, named)) return named;
  const events = Object.keys(table);
  return events.length === 1 ? events[0] : typeof named === 'string' ? named : undefined;
}

/** The refusal (or pass) for a call the dispatcher cannot work through: refused when any hook of the file is failClosed. */
function unworkable(table: HookTable, why: string): HookAnswer {
  const closed = Object.values(table).some((hooks) => hooks.some((hook) => hook.failClosed));
  return closed ? { exitCode: 2, stderr: `GSD: ${why}, and a guard set to block refuses the call` } : allow();
}

/**
 * One Cline call: the payload translated, each matching hook run on each
 * Claude Code input (one per file or command the call touches), the answers
 * folded and rendered as Cline's reply.
 */
export function dispatch(table: HookTable, text: string, complete = true, run: RunHook = spawnHook, now: () => number = Date.now): Record<string, unknown> {
  const runtime = clineRuntime();
  const reply = (answer: HookAnswer, event?: string, runtimeEvent?: string) => (render(answer, runtime, event, runtimeEvent).stdout ?? { cancel: false }) as Record<string, unknown>;
  let raw: HookInput;
  try {
    if (!complete && text.trim() === '') throw new Error('no payload arrived on stdin before the deadline');
    raw = parseInput(text);
  } catch {
    return reply(unworkable(table, 'the hook payload could not be read'));
  }
  const name = eventOf(table, raw, runtime);
  const eventKey = [runtime.fields.event ?? []].flat()[0];
  const { inputs, event, runtimeEvent } = normalize(name === undefined || eventKey === undefined ? raw : { ...raw, [eventKey]: name }, runtime, DISPATCHER_ID);
  const tool = typeof inputs[0]?.tool_name === 'string' ? inputs[0].tool_name : undefined;
  const cwd = typeof inputs[0]?.cwd === 'string' && inputs[0].cwd !== '' ? inputs[0].cwd : process.cwd();
  const deadline = now() + BUDGET_MS;
  const answers: HookAnswer[] = [];
  for (const hook of (name !== undefined && Object.hasOwn(table, name) ? table[name] : undefined) ?? []) {
    if (hook.matcher && !(tool !== undefined && matches(hook.matcher, tool))) continue;
    for (const input of inputs) {
      const left = deadline - now();
      if (left <= 0) {
        answers.push(couldNotRun(hook, `Cline's ${BUDGET_MS / 1000} s were spent before it ran`));
        break;
      }
      answers.push(answerOfRun(run(hook, JSON.stringify(input), cwd, Math.min(hook.timeout * 1000, left)), hook));
    }
  }
  return reply(fold(answers, event), event, runtimeEvent);
}

/** The per-event file's entry point: stdin → Cline's reply on stdout. */
export async function main(table: HookTable): Promise<void> {
  const stdin = await readStdin(STDIN_MS);
  let reply: Record<string, unknown>;
  try {
    reply = dispatch(table, stdin.text, stdin.complete);
  } catch (error) {
    // Cline's table missing from the build, or a fault here: answered like a payload that cannot be worked through.
    const closed = Object.values(table).some((hooks) => hooks.some((hook) => hook.failClosed));
    reply = closed ? { cancel: true, errorMessage: `GSD: the hook dispatcher failed (${String((error as Error)?.message ?? error)}), and a guard set to block refuses the call` } : { cancel: false };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
}
