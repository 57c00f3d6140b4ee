// phase find | plan-index | next-decimal | add | insert | remove | edit | complete
import fs from 'node:fs';
import path from 'node:path';
import { str, bool } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, refused } from '../core/errors.ts';
import { readText, readTextIfExists, writeSet } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { deletePhase, editPhaseFields, insertPhase, parseUserStory, renumberPhases, setBulletChecked, syncPlanBoxes, upsertProgressRow } from '../planning/roadmap-edit.ts';
import { countedPhases, parseRoadmap } from '../planning/roadmap.ts';
import {
  comparePhase,
  displayPhase,
  formatPhase,
  isSentinel,
  listPhaseDirs,
  normalizePhase,
  parsePhaseId,
  phaseFile,
  phasesDir,
  scanPhase,
  slugify,
} from '../planning/phases.ts';
import { phaseInfo, roadmapFor, verificationStatus } from '../planning/phase-info.ts';
import { markRequirements } from '../planning/requirements.ts';
import { evolveProject, phaseDecisions, requirementTexts } from '../planning/project.ts';
import { computeProgress, progressBar } from '../planning/progress.ts';
import { mutateState, setField, statePath } from '../planning/state.ts';
import { findField } from '../md/body.ts';
import { dependencyNumbers, requireRoadmap } from './roadmap.ts';
import { archivedMilestones } from './milestone.ts';
import type { Handler } from '../cli/handler.ts';

const find: Handler = (inv, ctx) => {
  const info = phaseInfo(ctx, inv.args.phase!);
  if (!info.dir || !info.scan) {
    return {
      data: {
        found: false,
        directory: null,
        phase_number: info.padded,
        phase_name: info.name,
        plans: [],
        summaries: [],
        plan_count: 0,
        summary_count: 0,
        plan_count_all: 0,
        searched_directories: listPhaseDirs(ctx.planning).map((d) => ctx.rel(d.dir)),
      },
    };
  }
  return {
    data: {
      found: true,
      directory: ctx.rel(info.dir.dir),
      phase_number: info.padded,
      phase_name: info.name,
      plans: info.scan.live.map((p) => path.basename(p.file)),
      summaries: info.scan.summaries.map((s) => path.basename(s)),
      plan_count: info.scan.live.length,
      summary_count: info.scan.live.filter((p) => p.summary).length,
      plan_count_all: info.scan.plans.length,
    },
    raw: ctx.rel(info.dir.dir),
  };
};

function asList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((x) => String(x));
  if (v === null || v === undefined || v === '') return [];
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * Plans of a phase with waves and what can run now. `gapsOnly` keeps the plans
 * with `gap_closure: true` (a plan outside them still satisfies a depends_on
 * once its summary exists).
 */
