// health [--repair]: check .planning/ for every problem this CLI can detect.
// Each finding says whether the CLI can repair it; `--repair` repairs all of
// those (leftover temp files, locks whose holder is dead, a STATE.md
// frontmatter that does not parse or is out of step with its body, config
// values of the wrong type), then checks again and reports what is left: the
// findings that need a person, each with its fix. Exit code: 0 when nothing
// is left to report, 1 when anything is (the JSON answer is printed either
// way). Only files inside .planning/ are ever touched, and a file that is
// rewritten because it did not parse keeps its old bytes beside it
// (<name>.broken-<stamp>).
import fs from 'node:fs';
import path from 'node:path';
import { bool } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { BROKEN_PATTERN, keepBroken } from '../core/broken.ts';
import { TEMP_PATTERN, exists, listDir, readTextIfExists, safeUnlink, writeAtomic } from '../core/fs.ts';
import { parseJson } from '../core/json.ts';
import { inspectLock, withLock } from '../core/lock.ts';
import { describeProblem, forgetConfig, setPath, sortConfig, type JsonMap } from '../config/config.ts';
import { listPhaseDirs } from '../planning/phases.ts';
import { STATE_HEAL_CODE, currentFrontmatter, mutateState, parseStateHealing, statePath } from '../planning/state.ts';
import { deepEqual } from '../core/equal.ts';
import { parseRoadmap } from '../planning/roadmap.ts';
import type { Handler } from '../cli/handler.ts';

interface Finding {
  code: string;
  message: string;
  fix: string;
  repairable: boolean;
  severity: 'error' | 'warning';
  /** Does the repair; returns what it did. Only on repairable findings. */
  repair?: () => string | string[] | null;
}

const REPAIR = 'gsd-tools health --repair';

