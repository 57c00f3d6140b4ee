// repair attempt | status: node repair counted by the runtime, not by the
// executor's memory. An executor whose task failed its <verify> asks before
// each repair; the answer says whether the budget (workflow.node_repair_budget,
// 0 when workflow.node_repair is false) allows it. The count lives in
// {phase_dir}/node-repair.json, changed under the planning lock with an atomic
// write, so executors running side by side never lose an attempt.
import path from 'node:path';
import { num, str } from '../cli/parse.ts';
import { getPath, loadConfig } from '../config/config.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { isPlainObject } from '../core/equal.ts';
import { readTextIfExists, writeAtomic } from '../core/fs.ts';
import { parseJson } from '../core/json.ts';
import { phaseInfo } from '../planning/phase-info.ts';
import { withPlanningLock } from '../planning/records.ts';
import type { Handler } from '../cli/handler.ts';

export const REPAIR_FILE = 'node-repair.json';
const NOTE_MAX = 300;

interface Attempt {
  n: number;
  kind: string;
  note: string | null;
  at: string;
}

type Ledger = Record<string, Attempt[]>;

function budgetOf(ctx: Ctx): number {
  const resolved = loadConfig(ctx).resolved;
  if (getPath(resolved, 'workflow.node_repair') === false) return 0;
  const b = getPath(resolved, 'workflow.node_repair_budget');
  return typeof b === 'number' && Number.isInteger(b) && b >= 0 ? b : 2;
}

/** The ledger file of the phase; the phase folder must exist (its plans are in it). */
function ledgerFile(ctx: Ctx, phase: string): { file: string; padded: string } {
  const info = phaseInfo(ctx, phase);
  if (!info.dir) throw new CliError('not-found', `phase ${info.number} has no folder; expected ${ctx.rel(info.expectedDir)} with its plans`);
  return { file: path.join(info.dir.dir, REPAIR_FILE), padded: info.padded };
}

/** Read the ledger, refusing anything but `{ "<plan>/<task>": [attempt, …] }` with the line of the fault. */
function readLedger(ctx: Ctx, file: string): Ledger {
  const text = readTextIfExists(file);
  if (text === null) return {};
  const label = ctx.rel(file);
  const data = parseJson(text, label);
  const bad = (what: string) => new CliError('failed', `${label}: ${what}; fix or delete the file (it only counts repair attempts)`);
  if (!isPlainObject(data) || !isPlainObject(data.tasks)) throw bad('expected an object with "tasks"');
  for (const [key, list] of Object.entries(data.tasks)) {
    if (!/^[0-9A-Za-z.-]+\/\d+$/.test(key) || !Array.isArray(list) || !list.every((a) => isPlainObject(a) && Number.isInteger(a.n))) throw bad(`expected "<plan>/<task>": [attempts] for "${key}"`);
  }
  return data.tasks as Ledger;
}

function writeLedger(file: string, ledger: Ledger): void {
  const tasks = Object.fromEntries(Object.keys(ledger).sort().map((k) => [k, ledger[k]]));
  writeAtomic(file, `${JSON.stringify({ tasks }, null, 2)}\n`);
}

function planId(padded: string, plan: string): string {
  if (/^\d{1,3}$/.test(plan)) return `${padded}-${plan.padStart(2, '0')}`;
  if (/^[0-9][0-9A-Za-z.]*-\d{1,3}$/.test(plan)) return plan;
  throw new CliError('invalid-args', `--plan "${plan}": expected a plan number like 2 or a plan id like ${padded}-02`);
}

function taskKey(inv: Parameters<Handler>[0], padded: string): { plan_id: string; task: number; key: string } {
  const plan_id = planId(padded, str(inv, '--plan')!);
  const task = num(inv, '--task')!;
  if (task < 1) throw new CliError('invalid-args', `--task ${task}: expected a task number from 1`);
  return { plan_id, task, key: `${plan_id}/${task}` };
}

const attempt: Handler = (inv, ctx) => {
  const { file, padded } = ledgerFile(ctx, str(inv, '--phase')!);
  const { plan_id, task, key } = taskKey(inv, padded);
  const budget = budgetOf(ctx);
  const note = str(inv, '--note');
  if (note !== undefined && note.length > NOTE_MAX) throw new CliError('invalid-args', `--note is ${note.length} characters; expected at most ${NOTE_MAX}`);
  return withPlanningLock(ctx, () => {
    const ledger = readLedger(ctx, file);
    const used = ledger[key]?.length ?? 0;
    // Over budget nothing is recorded: the executor escalates instead of trying.
    const escalate = used >= budget;
    if (!escalate) {
      ledger[key] = [...(ledger[key] ?? []), { n: used + 1, kind: str(inv, '--kind') ?? 'retry', note: note ?? null, at: ctx.now().toISOString() }];
      writeLedger(file, ledger);
    }
    const spent = escalate ? used : used + 1;
    const data = { plan_id, task, attempt: escalate ? null : spent, used: spent, budget, remaining: Math.max(0, budget - spent), escalate, file: ctx.rel(file) };
    return { data, raw: escalate ? `escalate: ${spent} of ${budget} repairs spent on ${key}` : `attempt ${spent} of ${budget} on ${key}` };
  });
};

const status: Handler = (inv, ctx) => {
  const { file, padded } = ledgerFile(ctx, str(inv, '--phase')!);
  const only = str(inv, '--plan') === undefined ? null : planId(padded, str(inv, '--plan')!);
  const budget = budgetOf(ctx);
  const ledger = readLedger(ctx, file);
  const tasks = Object.keys(ledger)
    .sort()
    .filter((k) => only === null || k.startsWith(`${only}/`))
    .map((k) => ({ key: k, used: ledger[k]!.length, remaining: Math.max(0, budget - ledger[k]!.length), attempts: ledger[k] }));
  return { data: { budget, tasks, file: ctx.rel(file) }, raw: tasks.map((t) => `${t.key}: ${t.used}/${budget}`).join('\n') || 'no repairs' };
};

export const handlers: Record<string, Handler> = { 'repair attempt': attempt, 'repair status': status };
