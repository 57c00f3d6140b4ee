// uat record | gaps | diagnose | reconcile | audit: acceptance-test answers,
// the gaps they open, the debugger's diagnosis of each, closing a gap once the
// plans that name it (frontmatter gap_ids) have run, and what is still open
// across every phase. Formats in planning/uat.ts.
import path from 'node:path';
import { bool, list, str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, usage } from '../core/errors.ts';
import { isDir, listDir, readText, writeAtomic } from '../core/fs.ts';
import { readFrontmatter } from '../md/frontmatter.ts';
import { phaseDocs, phaseInfo, type PhaseInfo } from '../planning/phase-info.ts';
import { listPhaseDirs, listPhaseDirsIn, phaseFile, type PhaseDir } from '../planning/phases.ts';
import { withPlanningLock } from '../planning/records.ts';
import { diagnoseGap, isOpen, parseUat, reconcileGaps, recordResult, type Gap, type GapPlan, type TestResult } from '../planning/uat.ts';
import type { Handler } from '../cli/handler.ts';

function uatOf(ctx: Ctx, phase: string): { info: PhaseInfo; file: string; rel: string } {
  const info = phaseInfo(ctx, phase);
  const file = phaseDocs(info).UAT ?? null;
  if (!file) throw new CliError('not-found', `phase ${info.number} has no UAT.md${info.dir ? ` in ${ctx.rel(info.dir.dir)}` : ''}; expected one from \`template fill uat --phase ${info.number}\``);
  return { info, file, rel: ctx.rel(file) };
}

function asIds(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string' && v.trim() !== '') return v.split(',').map((s) => s.trim()).filter(Boolean);
  return [];
}

/** Live plans of the phase that close gaps: their ids, the gap ids they name, whether they ran. */
export function gapPlans(info: PhaseInfo): GapPlan[] {
  return (info.scan?.live ?? [])
    .filter((p) => p.frontmatter.gap_closure === true || p.frontmatter.gap_closure === 'true')
    .map((p) => ({ id: p.id, gap_ids: asIds(p.frontmatter.gap_ids), has_summary: !!p.summary }));
}

/** A gap as `uat gaps` lists it: the UAT.md gap's fields, where it came from, and whether its plans ran. */
interface ListedGap extends Omit<Gap, 'raw'> {
  source: 'uat' | 'verification';
  executed: boolean;
}

/** Gaps the verifier left in VERIFICATION.md (`gaps:` in its frontmatter), with `V-<phase>-<n>` ids unless they carry one. */
function verificationGaps(ctx: Ctx, padded: string, file: string | null): Omit<ListedGap, 'plans' | 'executed'>[] {
  if (!file) return [];
  const fm = readFrontmatter(readText(file), ctx.rel(file)).data;
  if (fm.status !== 'gaps_found' || !Array.isArray(fm.gaps)) return [];
  return fm.gaps.map((g, i) => {
    const m = g !== null && typeof g === 'object' && !Array.isArray(g) ? g : { truth: g };
    const truth = String(m.truth ?? m.reason ?? m.gap ?? '');
    return { id: typeof m.id === 'string' ? m.id : `V-${padded}-${i + 1}`, source: 'verification' as const, test: null, truth, severity: String(m.severity ?? 'major'), status: String(m.status ?? 'failed'), root_cause: typeof m.root_cause === 'string' ? m.root_cause : null };
  });
}

/** The next free plan number of the phase, superseded plans included. */
function nextPlanNumber(info: PhaseInfo): string {
  const used = (info.scan?.plans ?? []).map((p) => Number(/-(\d{2,3})$/.exec(p.id)?.[1] ?? 0));
  return String((used.length ? Math.max(...used) : 0) + 1).padStart(2, '0');
}