export function planIndex(ctx: Ctx, phase: string, opts: { gapsOnly?: boolean } = {}) {
  const info = phaseInfo(ctx, phase);
  const all = (info.scan?.live ?? []).map((p) => {
    const text = readTextIfExists(p.file) ?? '';
    const fm = p.frontmatter;
    const objective = /<objective>\s*([\s\S]*?)\s*<\/objective>/.exec(text)?.[1]?.split('\n')[0]?.trim() ?? null;
    const tasks = [...text.matchAll(/<task\b([^>]*)>/g)];
    const waveNum = Number(fm.wave);
    return {
      id: p.id,
      file: path.basename(p.file),
      wave: Number.isInteger(waveNum) && waveNum > 0 ? waveNum : 1,
      depends_on: asList(fm.depends_on).map((d) => (/^\d+$/.test(d) ? `${info.padded}-${d.padStart(2, '0')}` : d)),
      autonomous: fm.autonomous !== false && fm.autonomous !== 'false',
      objective,
      files_modified: asList(fm.files_modified),
      files_deleted: asList(fm.files_deleted),
      agent_hint: typeof fm.agent_hint === 'string' ? fm.agent_hint : null,
      task_count: tasks.length,
      has_checkpoint: tasks.some((t) => /type\s*=\s*"checkpoint/.test(t[1]!)),
      has_summary: !!p.summary,
      gap_closure: fm.gap_closure === true || fm.gap_closure === 'true',
      gap_ids: asList(fm.gap_ids),
      ...(p.error ? { frontmatter_error: p.error } : {}),
    };
  });
  const done = new Set(all.filter((p) => p.has_summary).map((p) => p.id));
  const plans = opts.gapsOnly ? all.filter((p) => p.gap_closure) : all;
  const waves: Record<string, string[]> = {};
  for (const p of [...plans].sort((a, b) => a.wave - b.wave)) (waves[String(p.wave)] ??= []).push(p.id);
  const incomplete = plans.filter((p) => !p.has_summary);
  const blocked: Record<string, string[]> = {};
  const runnable: string[] = [];
  for (const p of incomplete) {
    const waiting = p.depends_on.filter((d) => !done.has(d));
    if (waiting.length) blocked[p.id] = waiting;
    else runnable.push(p.id);
  }
  return {
    phase: info.padded,
    directory: info.dir ? ctx.rel(info.dir.dir) : null,
    plans,
    waves,
    incomplete: incomplete.map((p) => p.id),
    runnable,
    blocked_by: blocked,
    has_checkpoints: plans.some((p) => p.has_checkpoint),
    gaps_only: !!opts.gapsOnly,
  };
}

const planIndexCmd: Handler = (inv, ctx) => ({ data: planIndex(ctx, inv.args.phase!, { gapsOnly: bool(inv, '--gaps-only') }) });

/** Every phase number known from the roadmap (whole file) and the disk. */
function knownPhases(ctx: Ctx): string[] {
  const rm = roadmapFor(ctx);
  const set = new Set<string>(listPhaseDirs(ctx.planning).map((d) => d.number));
  for (const p of rm?.allPhases ?? []) set.add(p.norm);
  for (const b of rm?.bullets ?? []) set.add(b.norm);
  return [...set].sort(comparePhase);
}

/** The integer phase after every phase the roadmap or the disk knows (sentinels such as 999 aside). */
export function nextPhaseNumber(ctx: Ctx): string {
  const ints = knownPhases(ctx).filter((n) => !isSentinel(n)).map((n) => parsePhaseId(n)!.int);
  return String((ints.length ? Math.max(...ints) : 0) + 1);
}

/** Whether the roadmap or the disk already has phase `number`. */
export const phaseKnown = (ctx: Ctx, number: string): boolean => knownPhases(ctx).includes(normalizePhase(number));

function nextDecimal(ctx: Ctx, base: string): { next: string; existing: string[] } {
  const id = parsePhaseId(base)!;
  const existing = knownPhases(ctx).filter((n) => {
    const x = parsePhaseId(n)!;
    return x.int === id.int && x.letter === id.letter && x.decimals.length === id.decimals.length + 1 && x.decimals.slice(0, -1).join('.') === id.decimals.join('.');
  });
  const max = existing.reduce((m, n) => Math.max(m, parsePhaseId(n)!.decimals.at(-1)!), 0);
  return { next: formatPhase({ ...id, decimals: [...id.decimals, max + 1] }), existing };
}

const nextDecimalCmd: Handler = (inv, ctx) => {
  const base = normalizePhase(inv.args.phase!);
  const { next, existing } = nextDecimal(ctx, base);
  return { data: { found: knownPhases(ctx).includes(base), base_phase: base, next, existing }, raw: next };
};

/** Depends-on lines that named the removed phase now name what it depended on. */
function redirectDependencies(text: string, file: string, removed: string, itsDeps: string | null): string {
  const rm = parseRoadmap(text, file);
  const lines = [...rm.lines];
  const re = new RegExp(`\\bPhase\\s+0*${displayPhase(removed).replace(/\./g, '\\.')}\\b(?!\\.\\d)`, 'g');
  const replacement = itsDeps && !/^(nothing|none|-)?$/i.test(itsDeps.trim()) ? itsDeps.trim() : 'Nothing';
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*(?:[-*]\s+)?\*\*Depends on/i.test(lines[i]!)) continue;
    lines[i] = lines[i]!.replace(re, replacement).replace(/(Nothing)(,\s*Nothing)+/g, '$1');
  }
  return lines.join(rm.eol);
}