function walk(dir: string, depth: number, out: string[]): void {
  if (depth < 0) return;
  for (const name of listDir(dir)) {
    const p = path.join(dir, name);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(p, depth - 1, out);
    else out.push(p);
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function checkConfigFile(ctx: Ctx, findings: Finding[], info: string[]): void {
  const file = ctx.planningPath('config.json');
  const label = ctx.rel(file);
  const text = readTextIfExists(file);
  if (text === null) {
    info.push(`${label} does not exist: every setting has its default`);
    return;
  }
  let sorted: ReturnType<typeof sortConfig>;
  try {
    sorted = sortConfig(parseJson(text, label), text, label);
  } catch (error) {
    findings.push({ code: 'config-invalid', severity: 'error', message: (error as Error).message, fix: `fix the named line of ${label}`, repairable: false });
    return;
  }
  for (const w of sorted.warnings) findings.push({ code: 'config-unknown-key', severity: 'warning', message: w, fix: 'rename the key if it is a misspelling, else remove it', repairable: false });
  for (const p of sorted.problems) {
    findings.push({
      code: 'config-invalid-value',
      severity: 'warning',
      message: `${label}${p.line ? `:${p.line}` : ''}: ${describeProblem(p)}`,
      fix: `${REPAIR} (removes the value so the default applies), or gsd-tools config-set ${p.key} <value>`,
      repairable: true,
      // One repair takes out every wrong value at once (one kept copy); later ones find nothing left.
      repair: () =>
        withLock(ctx.planningPath('.lock'), () => {
          // Read again under the lock: the file may have changed since the check.
          const now = readTextIfExists(file);
          if (now === null) return null;
          const again = sortConfig(parseJson(now, label), now, label).problems;
          if (again.length === 0) return null;
          const raw = parseJson(now, label) as JsonMap;
          for (const q of again) setPath(raw, q.key, undefined);
          const kept = ctx.rel(keepBroken(file, now, ctx.now()));
          writeAtomic(file, `${JSON.stringify(raw, null, 2)}\n`);
          forgetConfig(ctx);
          return again.map((q) => `removed ${q.key} from ${label} (was ${JSON.stringify(q.found)}; ${q.fallback === undefined ? 'no default' : `default ${JSON.stringify(q.fallback)}`} applies); old bytes kept in ${kept}`);
        }),
    });
  }
}

function checkState(ctx: Ctx, findings: Finding[]): void {
  const stateFile = statePath(ctx);
  const label = ctx.rel(stateFile);
  const text = readTextIfExists(stateFile);
  if (text === null) return;
  try {
    const sf = parseStateHealing(text, label);
    if (sf.healed) {
      findings.push({
        code: STATE_HEAL_CODE,
        severity: 'warning',
        message: `${label}:${sf.healed.line}: frontmatter does not parse (${sf.healed.problem}); commands read it as rebuilt from the body`,
        fix: `${REPAIR} (rebuilds it from the body and keeps the old bytes beside it)`,
        repairable: true,
        repair: () => {
          const r = mutateState(ctx, () => undefined, { resync: true });
          return r.written ? `rebuilt the ${label} frontmatter from its body; old bytes kept in ${r.kept ?? '(none)'}` : null;
        },
      });
      return;
    }
    const derived = currentFrontmatter(ctx, sf);
    const drift = Object.keys(derived).filter((k) => k !== 'last_updated' && !deepEqual(derived[k], sf.fm.data[k], { orderedKeys: true }));
    if (drift.length) {
      findings.push({
        code: 'state-frontmatter-drift',
        severity: 'warning',
        message: `${label} frontmatter differs from its body/disk for: ${drift.join(', ')}`,
        fix: REPAIR,
        repairable: true,
        repair: () => {
          const r = mutateState(ctx, () => undefined, { resync: true });
          return r.written ? `re-derived ${label} frontmatter (${drift.join(', ')})` : null;
        },
      });
    }
  } catch (error) {
    findings.push({ code: 'state-malformed', severity: 'error', message: (error as Error).message, fix: `fix the named line of ${label}`, repairable: false });
  }
}

function check(ctx: Ctx): { findings: Finding[]; info: string[] } {
  const findings: Finding[] = [];
  const info: string[] = [];
  const planning = ctx.planning;
  for (const f of ['PROJECT.md', 'ROADMAP.md', 'STATE.md']) {
    const file = ctx.rel(ctx.planningPath(f));
    if (!exists(ctx.planningPath(f))) findings.push({ code: 'missing-file', severity: 'warning', message: `${file} does not exist`, fix: `create ${file}`, repairable: false });
  }
  checkConfigFile(ctx, findings, info);
  checkState(ctx, findings);
  const roadmapFile = ctx.planningPath('ROADMAP.md');
  const roadmapText = readTextIfExists(roadmapFile);
  if (roadmapText !== null) {
    try {
      const rm = parseRoadmap(roadmapText, ctx.rel(roadmapFile));
      info.push(`roadmap: ${rm.phases.length} phase(s) in scope, scope ${rm.scope}`);
      if (rm.scope === 'unscoped') findings.push({ code: 'roadmap-unscoped', severity: 'warning', message: 'ROADMAP.md has milestone headings but none is active or matches STATE.md milestone', fix: 'mark the current milestone heading with 🚧 or set STATE.md milestone', repairable: false });
    } catch (error) {
      findings.push({ code: 'roadmap-malformed', severity: 'error', message: (error as Error).message, fix: `fix the named line of ${ctx.rel(roadmapFile)}`, repairable: false });
    }
  }
  const phasesRoot = ctx.planningPath('phases');
  const valid = new Set(listPhaseDirs(planning).map((d) => d.name));
  for (const name of listDir(phasesRoot)) {
    if (!valid.has(name) && fs.statSync(path.join(phasesRoot, name)).isDirectory()) {
      findings.push({ code: 'phase-dir-name', severity: 'warning', message: `${ctx.rel(path.join(phasesRoot, name))} is not named NN-slug`, fix: 'rename it to <phase>-<slug>, e.g. 03-auth', repairable: false });
    }
  }
  const files: string[] = [];
  walk(planning, 4, files);
  const kept: string[] = [];
  for (const f of files) {
    const base = path.basename(f);
    if (BROKEN_PATTERN.test(base)) kept.push(ctx.rel(f));
    else if (TEMP_PATTERN.test(base)) {
      const pid = Number(/\.(\d+)\.\d+[a-z0-9]*\.gsd-tmp$/.exec(base)?.[1]);
      if (pidAlive(pid)) continue;
      findings.push({
        code: 'leftover-temp',
        severity: 'warning',
        message: `${ctx.rel(f)} is a temp file left by an interrupted write`,
        fix: REPAIR,
        repairable: true,
        repair: () => {
          safeUnlink(f);
          return `removed leftover temp file ${ctx.rel(f)}`;
        },
      });
    } else if (base.endsWith('.lock') || /\.lock\.stale-/.test(base)) {
      const lock = inspectLock(f);
      if (!lock || lock.alive) continue;
      if (lock.ageMs < 1000 && lock.pid === null) continue;
      findings.push({
        code: 'stale-lock',
        severity: 'warning',
        message: `${ctx.rel(f)} is held by ${lock.pid ? `dead process ${lock.pid}` : 'nobody'}`,
        fix: `${REPAIR} (any command also recovers it)`,
        repairable: true,
        repair: () => {
          safeUnlink(f);
          return `removed stale lock ${ctx.rel(f)}${lock.pid ? ` (pid ${lock.pid} is gone)` : ''}`;
        },
      });
    }
  }
  if (kept.length) info.push(`copies kept by earlier repairs (delete them once you have looked): ${kept.join(', ')}`);
  return { findings, info };
}

const health: Handler = (inv, ctx) => {
  if (!exists(ctx.sharedPlanning)) throw new CliError('not-found', 'no .planning/ directory');
  const repair = bool(inv, '--repair');
  const repaired: string[] = [];
  const failedRepairs: string[] = [];
  let result = check(ctx);
  if (repair && result.findings.some((f) => f.repair)) {
    // Temp files and locks first: a stale STATE.md.lock would otherwise hold up the STATE repair.
    const order = (f: Finding) => (f.code === 'leftover-temp' || f.code === 'stale-lock' ? 0 : 1);
    for (const f of [...result.findings].sort((a, b) => order(a) - order(b))) {
      if (!f.repair) continue;
      try {
        const done = f.repair();
        if (done) repaired.push(...(Array.isArray(done) ? done : [done]));
      } catch (error) {
        failedRepairs.push(`${f.code}: ${(error as Error).message}`);
      }
    }
    // What the repairs printed is in `repaired`; the second look reports what is left.
    ctx.warnings.length = 0;
    forgetConfig(ctx);
    result = check(ctx);
  }
  const left = result.findings;
  const errors = left.filter((f) => f.severity === 'error').map(({ code, message, fix, repairable }) => ({ code, message, fix, repairable }));
  const warnings = left.filter((f) => f.severity === 'warning').map(({ code, message, fix, repairable }) => ({ code, message, fix, repairable }));
  const needsPerson = left.filter((f) => !f.repairable).map((f) => `${f.code}: ${f.message}`);
  const status = errors.length ? 'broken' : warnings.length ? 'degraded' : 'healthy';
  const info = [...result.info, ...failedRepairs.map((x) => `repair failed: ${x}`)];
  return {
    data: { status, errors, warnings, info, repaired, needs_person: needsPerson },
    raw: status,
    exitCode: status === 'healthy' ? 0 : 1,
  };
};

export const handlers: Record<string, Handler> = { health };
