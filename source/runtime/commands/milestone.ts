// milestone complete <version>: archive ROADMAP.md and REQUIREMENTS.md into
// .planning/milestones/, move the phase directories into
// milestones/<version>-phases/, and add an entry to MILESTONES.md.
// milestone summary [version]: where a milestone's artifacts are, phase by phase.
// milestone cleanup: move finished phase folders of archived milestones that
// are still in phases/ into their milestones/<version>-phases/ folder.
import fs from 'node:fs';
import path from 'node:path';
import { bool, str } from '../cli/parse.ts';
import { CliError, refused } from '../core/errors.ts';
import type { Ctx } from '../core/context.ts';
import { exists, isDir, listDir, readText, readTextIfExists, safeUnlink, writeAtomic, writeSet } from '../core/fs.ts';
import { parseJson } from '../core/json.ts';
import { withLock } from '../core/lock.ts';
import { diskStatus, findPhaseDir, isSentinel, listPhaseDirs, listPhaseDirsIn, phaseFile, phasesDir, scanPhase, type PhaseDir } from '../planning/phases.ts';
import { roadmapFor, stateMilestone, verificationStatus } from '../planning/phase-info.ts';
import { countedPhases, parseRoadmap } from '../planning/roadmap.ts';
import { withPlanningLock } from '../planning/records.ts';
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

const VERSION = /^v\d+(\.\d+)*$/;

function versionArg(version: string): string {
  if (!VERSION.test(version)) throw new CliError('invalid-args', `milestone version "${version}" must look like v1.0`);
  return version;
}

const orNull = (ctx: Ctx, file: string) => (exists(file) ? ctx.rel(file) : null);

/** A phase folder's artifacts, as project-relative paths. */
function phaseArtifacts(ctx: Ctx, dir: PhaseDir) {
  const scan = scanPhase(dir.dir, dir.number);
  const doc = (suffix: string) => {
    const f = phaseFile(dir.dir, suffix);
    return f ? ctx.rel(f) : null;
  };
  const verification = phaseFile(dir.dir, 'VERIFICATION');
  return {
    directory: ctx.rel(dir.dir),
    disk_status: diskStatus(scan),
    plan_count: scan.live.length,
    summary_count: scan.live.filter((p) => p.summary).length,
    context: doc('CONTEXT'),
    research: doc('RESEARCH'),
    summaries: scan.live.filter((p) => p.summary).map((p) => ctx.rel(p.summary!)),
    verification: verification ? ctx.rel(verification) : null,
    verification_status: verificationStatus(verification),
    uat: doc('UAT'),
  };
}

const summary: Handler = (inv, ctx) => {
  const current = requireRoadmap(ctx).current?.version ?? stateMilestone(ctx);
  const version = versionArg(inv.args.version ?? current ?? '');
  const archive = ctx.planningPath('milestones');
  const archivedRoadmap = path.join(archive, `${version}-ROADMAP.md`);
  const archived = exists(archivedRoadmap);
  const roadmapFile = archived ? archivedRoadmap : ctx.planningPath('ROADMAP.md');
  if (!archived && version !== current) throw new CliError('not-found', `milestone ${version} is neither the current one (${current ?? 'none'}) nor archived: ${ctx.rel(archivedRoadmap)} does not exist`);
  const rm = parseRoadmap(readText(roadmapFile), ctx.rel(roadmapFile), version);
  const archivedDirs = listPhaseDirsIn(path.join(archive, `${version}-phases`));
  const liveDirs = listPhaseDirs(ctx.planning);
  const phases = countedPhases(rm).map((p) => {
    const dir = findPhaseDir('', p.norm, archivedDirs) ?? findPhaseDir('', p.norm, liveDirs);
    return { number: p.number, name: p.name, goal: p.goal, depends_on: p.dependsOn, requirements: p.requirements, ...(dir ? phaseArtifacts(ctx, dir) : { directory: null, disk_status: 'no_directory' }) };
  });
  const audit = [path.join(archive, `${version}-MILESTONE-AUDIT.md`), ctx.planningPath(`${version}-MILESTONE-AUDIT.md`)].find(exists) ?? null;
  const output = ctx.planningPath('reports', `MILESTONE_SUMMARY-${version}.md`);
  return {
    data: {
      version,
      name: rm.milestones.find((m) => m.version === version)?.name ?? (rm.current?.version === version ? rm.current.name : null),
      archived,
      roadmap: ctx.rel(roadmapFile),
      requirements: orNull(ctx, archived ? path.join(archive, `${version}-REQUIREMENTS.md`) : ctx.planningPath('REQUIREMENTS.md')),
      audit: audit ? ctx.rel(audit) : null,
      project: orNull(ctx, ctx.planningPath('PROJECT.md')),
      retrospective: orNull(ctx, ctx.planningPath('RETROSPECTIVE.md')),
      milestones_log: orNull(ctx, ctx.planningPath('MILESTONES.md')),
      phase_count: phases.length,
      phases_with_summaries: phases.filter((p) => 'summary_count' in p && p.summary_count > 0).length,
      phases,
      output: ctx.rel(output),
      output_exists: exists(output),
    },
    raw: ctx.rel(output),
  };
};

/** The cleanup journal: the moves decided, written before the first one, removed after the last. */
const JOURNAL = '.cleanup-journal.json';

interface Move {
  from: string;
  to: string;
}

