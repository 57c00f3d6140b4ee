// health [--repair]: check .planning/ for the problems this CLI can detect,
// and with --repair fix the safe ones: our own leftover temp files, locks
// whose holder is dead, and a STATE.md frontmatter out of step with its body.
// Only files inside .planning/ are ever touched.
import fs from 'node:fs';
import path from 'node:path';
import { bool } from '../cli/parse.ts';
import { CliError } from '../core/errors.ts';
import { TEMP_PATTERN, exists, listDir, readTextIfExists, safeUnlink } from '../core/fs.ts';
import { inspectLock } from '../core/lock.ts';
import { loadConfig } from '../config/config.ts';
import { listPhaseDirs } from '../planning/phases.ts';
import { currentFrontmatter, mutateState, parseState, statePath } from '../planning/state.ts';
import { deepEqual } from '../md/frontmatter.ts';
import { parseRoadmap } from '../planning/roadmap.ts';
import type { Handler } from '../main.ts';

interface Finding {
  code: string;
  message: string;
  fix: string;
  repairable: boolean;
}

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

const health: Handler = (inv, ctx) => {
  const repair = bool(inv, '--repair');
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const info: string[] = [];
  const repaired: string[] = [];
  const planning = ctx.planning;
  for (const f of ['PROJECT.md', 'ROADMAP.md', 'STATE.md', 'config.json']) {
    if (!exists(path.join(planning, f))) warnings.push({ code: 'missing-file', message: `.planning/${f} does not exist`, fix: f === 'config.json' ? 'gsd-tools config-set model_profile balanced' : `create .planning/${f}`, repairable: false });
  }
  try {
    loadConfig(ctx);
    for (const w of ctx.warnings.splice(0)) warnings.push({ code: 'config-unknown-key', message: w, fix: 'remove or rename the key', repairable: false });
  } catch (error) {
    errors.push({ code: 'config-invalid', message: (error as Error).message, fix: 'fix the named line of .planning/config.json', repairable: false });
  }
  const stateFile = statePath(ctx);
  const stateText = readTextIfExists(stateFile);
  let stateOk = false;
  if (stateText !== null) {
    try {
      const sf = parseState(stateText, ctx.rel(stateFile));
      stateOk = true;
      const derived = currentFrontmatter(ctx, sf);
      const drift = Object.keys(derived).filter((k) => k !== 'last_updated' && !deepEqual(derived[k], sf.fm.data[k]));
      if (drift.length) {
        if (repair) {
          const r = mutateState(ctx, () => undefined, { resync: true });
          if (r.written) repaired.push(`re-derived STATE.md frontmatter (${drift.join(', ')})`);
        } else warnings.push({ code: 'state-frontmatter-drift', message: `STATE.md frontmatter differs from its body/disk for: ${drift.join(', ')}`, fix: 'gsd-tools health --repair', repairable: true });
      }
    } catch (error) {
      errors.push({ code: 'state-malformed', message: (error as Error).message, fix: 'fix the named line of .planning/STATE.md', repairable: false });
    }
  }
  const roadmapFile = path.join(planning, 'ROADMAP.md');
  const roadmapText = readTextIfExists(roadmapFile);
  if (roadmapText !== null) {
    try {
      const rm = parseRoadmap(roadmapText, ctx.rel(roadmapFile));
      info.push(`roadmap: ${rm.phases.length} phase(s) in scope, scope ${rm.scope}`);
      if (rm.scope === 'unscoped') warnings.push({ code: 'roadmap-unscoped', message: 'ROADMAP.md has milestone headings but none is active or matches STATE.md milestone', fix: 'mark the current milestone heading with 🚧 or set STATE.md milestone', repairable: false });
    } catch (error) {
      errors.push({ code: 'roadmap-malformed', message: (error as Error).message, fix: 'fix the named line of .planning/ROADMAP.md', repairable: false });
    }
  }
  const phasesRoot = path.join(planning, 'phases');
  const valid = new Set(listPhaseDirs(planning).map((d) => d.name));
  for (const name of listDir(phasesRoot)) {
    if (!valid.has(name) && fs.statSync(path.join(phasesRoot, name)).isDirectory()) {
      warnings.push({ code: 'phase-dir-name', message: `.planning/phases/${name} is not named NN-slug`, fix: 'rename it to <phase>-<slug>, e.g. 03-auth', repairable: false });
    }
  }
  const files: string[] = [];
  walk(planning, 4, files);
  for (const f of files) {
    const base = path.basename(f);
    if (TEMP_PATTERN.test(base)) {
      const pid = Number(/\.(\d+)\.\d+[a-z0-9]*\.gsd-tmp$/.exec(base)?.[1]);
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = true;
      } catch {
        alive = false;
      }
      if (alive) continue;
      if (repair) {
        safeUnlink(f);
        repaired.push(`removed leftover temp file ${ctx.rel(f)}`);
      } else warnings.push({ code: 'leftover-temp', message: `${ctx.rel(f)} is a temp file left by an interrupted write`, fix: 'gsd-tools health --repair', repairable: true });
    } else if (base.endsWith('.lock') || /\.lock\.stale-/.test(base)) {
      const lock = inspectLock(f);
      if (!lock || lock.alive) continue;
      if (lock.ageMs < 1000 && lock.pid === null) continue;
      if (repair) {
        safeUnlink(f);
        repaired.push(`removed stale lock ${ctx.rel(f)}${lock.pid ? ` (pid ${lock.pid} is gone)` : ''}`);
      } else warnings.push({ code: 'stale-lock', message: `${ctx.rel(f)} is held by ${lock.pid ? `dead process ${lock.pid}` : 'nobody'}`, fix: 'gsd-tools health --repair (any command also recovers it)', repairable: true });
    }
  }
  if (!stateOk && stateText !== null && repair) info.push('STATE.md was not touched because it does not parse');
  const status = errors.length ? 'broken' : warnings.length ? 'degraded' : 'healthy';
  if (!exists(planning)) throw new CliError('not-found', 'no .planning/ directory');
  return { data: { status, errors, warnings, info, repaired }, raw: status };
};

export const handlers: Record<string, Handler> = { health };
