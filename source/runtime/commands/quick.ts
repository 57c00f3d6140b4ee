// quick list | status: the task folders under .planning/quick/ (NNN-slug/
// with NNN-PLAN.md and NNN-SUMMARY.md) and how far each got, so /gsd-quick can
// list them and resume one that stopped between its plan and its summary.
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { exists, isDir, listDir, readTextIfExists } from '../core/fs.ts';
import { readFrontmatter } from '../md/frontmatter.ts';
import type { Handler } from '../cli/handler.ts';

export type QuickStatus = 'done' | 'planned' | 'started';

export interface QuickTask {
  id: string;
  slug: string;
  directory: string;
  status: QuickStatus;
  has_plan: boolean;
  has_summary: boolean;
  /** What the resumed run does next: nothing, execute the plan, or plan it. */
  next_step: 'none' | 'execute' | 'plan';
  one_liner: string | null;
}

const TASK_DIR = /^(\d{1,4})-(.+)$/;

function oneLiner(summary: string | null, rel: string): string | null {
  if (summary === null) return null;
  let body = summary;
  try {
    body = readFrontmatter(summary, rel).split.body;
  } catch {
    body = summary;
  }
  return /^\*\*([^*\n]+)\*\*\s*$/m.exec(body)?.[1]?.trim() ?? null;
}

function taskOf(ctx: Ctx, dir: string, name: string): QuickTask | null {
  const m = TASK_DIR.exec(name);
  if (!m || !isDir(path.join(dir, name))) return null;
  const id = m[1]!;
  const folder = path.join(dir, name);
  const has_plan = exists(path.join(folder, `${id}-PLAN.md`));
  const summaryFile = path.join(folder, `${id}-SUMMARY.md`);
  const has_summary = exists(summaryFile);
  const status: QuickStatus = has_summary ? 'done' : has_plan ? 'planned' : 'started';
  return {
    id,
    slug: m[2]!,
    directory: ctx.rel(folder),
    status,
    has_plan,
    has_summary,
    next_step: has_summary ? 'none' : has_plan ? 'execute' : 'plan',
    one_liner: oneLiner(readTextIfExists(summaryFile), ctx.rel(summaryFile)),
  };
}

export function quickTasks(ctx: Ctx): QuickTask[] {
  const dir = ctx.draftPlanningPath('quick');
  return listDir(dir)
    .sort()
    .map((n) => taskOf(ctx, dir, n))
    .filter((t): t is QuickTask => t !== null);
}

const listCmd: Handler = (_inv, ctx) => {
  const tasks = quickTasks(ctx);
  const open = tasks.filter((t) => t.status !== 'done');
  return { data: { tasks, count: tasks.length, open: open.map((t) => t.id), open_count: open.length } };
};

const statusCmd: Handler = (inv, ctx) => {
  const want = inv.args.id!;
  const tasks = quickTasks(ctx);
  const pad = /^\d+$/.test(want) ? want.padStart(3, '0') : null;
  const task = tasks.find((t) => t.id === pad || t.slug === want || `${t.id}-${t.slug}` === want);
  if (!task) throw new CliError('not-found', `no quick task "${want}" under .planning/quick/; expected an id or slug, one of: ${tasks.map((t) => `${t.id}-${t.slug}`).join(', ') || 'none yet'}`);
  return { data: task, raw: task.status };
};

export const handlers: Record<string, Handler> = { 'quick list': listCmd, 'quick status': statusCmd };
