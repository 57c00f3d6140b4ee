// Phase numbers, phase directories (`NN-slug`) and the plans inside them.
// Phase grammar: digits, an optional capital letter, then `.digits` parts
// (4, 04, 12A, 2.1). Directories pad the integer part to two digits; an
// optional project-code prefix (`ABC-01-setup`) is ignored when matching.
import path from 'node:path';
import { isDir, listDir, readTextIfExists } from '../core/fs.ts';
import { readFrontmatter, type YamlMap } from '../md/frontmatter.ts';

export interface PhaseId {
  int: number;
  letter: string;
  decimals: number[];
}

const ID_RE = /^(?:[A-Z][A-Z0-9_]*-)?(\d{1,4})([A-Z]?)((?:\.\d{1,3})*)$/;

export function parsePhaseId(s: string): PhaseId | null {
  const m = ID_RE.exec(s.trim());
  if (!m) return null;
  const decimals = m[3] ? m[3].slice(1).split('.').map(Number) : [];
  return { int: Number(m[1]), letter: m[2]!, decimals };
}

export function formatPhase(id: PhaseId, pad = true): string {
  const int = pad ? String(id.int).padStart(2, '0') : String(id.int);
  return `${int}${id.letter}${id.decimals.map((d) => `.${d}`).join('')}`;
}

/** `1` → `01`, `2.1` → `02.1`, `12A` → `12A`; unchanged when not a phase number. */
export function normalizePhase(s: string): string {
  const id = parsePhaseId(s);
  return id ? formatPhase(id) : s;
}

/** `01` → `1`, `02.1` → `2.1`: the form used in roadmap headings. */
export function displayPhase(s: string): string {
  const id = parsePhaseId(s);
  return id ? formatPhase(id, false) : s;
}

