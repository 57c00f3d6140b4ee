// stats: the project in numbers, from .planning/ and (when there is one) git.
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { isDir, listDir, readTextIfExists } from '../core/fs.ts';
import { git } from '../core/git.ts';
import { seedDir, threadDir, todoDir } from '../planning/capture.ts';
import { sessionFiles } from '../planning/debug-session.ts';
import { recordFiles } from '../planning/records.ts';
import { diskStatus, isSentinel, listPhaseDirs, scanPhase } from '../planning/phases.ts';
import { computeProgress, loadRoadmap } from '../planning/progress.ts';
import type { Handler } from '../cli/handler.ts';

/** `- [x] **ID**` / `- [ ] **ID**` lines of REQUIREMENTS.md (outside the traceability table). */
export function requirementCounts(text: string | null): { total: number; complete: number } {
  const rows = (text ?? '').split(/\r?\n/).filter((l) => /^\s*[-*]\s+\[[ xX]\]\s+\*\*[A-Za-z][A-Za-z0-9]*-\d+\*\*/.test(l));
  return { total: rows.length, complete: rows.filter((l) => /\[[xX]\]/.test(l)).length };
}

function gitNumbers(ctx: Ctx) {
  const inside = git(ctx, ['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.stdout.trim() !== 'true') return null;
  const count = git(ctx, ['rev-list', '--count', 'HEAD']);
  if (!count.ok) return { commits: 0, first_commit: null, last_commit: null };
  const dates = git(ctx, ['log', '--reverse', '--format=%cI']).stdout.trim().split('\n').filter(Boolean);
  return { commits: Number(count.stdout.trim()), first_commit: dates[0] ?? null, last_commit: dates[dates.length - 1] ?? null };
}

const stats: Handler = (_inv, ctx) => {
  const planning = ctx.planning;
  const rm = loadRoadmap(planning);
  const progress = computeProgress(planning, rm);
  const scans = listPhaseDirs(planning)
    .filter((d) => !isSentinel(d.number))
    .map((d) => scanPhase(d.dir, d.number));
  const statuses = scans.map((s) => diskStatus(s));
  const quick = ctx.planningPath('quick');
  return {
    data: {
      milestone: rm?.current?.version ?? null,
      milestone_name: rm?.current?.name ?? null,
      percent: progress.percent,
      phases: {
        total: progress.total_phases,
        complete: progress.completed_phases,
        in_progress: statuses.filter((s) => s === 'partial').length,
        not_started: Math.max(0, progress.total_phases - progress.completed_phases - statuses.filter((s) => s === 'partial').length),
      },
      plans: { total: progress.total_plans, with_summary: progress.completed_plans },
      requirements: requirementCounts(readTextIfExists(ctx.planningPath('REQUIREMENTS.md'))),
      // Counts only: the files are not opened.
      todos: { pending: recordFiles(todoDir(ctx, 'pending')).length, completed: recordFiles(todoDir(ctx, 'completed')).length },
      debug: { active: sessionFiles(ctx, 'active').length, resolved: sessionFiles(ctx, 'resolved').length },
      quick_tasks: listDir(quick).filter((n) => /^\d+-/.test(n) && isDir(path.join(quick, n))).length,
      seeds: recordFiles(seedDir(ctx)).length,
      threads: { open: recordFiles(threadDir(ctx, 'open')).length, resolved: recordFiles(threadDir(ctx, 'resolved')).length },
      git: gitNumbers(ctx),
    },
  };
};

export const handlers: Record<string, Handler> = { stats };