/** Keep STATE.md "Phase: X of Y (Name)" in step with a renumbered roadmap. */
function syncStatePosition(ctx: Ctx, mapping: Map<string, string>): boolean {
  if (readTextIfExists(statePath(ctx)) === null) return false;
  const rm = roadmapFor(ctx);
  const total = rm ? countedPhases(rm).length : null;
  const r = mutateState(ctx, (body) => {
    const f = findField(body.lines, 'Phase');
    const m = f ? /^(\S+)(\s+of\s+)(\d+)(.*)$/.exec(f.value) : null;
    if (!f || !m) return;
    const moved = mapping.get(normalizePhase(m[1]!));
    setField(body, 'Phase', `${moved ? displayPhase(moved) : m[1]}${m[2]}${total ?? m[3]}${m[4]}`);
  });
  return r.written;
}

function roadmapFile(ctx: Ctx): string {
  return ctx.planningPath('ROADMAP.md');
}

/** Add phase `number` to ROADMAP.md and make its directory; call under the planning lock. */
export function createPhase(ctx: Ctx, number: string, description: string, tag?: string) {
  const file = roadmapFile(ctx);
  const rel = ctx.rel(file);
  const before = readText(file);
  const name = description.trim().replace(/\s+/g, ' ');
  if (name === '') throw new CliError('invalid-args', 'phase description is empty');
  const slug = slugify(name) || 'phase';
  const padded = normalizePhase(number);
  const dir = path.join(phasesDir(ctx.planning), `${padded}-${slug}`);
  if (knownPhases(ctx).includes(padded)) throw refused(`phase ${displayPhase(number)} already exists`);
  const prev = countedPhases(parseRoadmap(before, rel)).filter((p) => comparePhase(p.norm, padded) < 0).pop();
  const after = insertPhase(before, rel, { number, name, tag, dependsOn: prev ? `Phase ${prev.number}` : 'Nothing' });
  writeSet([{ file, before, after }]);
  fs.mkdirSync(dir, { recursive: true });
  withLock(`${statePath(ctx)}.lock`, () => syncStatePosition(ctx, new Map()));
  return { phase_number: displayPhase(number), padded, name, slug, directory: ctx.rel(dir) };
}

const add: Handler = (inv, ctx) =>
  withLock(ctx.planningPath('.lock'), () => {
    requireRoadmap(ctx);
    const explicit = str(inv, '--id');
    let number: string;
    if (explicit) number = displayPhase(explicit);
    else number = nextPhaseNumber(ctx);
    const r = createPhase(ctx, number, inv.args.description!);
    return { data: { ...r, naming_mode: explicit ? 'explicit' : 'sequential' }, raw: r.phase_number };
  });

const insert: Handler = (inv, ctx) =>
  withLock(ctx.planningPath('.lock'), () => {
    const rm = requireRoadmap(ctx);
    const after = normalizePhase(inv.args.after!);
    if (!rm.allPhases.some((p) => p.norm === after) && !rm.bullets.some((b) => b.norm === after)) {
      throw new CliError('not-found', `${ctx.rel(roadmapFile(ctx))}: phase ${displayPhase(after)} is not in the roadmap`);
    }
    const { next } = nextDecimal(ctx, after);
    const r = createPhase(ctx, displayPhase(next), inv.args.description!, 'INSERTED');
    return { data: { ...r, after_phase: displayPhase(after) }, raw: r.phase_number };
  });