export function comparePhase(a: string, b: string): number {
  const x = parsePhaseId(a);
  const y = parsePhaseId(b);
  if (!x || !y) return a < b ? -1 : a > b ? 1 : 0;
  if (x.int !== y.int) return x.int - y.int;
  if (x.letter !== y.letter) return x.letter < y.letter ? -1 : 1;
  for (let i = 0; i < Math.max(x.decimals.length, y.decimals.length); i++) {
    const d = (x.decimals[i] ?? -1) - (y.decimals[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

export function samePhase(a: string, b: string): boolean {
  return parsePhaseId(a) !== null && comparePhase(a, b) === 0;
}

/** Sentinels never count toward a milestone: 0 (pre-milestone) and 999.x (backlog). */
export function isSentinel(phase: string): boolean {
  const id = parsePhaseId(phase);
  return !!id && (id.int === 0 || id.int === 999);
}

export function slugify(text: string, max = 60): string {
  const base = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return base.slice(0, max).replace(/-+$/g, '');
}

export interface PhaseDir {
  /** Absolute path. */
  dir: string;
  name: string;
  /** Normalised phase number (`02.1`). */
  number: string;
  slug: string;
}

const DIR_RE = /^(?:[A-Z][A-Z0-9_]*-)?(\d{1,4}[A-Z]?(?:\.\d{1,3})*)(?:-(.*))?$/;

export function phasesDir(planning: string): string {
  return path.join(planning, 'phases');
}

export function listPhaseDirs(planning: string): PhaseDir[] {
  return listPhaseDirsIn(phasesDir(planning));
}

/** Phase folders directly under `root` (`.planning/phases/`, or an archive such as `milestones/v1.0-phases/`). */
export function listPhaseDirsIn(root: string): PhaseDir[] {
  const out: PhaseDir[] = [];
  for (const name of listDir(root)) {
    const m = DIR_RE.exec(name);
    if (!m || !isDir(path.join(root, name))) continue;
    out.push({ dir: path.join(root, name), name, number: normalizePhase(m[1]!), slug: m[2] ?? '' });
  }
  return out.sort((a, b) => comparePhase(a.number, b.number) || (a.name < b.name ? -1 : 1));
}

export function findPhaseDir(planning: string, phase: string, dirs = listPhaseDirs(planning)): PhaseDir | null {
  const matches = dirs.filter((d) => samePhase(d.number, phase));
  return matches.length ? matches[matches.length - 1]! : null;
}

export interface PlanInfo {
  id: string;
  file: string;
  summary: string | null;
  superseded: boolean;
  frontmatter: YamlMap;
  /** Frontmatter parse error, if any (the plan still counts). */
  error?: string;
}

export interface PhaseScan {
  plans: PlanInfo[];
  /** Live (non-superseded) plans. */
  live: PlanInfo[];
  summaries: string[];
  files: string[];
}

function docId(name: string, kind: 'PLAN' | 'SUMMARY', phase: string): string | null {
  if (name.endsWith('-OUTLINE.md') || name.endsWith('.pre-bounce.md') || name.endsWith(`-${kind}-REVIEW.md`)) return null;
  const ph = '(?:[A-Z][A-Z0-9_]*-)?(\\d{1,4}[A-Z]?(?:\\.\\d{1,3})*)';
  let m = new RegExp(`^${ph}-(\\d{2,3})(?:-[^/]*)?-${kind}\\.md$`).exec(name);
  if (m) return `${normalizePhase(m[1]!)}-${m[2]}`;
  m = new RegExp(`^${ph}-${kind}-(\\d{2,3})\\.md$`).exec(name);
  if (m) return `${normalizePhase(m[1]!)}-${m[2]}`;
  m = new RegExp(`^${kind}(?:-(\\d{2,3}))?\\.md$`).exec(name);
  if (m) return `${normalizePhase(phase)}-${m[1] ?? '01'}`;
  return null;
}

/**
 * A replaced plan: `status: superseded` (what replanning sets), or a
 * `superseded_by:` naming its replacement. It stays on disk as history and
 * drops out of every count, index and reading list.
 */
export function isSuperseded(frontmatter: YamlMap): boolean {
  const by = frontmatter.superseded_by;
  return String(frontmatter.status ?? '').toLowerCase() === 'superseded' || (by !== undefined && by !== null && by !== '' && by !== false);
}

/** Plans and summaries of a phase directory, paired by plan ID. */
export function scanPhase(dir: string, phase: string): PhaseScan {
  const names = [...listDir(dir).map((n) => ({ n, p: path.join(dir, n) })), ...listDir(path.join(dir, 'plans')).map((n) => ({ n, p: path.join(dir, 'plans', n) }))];
  const summaries = new Map<string, string>();
  const planFiles: { id: string; p: string }[] = [];
  for (const { n, p } of names) {
    const s = docId(n, 'SUMMARY', phase);
    if (s) summaries.set(s, p);
    const id = docId(n, 'PLAN', phase);
    if (id) planFiles.push({ id, p });
  }
  const plans: PlanInfo[] = planFiles
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ id, p }) => {
      let frontmatter: YamlMap = {};
      let error: string | undefined;
      try {
        frontmatter = readFrontmatter(readTextIfExists(p) ?? '', p).data;
      } catch (e) {
        error = (e as Error).message;
      }
      return { id, file: p, summary: summaries.get(id) ?? null, superseded: isSuperseded(frontmatter), frontmatter, ...(error ? { error } : {}) };
    });
  return {
    plans,
    live: plans.filter((p) => !p.superseded),
    summaries: [...summaries.values()].sort(),
    files: names.map((x) => x.n),
  };
}

export type DiskStatus = 'no_directory' | 'empty' | 'partial' | 'complete';

export function diskStatus(scan: PhaseScan | null): DiskStatus {
  if (!scan) return 'no_directory';
  if (scan.live.length === 0) return 'empty';
  return scan.live.every((p) => p.summary) ? 'complete' : 'partial';
}

/** A phase file by suffix, prefixed (`03-CONTEXT.md`) or bare (`CONTEXT.md`). */
export function phaseFile(dir: string, suffix: string): string | null {
  // The prefix is the phase number (`03-`, `02.1-`, `ABC-03-`), so it ends in a
  // digit: `03-UI-REVIEW.md` is not the REVIEW file.
  const tail = `-${suffix}.md`;
  for (const n of listDir(dir)) {
    if (n === `${suffix}.md` || (n.endsWith(tail) && /\d$/.test(n.slice(0, -tail.length)))) return path.join(dir, n);
  }
  return null;
}