/** Archived milestones (a `milestones/<v>-ROADMAP.md` exists) and the phase numbers of each. */
export function archivedMilestones(ctx: Ctx): { version: string; phases: Set<string> }[] {
  const root = ctx.planningPath('milestones');
  return listDir(root)
    .map((n) => /^(v\d+(?:\.\d+)*)-ROADMAP\.md$/.exec(n)?.[1])
    .filter((v): v is string => !!v)
    .sort()
    .map((version) => {
      const file = path.join(root, `${version}-ROADMAP.md`);
      const rm = parseRoadmap(readText(file), ctx.rel(file), version);
      return { version, phases: new Set(countedPhases(rm).map((p) => p.norm)) };
    });
}

function planCleanup(ctx: Ctx) {
  const live = roadmapFor(ctx);
  const liveWindow = new Set(live ? countedPhases(live).map((p) => p.norm) : []);
  const milestones = archivedMilestones(ctx);
  const moves: (Move & { version: string; phase: string })[] = [];
  const kept: { directory: string; phase: string; reason: string }[] = [];
  for (const d of listPhaseDirs(ctx.planning).filter((x) => !isSentinel(x.number))) {
    const owners = milestones.filter((m) => m.phases.has(d.number)).map((m) => m.version);
    const keep = (reason: string) => kept.push({ directory: ctx.rel(d.dir), phase: d.number, reason });
    if (owners.length === 0) continue; // not in any archived milestone: current work
    if (liveWindow.has(d.number)) keep(`phase ${d.number} is also in the current roadmap; move it by hand if it belongs to ${owners.join(', ')}`);
    else if (owners.length > 1) keep(`phase ${d.number} is in the archived roadmaps of ${owners.join(' and ')}; move it by hand`);
    else {
      const scan = scanPhase(d.dir, d.number);
      const done = scan.live.filter((p) => p.summary).length;
      const to = path.join(ctx.planningPath('milestones'), `${owners[0]}-phases`, d.name);
      if (diskStatus(scan) !== 'complete') keep(`unfinished: ${done} of ${scan.live.length} plans have a summary`);
      else if (exists(to)) keep(`${ctx.rel(to)} already exists`);
      else moves.push({ version: owners[0]!, phase: d.number, from: ctx.rel(d.dir), to: ctx.rel(to) });
    }
  }
  return { moves, kept };
}

/** Carry out the journal's moves that are not done yet; a move is done when its source is gone and its target is there. */
function runJournal(ctx: Ctx, journal: string, moves: Move[]): Move[] {
  const done: Move[] = [];
  for (const m of moves) {
    const from = path.join(ctx.root, m.from);
    const to = path.join(ctx.root, m.to);
    if (!exists(from) && isDir(to)) continue;
    if (exists(from) && exists(to)) throw refused(`cleanup cannot finish: both ${m.from} and ${m.to} exist; merge them by hand, then delete ${ctx.rel(journal)}`);
    if (!exists(from)) throw refused(`cleanup cannot finish: ${m.from} is gone and ${m.to} is missing; delete ${ctx.rel(journal)} once the folder is back`);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.renameSync(from, to);
    done.push(m);
  }
  safeUnlink(journal);
  return done;
}

function readJournal(ctx: Ctx, journal: string): Move[] {
  const data = parseJson(readText(journal), ctx.rel(journal)) as { moves?: unknown } | null;
  const moves = Array.isArray(data?.moves) ? data.moves : null;
  // Only what planCleanup writes: a phase folder directly under phases/ to one directly under milestones/<v>-phases/.
  const phases = `${ctx.rel(phasesDir(ctx.planning))}/`;
  const archive = `${ctx.rel(ctx.planningPath('milestones'))}/`;
  const name = (p: string, prefix: string) => p.startsWith(prefix) && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(p.slice(prefix.length)) && !p.slice(prefix.length).includes('..');
  const ok = (m: unknown) => {
    if (m === null || typeof m !== 'object') return false;
    const { from, to } = m as Record<string, unknown>;
    if (typeof from !== 'string' || typeof to !== 'string' || !name(from, phases)) return false;
    const v = /^(v\d+(?:\.\d+)*)-phases\/(.*)$/.exec(to.startsWith(archive) ? to.slice(archive.length) : '');
    return !!v && v[2] === path.basename(from);
  };
  if (!moves || !moves.every(ok)) throw refused(`${ctx.rel(journal)} is not a cleanup journal this version wrote (moves from ${phases}<folder> to ${archive}<version>-phases/<folder>); delete it and run cleanup again`);
  return moves as Move[];
}

const cleanup: Handler = (inv, ctx) =>
  withPlanningLock(ctx, () => {
    const journal = ctx.planningPath('milestones', JOURNAL);
    const dryRun = bool(inv, '--dry-run');
    const files = (ms: Move[]) => ms.flatMap((m) => [m.from, m.to]);
    if (exists(journal)) {
      const moves = readJournal(ctx, journal);
      if (dryRun) return { data: { dry_run: true, resumed: true, moves, kept: [], files: files(moves) } };
      const done = runJournal(ctx, journal, moves);
      return { data: { dry_run: false, resumed: true, moves, moved: done.length, kept: [], files: files(moves) } };
    }
    const { moves, kept } = planCleanup(ctx);
    if (dryRun || moves.length === 0) return { data: { dry_run: dryRun, resumed: false, moves, moved: 0, kept, files: files(moves) } };
    writeAtomic(journal, `${JSON.stringify({ moves: moves.map(({ from, to }) => ({ from, to })) }, null, 2)}\n`);
    const done = runJournal(ctx, journal, moves);
    return { data: { dry_run: false, resumed: false, moves, moved: done.length, kept, files: files(moves) } };
  });

export const handlers: Record<string, Handler> = { 'milestone complete': complete, 'milestone summary': summary, 'milestone cleanup': cleanup };
