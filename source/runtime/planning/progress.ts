// Progress counts from the phase directories of the current milestone,
// combined with the roadmap's phase list.
import path from 'node:path';
import { readTextIfExists } from '../core/fs.ts';
import { countedPhases, parseRoadmap, type Roadmap } from './roadmap.ts';
import { diskStatus, isSentinel, listPhaseDirs, scanPhase, type PhaseScan } from './phases.ts';

export interface Progress {
  total_phases: number;
  completed_phases: number;
  total_plans: number;
  completed_plans: number;
  percent: number;
}

export function loadRoadmap(planning: string, stateMilestone?: string | null): Roadmap | null {
  const file = path.join(planning, 'ROADMAP.md');
  const text = readTextIfExists(file);
  return text === null ? null : parseRoadmap(text, path.relative(path.dirname(planning), file).split(path.sep).join('/'), stateMilestone);
}

export function computeProgress(planning: string, roadmap: Roadmap | null): Progress {
  const scans = new Map<string, PhaseScan>();
  for (const d of listPhaseDirs(planning)) {
    if (isSentinel(d.number)) continue;
    scans.set(d.number, scanPhase(d.dir, d.number)); // newest directory of a number wins
  }
  const numbers = new Set<string>(scans.keys());
  const checked = new Set<string>();
  if (roadmap) {
    for (const p of countedPhases(roadmap)) numbers.add(p.norm);
    for (const b of roadmap.bullets) if (b.checked) checked.add(b.norm);
  }
  let completed = 0;
  let plans = 0;
  let done = 0;
  for (const n of numbers) {
    const scan = scans.get(n) ?? null;
    if (scan) {
      plans += scan.live.length;
      done += scan.live.filter((p) => p.summary).length;
    }
    if (diskStatus(scan) === 'complete' || checked.has(n)) completed++;
  }
  const phasePct = numbers.size ? completed / numbers.size : 0;
  const planPct = plans ? done / plans : phasePct;
  return {
    total_phases: numbers.size,
    completed_phases: completed,
    total_plans: plans,
    completed_plans: done,
    percent: Math.floor(Math.min(phasePct, planPct) * 100),
  };
}

export function progressBar(percent: number, width = 10): string {
  const filled = Math.round((percent / 100) * width);
  return `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}] ${percent}%`;
}
