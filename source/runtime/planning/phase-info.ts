// Everything known about one phase, from the roadmap and its directory:
// the shared core of `phase find`, `roadmap get-phase` and `init`.
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { readTextIfExists } from '../core/fs.ts';
import { readFrontmatter } from '../md/frontmatter.ts';
import { parseStateHealing } from './state.ts';
import { loadRoadmap } from './progress.ts';
import { findPhase, type Roadmap, type RoadmapPhase } from './roadmap.ts';
import { diskStatus, displayPhase, findPhaseDir, normalizePhase, phaseFile, scanPhase, slugify, type PhaseDir, type PhaseScan } from './phases.ts';

export interface PhaseInfo {
  number: string;
  padded: string;
  roadmap: RoadmapPhase | null;
  bulletName: string | null;
  dir: PhaseDir | null;
  scan: PhaseScan | null;
  name: string | null;
  slug: string | null;
  expectedDir: string;
}

export function stateMilestone(ctx: Ctx): string | null {
  const text = readTextIfExists(ctx.planningPath('STATE.md'));
  if (!text) return null;
  try {
    // A broken frontmatter still gives its milestone when that key parses on its own.
    const m = parseStateHealing(text, 'STATE.md').fm.data.milestone;
    return typeof m === 'string' ? m : null;
  } catch {
    return null;
  }
}

export function roadmapFor(ctx: Ctx): Roadmap | null {
  return loadRoadmap(ctx.planning, stateMilestone(ctx));
}

export function phaseInfo(ctx: Ctx, phase: string, rm: Roadmap | null = roadmapFor(ctx)): PhaseInfo {
  const padded = normalizePhase(phase);
  const r = rm ? findPhase(rm, phase) : null;
  const bullet = rm?.bullets.find((b) => b.norm === padded) ?? null;
  const dir = findPhaseDir(ctx.planning, phase);
  const scan = dir ? scanPhase(dir.dir, padded) : null;
  const name = r?.name ?? bullet?.name ?? (dir?.slug ? dir.slug.replace(/-/g, ' ') : null);
  const slug = dir?.slug || (name ? slugify(name) : null);
  const expectedDir = ctx.planningPath('phases', slug ? `${padded}-${slug}` : padded);
  return { number: displayPhase(phase), padded, roadmap: r, bulletName: bullet?.name ?? null, dir, scan, name, slug, expectedDir };
}

/** Optional phase documents, by suffix: CONTEXT, RESEARCH, VERIFICATION, UAT, REVIEWS, PATTERNS, VALIDATION. */
export function phaseDocs(info: PhaseInfo): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const s of ['CONTEXT', 'RESEARCH', 'VERIFICATION', 'UAT', 'REVIEWS', 'PATTERNS', 'VALIDATION', 'UI-SPEC', 'UI-REVIEW', 'REVIEW', 'REVIEW-FIX', 'SECURITY', 'USER-SETUP', 'SPEC', 'AI-SPEC', 'EVAL-REVIEW']) {
    out[s] = info.dir ? phaseFile(info.dir.dir, s) : null;
  }
  return out;
}

export function verificationStatus(file: string | null): 'missing' | 'passed' | 'gaps_found' | 'human_needed' | 'unknown' {
  if (!file) return 'missing';
  try {
    const s = String(readFrontmatter(readTextIfExists(file) ?? '', file).data.status ?? '').toLowerCase();
    if (s === 'passed' || s === 'gaps_found' || s === 'human_needed') return s;
    return 'unknown';
  } catch {
    return 'unknown';
  }
}

export { diskStatus };
