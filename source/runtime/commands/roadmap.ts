// roadmap get-phase | analyze | update-plan-progress | dashboard
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { readText, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { countedPhases, parseRoadmap, sectionText, type Roadmap } from '../planning/roadmap.ts';
import { setBulletChecked, syncPlanBoxes, upsertProgressRow } from '../planning/roadmap-edit.ts';
import { diskStatus, displayPhase, findPhaseDir, isSentinel, listPhaseDirs, normalizePhase, phaseFile, scanPhase } from '../planning/phases.ts';
import { phaseInfo, roadmapFor, stateMilestone, verificationStatus } from '../planning/phase-info.ts';
import type { Handler } from '../cli/handler.ts';

export function requireRoadmap(ctx: Ctx): Roadmap {
  const rm = roadmapFor(ctx);
  if (!rm) throw new CliError('not-found', `${ctx.rel(ctx.planningPath('ROADMAP.md'))} does not exist`);
  return rm;
}

const getPhase: Handler = (inv, ctx) => {
  const phase = inv.args.phase!;
  const rm = requireRoadmap(ctx);
  const info = phaseInfo(ctx, phase, rm);
  const p = info.roadmap;
  if (!p && !info.bulletName) return { data: { found: false, phase_number: displayPhase(phase) } };
  return {
    data: {
      found: true,
      phase_number: displayPhase(phase),
      phase_name: info.name,
      goal: p?.goal ?? null,
      mode: p?.mode ?? null,
      depends_on: p?.dependsOn ?? null,
      requirements: p?.requirements ?? null,
      success_criteria: p?.successCriteria ?? [],
      plans: p?.plansText ?? null,
      section: p ? sectionText(rm, p) : null,
      line: p ? p.line + 1 : null,
    },
  };
};

export function analyzeRoadmap(ctx: Ctx, rm: Roadmap) {
  const checked = new Set(rm.bullets.filter((b) => b.checked).map((b) => b.norm));
  const rowComplete = new Set((rm.progress?.rows ?? []).filter((r) => r.norm && /complete/i.test(r.cells[rm.progress!.col.status] ?? '')).map((r) => r.norm!));
  const dirs = listPhaseDirs(ctx.planning);
  const phases = countedPhases(rm).map((p) => {
    const dir = findPhaseDir(ctx.planning, p.norm, dirs);
    const scan = dir ? scanPhase(dir.dir, p.norm) : null;
    return {
      number: p.number,
      name: p.name,
      goal: p.goal,
      mode: p.mode,
      depends_on: p.dependsOn,
      requirements: p.requirements,
      directory: dir ? ctx.rel(dir.dir) : null,
      plan_count: scan?.live.length ?? 0,
      summary_count: scan?.live.filter((x) => x.summary).length ?? 0,
      has_context: !!(dir && phaseFile(dir.dir, 'CONTEXT')),
      has_research: !!(dir && phaseFile(dir.dir, 'RESEARCH')),
      disk_status: diskStatus(scan),
      roadmap_complete: checked.has(p.norm) || rowComplete.has(p.norm),
    };
  });
  const complete = (x: (typeof phases)[number]) => x.roadmap_complete || x.disk_status === 'complete';
  const totalPlans = phases.reduce((n, x) => n + x.plan_count, 0);
  const totalSummaries = phases.reduce((n, x) => n + x.summary_count, 0);
  const completed = phases.filter(complete).length;
  const current = phases.find((x) => !complete(x)) ?? null;
  const next = current ? (phases[phases.indexOf(current) + 1] ?? null) : null;
  const withSection = new Set(rm.phases.map((p) => p.norm));
  return {
    milestones: rm.milestones.map((m) => ({ version: m.version, name: m.name, status: m.status, line: m.line + 1 })),
    current_milestone: rm.current ? rm.current.version : null,
    phases,
    phase_count: phases.length,
    completed_phases: completed,
    total_plans: totalPlans,
    total_summaries: totalSummaries,
    progress_percent: phases.length ? Math.floor((completed / phases.length) * 100) : 0,
    plan_percent: totalPlans ? Math.floor((totalSummaries / totalPlans) * 100) : 0,
    current_phase: current ? current.number : null,
    next_phase: next ? next.number : null,
    missing_phase_details: rm.bullets.filter((b) => !withSection.has(b.norm) && !isSentinel(b.norm)).map((b) => b.number),
    scope: rm.scope,
  };
}

const analyze: Handler = (_inv, ctx) => ({ data: analyzeRoadmap(ctx, requireRoadmap(ctx)) });

/** Phase numbers named in a **Depends on** line ("Phase 1, Phase 2.1", "1 and 3"); none for "Nothing". */
export function dependencyNumbers(text: string | null): string[] {
  if (!text) return [];
  // Bounded tokens, one pass: no backtracking on the roadmap's text.
  return [...new Set([...text.slice(0, 2000).matchAll(/(?<![\w.])(\d{1,4}[A-Z]?(?:\.\d{1,3})*)(?!\w)(?!\.\d)/g)].map((m) => normalizePhase(m[1]!)))];
}

/** What the next step of a phase is, from its disk state and whether its dependencies are done. */
function nextAction(p: { disk_status: string; roadmap_complete: boolean; plan_count: number; summary_count: number; has_context: boolean }, blocked: boolean): string {
  if (p.roadmap_complete || p.disk_status === 'complete') return 'done';
  if (blocked) return 'wait';
  if (p.plan_count === 0) return p.has_context ? 'plan' : 'discuss';
  return 'execute';
}

const dashboard: Handler = (_inv, ctx) => {
  const a = analyzeRoadmap(ctx, requireRoadmap(ctx));
  const done = new Set(a.phases.filter((p) => p.roadmap_complete || p.disk_status === 'complete').map((p) => normalizePhase(p.number)));
  const known = new Set(a.phases.map((p) => normalizePhase(p.number)));
  const phases = a.phases.map((p) => {
    const deps = dependencyNumbers(p.depends_on);
    const waitingOn = deps.filter((d) => known.has(d) && !done.has(d)).map(displayPhase);
    const dir = findPhaseDir(ctx.planning, p.number);
    return {
      number: p.number,
      name: p.name,
      goal: p.goal,
      depends_on: deps.map(displayPhase),
      waiting_on: waitingOn,
      unknown_deps: deps.filter((d) => !known.has(d)).map(displayPhase),
      disk_status: p.disk_status,
      plans: `${p.summary_count}/${p.plan_count}`,
      has_context: p.has_context,
      verification: verificationStatus(dir ? phaseFile(dir.dir, 'VERIFICATION') : null),
      next: nextAction(p, waitingOn.length > 0),
    };
  });
  const by = (n: string) => phases.filter((p) => p.next === n).map((p) => p.number);
  return {
    data: {
      milestone: a.current_milestone,
      phase_count: a.phase_count,
      completed_phases: a.completed_phases,
      progress_percent: a.progress_percent,
      plan_percent: a.plan_percent,
      phases,
      ready: phases.filter((p) => p.next === 'discuss' || p.next === 'plan' || p.next === 'execute').map((p) => ({ number: p.number, next: p.next })),
      waiting: by('wait'),
      all_complete: phases.length > 0 && phases.every((p) => p.next === 'done'),
    },
  };
};

export function phaseRowStatus(planCount: number, summaryCount: number): string {
  if (planCount === 0) return 'Not started';
  if (summaryCount >= planCount) return 'Complete';
  return summaryCount === 0 ? 'Planned' : 'In progress';
}

const updatePlanProgress: Handler = (inv, ctx) => {
  const phase = inv.args.phase!;
  return withLock(ctx.planningPath('.lock'), () => {
    const file = ctx.planningPath('ROADMAP.md');
    const rel = ctx.rel(file);
    const rm = requireRoadmap(ctx);
    const info = phaseInfo(ctx, phase, rm);
    if (!info.roadmap && !info.bulletName) throw new CliError('not-found', `${rel}: phase ${displayPhase(phase)} is not in the roadmap`);
    const scan = info.dir ? scanPhase(info.dir.dir, info.padded) : null;
    const plans = scan?.live.length ?? 0;
    const summaries = scan?.live.filter((p) => p.summary).length ?? 0;
    const status = phaseRowStatus(plans, summaries);
    const complete = status === 'Complete';
    if (!rm.progress) return { data: { updated: false, reason: 'no_progress_table', phase: info.number, plan_count: plans, summary_count: summaries, status, complete } };
    const before = readText(file);
    let after = upsertProgressRow(before, rel, phase, {
      name: info.name ?? '',
      plans: `${summaries}/${plans}`,
      status,
      completed: complete ? ctx.today() : '-',
    });
    if (scan) after = syncPlanBoxes(after, rel, phase, scan.live.filter((p) => p.summary).map((p) => p.id));
    // A phase with a plan left to run is not complete: its checklist box follows (undo, a new plan).
    if (!complete && rm.bullets.some((b) => b.norm === info.padded && b.checked)) after = setBulletChecked(after, rel, phase, false);
    // Keep an existing completion date when the row was already complete.
    const prior = rm.progress.rows.find((r) => r.norm === info.padded);
    if (complete && prior && /complete/i.test(prior.cells[rm.progress.col.status] ?? '') && rm.progress.col.completed >= 0) {
      const date = prior.cells[rm.progress.col.completed];
      if (date && date !== '-') after = upsertProgressRow(after, rel, phase, { name: info.name ?? '', plans: `${summaries}/${plans}`, status, completed: date });
    }
    const updated = after !== before;
    if (updated) writeAtomic(file, after);
    return { data: { updated, phase: info.number, plan_count: plans, summary_count: summaries, status, complete } };
  });
};

export const handlers: Record<string, Handler> = {
  'roadmap dashboard': dashboard,
  'roadmap get-phase': getPhase,
  'roadmap analyze': analyze,
  'roadmap update-plan-progress': updatePlanProgress,
};

export { parseRoadmap, stateMilestone };