const remove: Handler = (inv, ctx) =>
  withLock(ctx.planningPath('.lock'), () =>
    withLock(`${statePath(ctx)}.lock`, () => {
      const file = roadmapFile(ctx);
      const rel = ctx.rel(file);
      requireRoadmap(ctx);
      const target = normalizePhase(inv.args.phase!);
      const tid = parsePhaseId(target)!;
      const info = phaseInfo(ctx, target);
      if (!info.roadmap && !info.bulletName && !info.dir) throw new CliError('not-found', `phase ${displayPhase(target)} is not in the roadmap or on disk`);
      const contents = info.dir ? fs.readdirSync(info.dir.dir) : [];
      const executed = info.scan?.plans.filter((p) => p.summary).length ?? 0;
      if (contents.length && !bool(inv, '--force')) {
        const what = executed ? `${executed} plan summar${executed === 1 ? 'y' : 'ies'}` : `${contents.length} file${contents.length === 1 ? '' : 's'}`;
        throw refused(`phase ${displayPhase(target)}: ${ctx.rel(info.dir!.dir)} holds ${what}; pass --force to delete it with the phase`);
      }
      // Later phases move down by one: integers for an integer phase, siblings for a decimal one.
      const mapping = new Map<string, string>();
      for (const n of knownPhases(ctx)) {
        const x = parsePhaseId(n)!;
        if (isSentinel(n) || comparePhase(n, target) <= 0) continue;
        if (tid.decimals.length === 0 && x.int > tid.int && x.letter === '' && tid.letter === '') mapping.set(n, formatPhase({ ...x, int: x.int - 1 }));
        else if (tid.decimals.length > 0 && x.int === tid.int && x.letter === tid.letter && x.decimals.length === tid.decimals.length &&
          x.decimals.slice(0, -1).join('.') === tid.decimals.slice(0, -1).join('.')) {
          mapping.set(n, formatPhase({ ...x, decimals: [...x.decimals.slice(0, -1), x.decimals.at(-1)! - 1] }));
        }
      }
      const before = readText(file);
      let after = deletePhase(before, rel, target);
      after = redirectDependencies(after, rel, target, info.roadmap?.dependsOn ?? null);
      after = renumberPhases(after, rel, mapping);
      // Directories: delete the removed one, then rename the later ones in ascending order.
      const renamedDirs: { from: string; to: string }[] = [];
      const renamedFiles: { from: string; to: string }[] = [];
      const collisions: string[] = [];
      const stateFile = statePath(ctx);
      const stateBefore = readTextIfExists(stateFile);
      writeSet([{ file, before, after }]);
      let directoryDeleted = false;
      if (info.dir) {
        fs.rmSync(info.dir.dir, { recursive: true, force: true });
        directoryDeleted = true;
      }
      for (const d of listPhaseDirs(ctx.planning).sort((a, b) => comparePhase(a.number, b.number))) {
        const to = mapping.get(d.number);
        if (!to) continue;
        const newName = `${to}${d.slug ? `-${d.slug}` : ''}`;
        const dest = path.join(phasesDir(ctx.planning), newName);
        if (fs.existsSync(dest)) {
          collisions.push(ctx.rel(dest));
          continue;
        }
        fs.renameSync(d.dir, dest);
        renamedDirs.push({ from: ctx.rel(d.dir), to: ctx.rel(dest) });
        for (const f of fs.readdirSync(dest).sort()) {
          if (!f.startsWith(`${d.number}-`)) continue;
          const nf = `${to}-${f.slice(d.number.length + 1)}`;
          if (fs.existsSync(path.join(dest, nf))) {
            collisions.push(ctx.rel(path.join(dest, nf)));
            continue;
          }
          fs.renameSync(path.join(dest, f), path.join(dest, nf));
          renamedFiles.push({ from: f, to: nf });
        }
      }
      let stateUpdated = false;
      if (stateBefore !== null) {
        stateUpdated = syncStatePosition(ctx, mapping);
      }
      return {
        data: {
          removed: displayPhase(target),
          directory_deleted: directoryDeleted,
          renamed_directories: renamedDirs,
          renamed_files: renamedFiles,
          renamed_file_collisions: collisions,
          renumbered: Object.fromEntries([...mapping].map(([a, b]) => [displayPhase(a), displayPhase(b)])),
          roadmap_updated: after !== before,
          state_updated: stateUpdated,
        },
      };
    }),
  );