const gaps: Handler = (inv, ctx) => {
  const info = phaseInfo(ctx, inv.args.phase!);
  const docs = phaseDocs(info);
  const plans = gapPlans(info);
  const fromUat = docs.UAT ? parseUat(readText(docs.UAT), ctx.rel(docs.UAT)).gaps.map((g) => ({ id: g.id, source: 'uat' as const, test: g.test, truth: g.truth, severity: g.severity, status: g.status, root_cause: g.root_cause })) : [];
  const all: ListedGap[] = [...fromUat, ...verificationGaps(ctx, info.padded, docs.VERIFICATION ?? null)].map((g) => {
    const by = plans.filter((p) => p.gap_ids.includes(g.id));
    return { ...g, plans: by.map((p) => p.id), executed: by.length > 0 && by.every((p) => p.has_summary) };
  });
  const open = all.filter((g) => g.status !== 'resolved');
  return {
    data: {
      phase: info.number,
      padded_phase: info.padded,
      uat_path: docs.UAT ? ctx.rel(docs.UAT) : null,
      verification_path: docs.VERIFICATION ? ctx.rel(docs.VERIFICATION) : null,
      gaps: all,
      open: open.map((g) => g.id),
      undiagnosed: open.filter((g) => g.source === 'uat' && !g.root_cause).map((g) => g.id),
      unplanned: open.filter((g) => g.plans.length === 0).map((g) => g.id),
      gap_plans: plans,
      next_plan: nextPlanNumber(info),
    },
  };
};

const RESULTS: readonly TestResult[] = ['pass', 'issue', 'skipped', 'blocked'];

const record: Handler = (inv, ctx) => {
  const result = str(inv, '--result') as TestResult | undefined;
  if (!result || !RESULTS.includes(result)) throw usage(`uat record: --result must be one of ${RESULTS.join(', ')}`);
  const n = Number(inv.args.test);
  return withPlanningLock(ctx, () => {
    const { info, file, rel } = uatOf(ctx, inv.args.phase!);
    const r = recordResult(readText(file), rel, info.padded, n, { result, reported: str(inv, '--reported'), severity: str(inv, '--severity'), reason: str(inv, '--reason') }, ctx.now().toISOString());
    writeAtomic(file, r.text);
    return { data: { path: rel, test: n, result, gap_id: r.gap?.id ?? null, counts: r.counts, next_test: r.next ? { number: r.next.number, name: r.next.name } : null } };
  });
};

const diagnose: Handler = (inv, ctx) => {
  const rootCause = str(inv, '--root-cause');
  if (!rootCause) throw usage('uat diagnose: --root-cause is required (write "Inconclusive: ..." when the debugger found none)');
  return withPlanningLock(ctx, () => {
    const { file, rel } = uatOf(ctx, inv.args.phase!);
    const session = str(inv, '--session');
    const r = diagnoseGap(readText(file), rel, inv.args['gap-id']!, { root_cause: rootCause, files: list(inv, '--files'), fix: str(inv, '--fix'), session }, ctx.now().toISOString());
    writeAtomic(file, r.text);
    return { data: { path: rel, gap_id: r.gap.id, status: r.gap.status, undiagnosed: r.undiagnosed, all_diagnosed: r.undiagnosed.length === 0 } };
  });
};

const reconcile: Handler = (inv, ctx) =>
  withPlanningLock(ctx, () => {
    const { info, file, rel } = uatOf(ctx, inv.args.phase!);
    const before = readText(file);
    const r = reconcileGaps(before, rel, gapPlans(info), ctx.now().toISOString());
    if (r.text !== before) writeAtomic(file, r.text);
    return { data: { path: rel, resolved: r.resolved, open: r.open, retest: r.retest, updated: r.text !== before } };
  });

/** Test results that still need a person: never run, skipped or blocked. */
const OUTSTANDING: readonly string[] = ['pending', 'skipped', 'blocked'];

interface AuditItem {
  phase: string;
  milestone: string | null;
  file: string;
  kind: 'test' | 'gap' | 'human-check';
  id: string;
  name: string;
  status: string;
  detail: string | null;
}

/** The value of a `key: value` line inside a UAT test block. */
function blockField(lines: string[], start: number, end: number, key: string): string | null {
  for (let i = start + 1; i < end; i++) if (lines[i]!.startsWith(`${key}:`)) return lines[i]!.slice(key.length + 1).trim() || null;
  return null;
}

