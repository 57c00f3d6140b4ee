// milestone complete <version>: archive ROADMAP.md and REQUIREMENTS.md into
// .planning/milestones/, move the phase directories into
// milestones/<version>-phases/, and add an entry to MILESTONES.md.
import fs from 'node:fs';
import path from 'node:path';
import { bool, str } from '../cli/parse.ts';
import { CliError, refused } from '../core/errors.ts';
import { exists, readText, readTextIfExists, writeSet } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { isSentinel, listPhaseDirs } from '../planning/phases.ts';
import { mutateState, setField, statePath } from '../planning/state.ts';
import { analyzeRoadmap, requireRoadmap } from './roadmap.ts';
import type { Handler } from '../cli/handler.ts';

const complete: Handler = (inv, ctx) => {
  const version = inv.args.version!;
  if (!/^v\d+(\.\d+)*$/.test(version)) throw new CliError('invalid-args', `milestone version "${version}" must look like v1.0`);
  const dryRun = bool(inv, '--dry-run');
  return withLock(ctx.planningPath('.lock'), () =>
    withLock(`${statePath(ctx)}.lock`, () => {
      const planning = ctx.planning;
      const rm = requireRoadmap(ctx);
      const a = analyzeRoadmap(ctx, rm);
      const unfinished = a.phases.filter((p) => !(p.roadmap_complete || p.disk_status === 'complete')).map((p) => p.number);
      if (unfinished.length && !bool(inv, '--force')) {
        throw refused(`milestone ${version}: phases not complete: ${unfinished.join(', ')}; finish them or pass --force`, { unfinished });
      }
      const name = str(inv, '--name') ?? (rm.current?.version === version ? rm.current.name : '') ?? '';
      const archive = ctx.planningPath('milestones');
      const roadmapArchive = path.join(archive, `${version}-ROADMAP.md`);
      const reqFile = ctx.planningPath('REQUIREMENTS.md');
      const reqArchive = path.join(archive, `${version}-REQUIREMENTS.md`);
      const phasesArchive = path.join(archive, `${version}-phases`);
      if (exists(roadmapArchive)) throw refused(`${ctx.rel(roadmapArchive)} already exists: milestone ${version} was archived before`);
      const moves = bool(inv, '--no-archive-phases') ? [] : listPhaseDirs(planning).filter((d) => !isSentinel(d.number));
      const today = ctx.today();
      const msFile = ctx.planningPath('MILESTONES.md');
      const msBefore = readTextIfExists(msFile);
      const entry = [
        `## ${version}${name ? ` ${name}` : ''} (Shipped: ${today})`,
        '',
        `**Phases completed:** ${a.phase_count} phases, ${a.total_plans} plans, ${a.total_summaries} summaries`,
        '',
        `Archive: \`milestones/${version}-ROADMAP.md\`${readTextIfExists(reqFile) !== null ? `, \`milestones/${version}-REQUIREMENTS.md\`` : ''}`,
        '',
        '---',
        '',
      ].join('\n');
      const msAfter = msBefore === null ? `# Milestones\n\n${entry}` : `${msBefore.replace(/\s*$/, '\n\n')}${entry}`;
      const plan = {
        version,
        name: name || null,
        date: today,
        phases: a.phase_count,
        plans: a.total_plans,
        unfinished,
        archived: {
          roadmap: ctx.rel(roadmapArchive),
          requirements: readTextIfExists(reqFile) !== null ? ctx.rel(reqArchive) : null,
          phases_dir: moves.length ? ctx.rel(phasesArchive) : null,
        },
        moved_directories: moves.map((d) => ({ from: ctx.rel(d.dir), to: ctx.rel(path.join(phasesArchive, d.name)) })),
      };
      if (dryRun) return { data: { ...plan, dry_run: true, completed: false } };
      const reqText = readTextIfExists(reqFile);
      writeSet([
        { file: roadmapArchive, before: null, after: readText(ctx.planningPath('ROADMAP.md')) },
        ...(reqText !== null ? [{ file: reqArchive, before: null, after: reqText }] : []),
        { file: msFile, before: msBefore, after: msAfter },
      ]);
      const moved: { from: string; to: string }[] = [];
      try {
        if (moves.length) fs.mkdirSync(phasesArchive, { recursive: true });
        for (const d of moves) {
          const to = path.join(phasesArchive, d.name);
          fs.renameSync(d.dir, to);
          moved.push({ from: d.dir, to });
        }
      } catch (error) {
        for (const m of moved.reverse()) fs.renameSync(m.to, m.from);
        throw new CliError('failed', `moving phase directories failed (moves undone): ${(error as Error).message}`);
      }
      let stateUpdated = false;
      if (readTextIfExists(statePath(ctx)) !== null) {
        const r = mutateState(ctx, (body) => {
          setField(body, 'Status', `Milestone ${version} complete`);
          setField(body, 'Last activity', `${today} — Milestone ${version} complete`);
        });
        stateUpdated = r.written;
      }
      return { data: { ...plan, dry_run: false, completed: true, milestones_updated: true, state_updated: stateUpdated } };
    }),
  );
};

export const handlers: Record<string, Handler> = { 'milestone complete': complete };