/** phase edit: set the goal, dependencies or requirements of a planned phase (ROADMAP.md only). */
const edit: Handler = (inv, ctx) =>
  withLock(ctx.planningPath('.lock'), () => {
    const values = {
      Goal: str(inv, '--goal'),
      Mode: str(inv, '--mode'),
      'Depends on': str(inv, '--depends-on'),
      Requirements: str(inv, '--requirements'),
    };
    if (Object.values(values).every((v) => v === undefined)) throw new CliError('invalid-args', 'phase edit: give at least one of --goal, --mode, --depends-on, --requirements');
    for (const [k, v] of Object.entries(values)) if (v !== undefined && v.trim() === '') throw new CliError('invalid-args', `phase edit: --${k.toLowerCase().replace(/ /g, '-')} is empty; expected the new text`);
    const file = roadmapFile(ctx);
    const rel = ctx.rel(file);
    const rm = requireRoadmap(ctx);
    const info = phaseInfo(ctx, inv.args.phase!, rm);
    if (!info.roadmap) throw new CliError('not-found', `${rel}: phase ${info.number} has no section to edit`);
    if (rm.bullets.some((b) => b.norm === info.padded && b.checked) && !bool(inv, '--force')) throw refused(`phase ${info.number} is complete; pass --force to edit it anyway`);
    // Every phase a new **Depends on** line names must exist: here, on disk, or in an archived milestone.
    if (values['Depends on'] !== undefined) {
      // An archived milestone's phases sit in its archive: a new milestone's roadmap keeps them only inside <details>.
      const known = new Set([...knownPhases(ctx), ...archivedMilestones(ctx).flatMap((milestone) => [...milestone.phases])]);
      const unknown = dependencyNumbers(values['Depends on']).filter((d) => !known.has(d)).map(displayPhase);
      if (unknown.length) {
        const one = unknown.length === 1;
        throw new CliError('invalid-args', `phase edit: --depends-on names phase${one ? '' : 's'} ${unknown.join(', ')}, which ${one ? 'is' : 'are'} not in the roadmap, on disk or in an archived milestone`);
      }
    }
    // An MVP phase is planned as vertical slices of one user story: its goal must be that story.
    const goal = values.Goal ?? info.roadmap.goal ?? '';
    if ((values.Mode ?? info.roadmap.mode) === 'mvp' && (values.Mode !== undefined || values.Goal !== undefined) && !parseUserStory(goal)) {
      throw refused(`phase ${info.number}: an MVP phase's goal must be a user story, "As a <role>, I want to <capability>, so that <outcome>."; found "${goal}"`);
    }
    const before = readText(file);
    let r: ReturnType<typeof editPhaseFields>;
    try {
      r = editPhaseFields(before, rel, info.padded, Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string>);
    } catch (error) {
      throw new CliError('not-found', (error as Error).message);
    }
    if (r.text !== before) writeSet([{ file, before, after: r.text }]);
    const after = phaseInfo(ctx, info.padded);
    return { data: { phase: info.number, changed: r.changed, goal: after.roadmap?.goal ?? null, mode: after.roadmap?.mode ?? null, depends_on: after.roadmap?.dependsOn ?? null, requirements: after.roadmap?.requirements ?? [] } };
  });

