// workstreams list | create | status | switch | progress | complete: parallel
// tracks in one project. Each reads its track through a Ctx of its own, so the
// one resolver (planning/layout.ts) decides every path here too.
import fs from 'node:fs';
import path from 'node:path';
import { bool } from '../cli/parse.ts';
import type { Handler } from '../cli/handler.ts';
import { Ctx } from '../core/context.ts';
import { CliError, refused } from '../core/errors.ts';
import { exists, isDir, readTextIfExists, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { checkWorkstreamName, clearPointersTo, listWorkstreams, selectWorkstream, setActiveWorkstream, workstreamDir } from '../planning/layout.ts';
import { roadmapFor } from '../planning/phase-info.ts';
import { getField, parseStateHealing, statePath } from '../planning/state.ts';
import { analyzeRoadmap } from './roadmap.ts';

/** The same call, pointed at workstream `name` whatever else would select one. */
function ctxFor(ctx: Ctx, name: string): Ctx {
  return new Ctx(ctx.cwd, { ...ctx.env, GSD_WORKSTREAM: undefined }, ctx.coreDir, name);
}

function requireWorkstream(ctx: Ctx, name: string): string {
  checkWorkstreamName(name);
  if (!isDir(workstreamDir(ctx.root, name))) {
    const known = listWorkstreams(ctx.root);
    throw new CliError('not-found', `no workstream "${name}" under .planning/workstreams/ (${known.length ? `known: ${known.join(', ')}` : 'none yet'})`);
  }
  return name;
}

/** Which workstream the caller's pointers select (flag and GSD_WORKSTREAM included), without failing on a stale one. */
function activeOf(ctx: Ctx): { name: string | null; source: string | null } {
  try {
    return selectWorkstream(ctx.root, ctx.env, ctx.workstreamFlag, (m) => ctx.warn(m));
  } catch {
    return { name: null, source: null };
  }
}

function summary(ctx: Ctx, name: string) {
  const c = ctxFor(ctx, name);
  const stateFile = statePath(c);
  const text = readTextIfExists(stateFile);
  const sf = text === null ? null : parseStateHealing(text, c.rel(stateFile));
  let a: ReturnType<typeof analyzeRoadmap> | null = null;
  let roadmapError: string | null = null;
  try {
    const rm = roadmapFor(c);
    a = rm ? analyzeRoadmap(c, rm) : null;
  } catch (error) {
    roadmapError = (error as Error).message;
  }
  return {
    c,
    a,
    row: {
      name,
      path: ctx.rel(c.planning),
      status: sf ? (getField(sf.body, 'Status') ?? null) : null,
      milestone: a?.current_milestone ?? null,
      current_phase: a?.current_phase ?? null,
      phase_count: a?.phase_count ?? 0,
      completed_phases: a?.completed_phases ?? 0,
      total_plans: a?.total_plans ?? 0,
      completed_plans: a?.total_summaries ?? 0,
      progress_percent: a?.progress_percent ?? 0,
      has_roadmap: exists(c.planningPath('ROADMAP.md')),
      roadmap_error: roadmapError,
    },
  };
}

const list: Handler = (_inv, ctx) => {
  const active = activeOf(ctx);
  const rows = listWorkstreams(ctx.root).map((n) => ({ ...summary(ctx, n).row, active: n === active.name }));
  return {
    data: { workstreams: rows, count: rows.length, active: active.name, active_source: active.source },
    raw: rows.map((r) => `${r.active ? '*' : ' '} ${r.name}\t${r.progress_percent}%\t${r.status ?? 'no state'}`).join('\n'),
  };
};

const create: Handler = (inv, ctx) => {
  const name = checkWorkstreamName(inv.args.name!);
  const dir = workstreamDir(ctx.root, name);
  return withLock(ctx.planningPath('.lock'), () => {
    if (exists(dir)) return { data: { created: false, reason: 'already_exists', name, path: ctx.rel(dir) } };
    fs.mkdirSync(path.join(dir, 'phases'), { recursive: true });
    const today = ctx.today();
    // A body the state commands can read; new-milestone --ws fills in the rest.
    const state = [`# State: workstream ${name}`, '', '## Current Position', '', 'Phase: none yet', 'Plan: Not started', 'Status: Ready to plan', `Last activity: ${today} — workstream created`, ''].join('\n');
    writeAtomic(path.join(dir, 'STATE.md'), state);
    const switched = bool(inv, '--switch') ? setActiveWorkstream(ctx.root, ctx.env, name) : null;
    return {
      data: {
        created: true,
        name,
        path: ctx.rel(dir),
        switched: switched ? { scope: switched.scope, pointer: ctx.rel(switched.file) } : null,
        next_command: `/gsd-new-milestone --ws ${name}`,
      },
      raw: ctx.rel(dir),
    };
  });
};

const status: Handler = (inv, ctx) => {
  const name = requireWorkstream(ctx, inv.args.name!);
  const { row, a } = summary(ctx, name);
  return {
    data: {
      ...row,
      active: activeOf(ctx).name === name,
      phases: (a?.phases ?? []).map((p) => ({ number: p.number, name: p.name, disk_status: p.disk_status, plan_count: p.plan_count, summary_count: p.summary_count, roadmap_complete: p.roadmap_complete })),
    },
  };
};

const switchCmd: Handler = (inv, ctx) => {
  const none = bool(inv, '--none');
  const given = inv.args.name;
  if (none === (given !== undefined)) throw new CliError('invalid-args', 'workstreams switch: give a workstream name or --none');
  const name = given === undefined ? null : requireWorkstream(ctx, given);
  const before = activeOf(ctx).name;
  const set = setActiveWorkstream(ctx.root, ctx.env, name);
  return {
    data: {
      active: name,
      previous: before,
      scope: set.scope,
      pointer: ctx.rel(set.file),
      // Without a session variable the pointer is the project's: every session without its own follows it.
      shared_with_other_sessions: set.scope === 'project',
    },
    raw: name ?? '',
  };
};

const progress: Handler = (_inv, ctx) => {
  const rows = listWorkstreams(ctx.root).map((n) => summary(ctx, n).row);
  const phases = rows.reduce((n, r) => n + r.phase_count, 0);
  const done = rows.reduce((n, r) => n + r.completed_phases, 0);
  return {
    data: {
      workstreams: rows.map(({ name, milestone, current_phase, phase_count, completed_phases, total_plans, completed_plans, progress_percent, status: st }) => ({ name, milestone, current_phase, phase_count, completed_phases, total_plans, completed_plans, progress_percent, status: st })),
      count: rows.length,
      total_phases: phases,
      completed_phases: done,
      progress_percent: phases ? Math.floor((done / phases) * 100) : 0,
    },
    raw: rows.map((r) => `${r.name}\t${r.completed_phases}/${r.phase_count} phases\t${r.progress_percent}%`).join('\n'),
  };
};

const complete: Handler = (inv, ctx) => {
  const name = requireWorkstream(ctx, inv.args.name!);
  return withLock(ctx.planningPath('.lock'), () => {
    const { row, a } = summary(ctx, name);
    const unfinished = (a?.phases ?? []).filter((p) => !(p.roadmap_complete || p.disk_status === 'complete')).map((p) => p.number);
    if (unfinished.length && !bool(inv, '--force')) throw refused(`workstream ${name}: phases not complete: ${unfinished.join(', ')}; finish them or pass --force`, { unfinished });
    // Archived beside the milestones, dated; a second archive the same day gets -2, -3, ...
    const base = path.join(ctx.sharedPlanning, 'milestones', 'workstreams');
    const stem = `${name}-${ctx.today()}`;
    let dest = path.join(base, stem);
    for (let i = 2; exists(dest); i++) dest = path.join(base, `${stem}-${i}`);
    fs.mkdirSync(base, { recursive: true });
    fs.renameSync(workstreamDir(ctx.root, name), dest);
    const cleared = clearPointersTo(ctx.root, name);
    return {
      data: { completed: true, name, archived_to: ctx.rel(dest), phases: row.phase_count, unfinished, pointers_cleared: cleared, remaining: listWorkstreams(ctx.root) },
      raw: ctx.rel(dest),
    };
  });
};

export const handlers: Record<string, Handler> = {
  'workstreams list': list,
  'workstreams create': create,
  'workstreams status': status,
  'workstreams switch': switchCmd,
  'workstreams progress': progress,
  'workstreams complete': complete,
};