/** Phase folders to audit: the live ones, then (with archived) each `milestones/<v>-phases/` folder's. */
function auditedDirs(ctx: Ctx, archived: boolean): { dir: PhaseDir; milestone: string | null }[] {
  const live = listPhaseDirs(ctx.planning).map((dir) => ({ dir, milestone: null }));
  if (!archived) return live;
  const root = ctx.planningPath('milestones');
  const old = listDir(root)
    .filter((n) => /^v\d+(\.\d+)*-phases$/.test(n) && isDir(path.join(root, n)))
    .sort()
    .flatMap((n) => listPhaseDirsIn(path.join(root, n)).map((dir) => ({ dir, milestone: n.slice(0, -'-phases'.length) })));
  return [...old, ...live];
}

const audit: Handler = (inv, ctx) => {
  const items: AuditItem[] = [];
  const unreadable: { file: string; error: string }[] = [];
  let files = 0;
  const dirs = auditedDirs(ctx, bool(inv, '--archived'));
  for (const { dir, milestone } of dirs) {
    const at = { phase: dir.number, milestone };
    const uat = phaseFile(dir.dir, 'UAT');
    if (uat) {
      files++;
      try {
        const u = parseUat(readText(uat), ctx.rel(uat));
        for (const t of u.tests.filter((x) => OUTSTANDING.includes(x.result))) {
          items.push({ ...at, file: ctx.rel(uat), kind: 'test', id: String(t.number), name: t.name, status: t.result, detail: blockField(u.lines, t.start, t.end, 'reason') ?? blockField(u.lines, t.start, t.end, 'expected') });
        }
        for (const g of u.gaps.filter(isOpen)) items.push({ ...at, file: ctx.rel(uat), kind: 'gap', id: g.id, name: g.truth, status: g.status, detail: g.root_cause });
      } catch (error) {
        unreadable.push({ file: ctx.rel(uat), error: (error as Error).message });
      }
    }
    const ver = phaseFile(dir.dir, 'VERIFICATION');
    if (ver) {
      files++;
      try {
        const fm = readFrontmatter(readText(ver), ctx.rel(ver)).data;
        for (const g of verificationGaps(ctx, dir.number, ver).filter((x) => x.status !== 'resolved')) {
          items.push({ ...at, file: ctx.rel(ver), kind: 'gap', id: g.id, name: g.truth, status: g.status, detail: g.root_cause });
        }
        if (fm.status === 'human_needed') {
          const checks = Array.isArray(fm.human_checks) && fm.human_checks.length ? fm.human_checks : ['(the checks are listed in the file body)'];
          checks.forEach((c, i) => {
            const m = c !== null && typeof c === 'object' && !Array.isArray(c) ? c : { check: c };
            items.push({ ...at, file: ctx.rel(ver), kind: 'human-check', id: `H-${dir.number}-${i + 1}`, name: String(m.check ?? m.test ?? m.name ?? ''), status: 'human_needed', detail: typeof m.expected === 'string' ? m.expected : null });
          });
        }
      } catch (error) {
        unreadable.push({ file: ctx.rel(ver), error: (error as Error).message });
      }
    }
  }
  const count = (k: AuditItem['kind']) => items.filter((i) => i.kind === k).length;
  return {
    data: {
      phases_scanned: dirs.length,
      files_scanned: files,
      // Not clear while a file could not be read: it may hide open items.
      all_clear: items.length === 0 && unreadable.length === 0,
      counts: { total: items.length, tests: count('test'), gaps: count('gap'), human_checks: count('human-check'), unreadable: unreadable.length },
      phases: [...new Set(items.map((i) => `${i.milestone ? `${i.milestone}/` : ''}${i.phase}`))],
      items,
      unreadable,
    },
  };
};

export const handlers: Record<string, Handler> = {
  'uat record': record,
  'uat gaps': gaps,
  'uat diagnose': diagnose,
  'uat reconcile': reconcile,
  'uat audit': audit,
};