const complete: Handler = (inv, ctx) =>
  withLock(ctx.planningPath('.lock'), () => {
    const file = roadmapFile(ctx);
    const rel = ctx.rel(file);
    const rm = requireRoadmap(ctx);
    const info = phaseInfo(ctx, inv.args.phase!, rm);
    if (!info.roadmap && !info.bulletName) throw new CliError('not-found', `${rel}: phase ${info.number} is not in the roadmap`);
    if (!info.dir || !info.scan) throw refused(`phase ${info.number} has no directory under .planning/phases/`);
    const missing = info.scan.live.filter((p) => !p.summary).map((p) => p.id);
    if (info.scan.live.length === 0) throw refused(`phase ${info.number} has no plans`);
    if (missing.length) throw refused(`phase ${info.number}: plans without a SUMMARY: ${missing.join(', ')}; run /gsd-execute-phase ${info.number}`, { missing_summaries: missing });
    const vfile = phaseFile(info.dir.dir, 'VERIFICATION');
    const vstatus = verificationStatus(vfile);
    if (vstatus !== 'passed') {
      throw refused(`phase ${info.number}: verification is ${vstatus} (VERIFICATION.md needs status: passed); run /gsd-verify-work ${info.number}`, { verification_status: vstatus });
    }
    const today = ctx.today();
    const plansExecuted = `${info.scan.live.length}/${info.scan.live.length}`;
    const roadmapBefore = readText(file);
    let roadmapAfter = setBulletChecked(roadmapBefore, rel, info.padded, true);
    roadmapAfter = syncPlanBoxes(roadmapAfter, rel, info.padded, info.scan.live.map((p) => p.id));
    roadmapAfter = upsertProgressRow(roadmapAfter, rel, info.padded, { name: info.name ?? '', plans: plansExecuted, status: 'Complete', completed: today });
    const reqFile = ctx.planningPath('REQUIREMENTS.md');
    const reqBefore = readTextIfExists(reqFile);
    const reqIds = info.roadmap?.requirements ?? [];
    const req = reqBefore !== null && reqIds.length ? markRequirements(reqBefore, reqIds) : null;
    const ordered = countedPhases(rm);
    const idx = ordered.findIndex((p) => p.norm === info.padded);
    const next = idx >= 0 ? (ordered[idx + 1] ?? null) : null;
    const projFile = ctx.planningPath('PROJECT.md');
    const projBefore = readTextIfExists(projFile);
    const evolved = projBefore === null ? null : evolveProject(projBefore, {
      phase: info.number,
      date: today,
      requirements: requirementTexts(req?.text ?? reqBefore ?? '', reqIds),
      decisions: phaseDecisions(readTextIfExists(statePath(ctx)) ?? '', info.number),
    });
    const projectWrite = evolved && projBefore !== null && evolved.text !== projBefore ? [{ file: projFile, before: projBefore, after: evolved.text }] : [];
    const warnings: string[] = [];
    if (req?.not_found.length) warnings.push(`requirements not found in REQUIREMENTS.md: ${req.not_found.join(', ')}`);
    return withLock(`${statePath(ctx)}.lock`, () => {
      writeSet([
        { file, before: roadmapBefore, after: roadmapAfter },
        ...(req && reqBefore !== null ? [{ file: reqFile, before: reqBefore, after: req.text }] : []),
        ...projectWrite,
      ]);
      let stateUpdated = false;
      if (readTextIfExists(statePath(ctx)) !== null) {
        try {
          const r = mutateState(ctx, (body) => {
            const total = ordered.length;
            if (next) {
              setField(body, 'Phase', `${next.number} of ${total} (${next.name})`);
              setField(body, 'Plan', 'Not started');
              setField(body, 'Status', 'Ready to plan');
            } else setField(body, 'Status', 'All phases complete');
            setField(body, 'Last activity', `${today} — Phase ${info.number} complete`);
            setField(body, 'Progress', progressBar(computeProgress(ctx.planning, roadmapFor(ctx)).percent));
          });
          stateUpdated = r.written;
        } catch (error) {
          // Put ROADMAP and REQUIREMENTS back: the three files change together or not at all.
          writeSet([
            { file, before: roadmapAfter, after: roadmapBefore },
            ...(req && reqBefore !== null ? [{ file: reqFile, before: req.text, after: reqBefore }] : []),
            ...projectWrite.map((w) => ({ file: w.file, before: w.after, after: w.before })),
          ]);
          throw error;
        }
      }
      return {
        data: {
          completed_phase: info.number,
          phase_name: info.name,
          plans_executed: plansExecuted,
          next_phase: next ? next.number : null,
          next_phase_name: next ? next.name : null,
          is_last_phase: !next,
          date: today,
          roadmap_updated: roadmapAfter !== roadmapBefore,
          state_updated: stateUpdated,
          requirements_updated: !!req && req.text !== reqBefore,
          requirements_marked: req?.marked ?? [],
          project_updated: projectWrite.length > 0,
          project_validated: evolved?.validated ?? [],
          project_decisions: evolved?.decisions ?? [],
          warnings,
          has_warnings: warnings.length > 0,
        },
      };
    });
  });

export const handlers: Record<string, Handler> = {
  'phase find': find,
  'phase plan-index': planIndexCmd,
  'phase next-decimal': nextDecimalCmd,
  'phase add': add,
  'phase insert': insert,
  'phase remove': remove,
  'phase edit': edit,
  'phase complete': complete,
};
