// ROADMAP.md: phase sections (`### Phase 2.1: Name (INSERTED)`), the phase
// checklist, milestone windows and the Progress table. Parsing is strict
// where a later write would otherwise be ambiguous: a phase heading with a bad
// number, or the same phase twice in one window, is an error at file:line.
import { FileFormatError } from '../core/errors.ts';
import { fenceMask, headings, type Heading } from '../md/body.ts';
import { comparePhase, displayPhase, isSentinel, normalizePhase, parsePhaseId } from './phases.ts';

export interface RoadmapPhase {
  /** As written in the heading (`2.1`). */
  number: string;
  /** Normalised (`02.1`). */
  norm: string;
  name: string;
  tag: string | null;
  /** 0-based index of the heading line. */
  line: number;
  level: number;
  /** Section body range [start, end) in lines. */
  start: number;
  end: number;
  goal: string | null;
  dependsOn: string | null;
  requirements: string[] | null;
  successCriteria: string[];
  plansText: string | null;
  mode: string | null;
}

export interface RoadmapBullet {
  line: number;
  norm: string;
  number: string;
  name: string;
  checked: boolean;
}

export interface Milestone {
  version: string;
  name: string;
  line: number;
  level: number;
  status: 'closed' | 'active' | 'open';
}

export interface ProgressTable {
  header: number;
  columns: string[];
  rows: { line: number; norm: string | null; cells: string[] }[];
  col: { phase: number; plans: number; status: number; completed: number; milestone: number };
}

export interface Roadmap {
  file: string;
  lines: string[];
  eol: string;
  /** Phases in the current milestone window. */
  phases: RoadmapPhase[];
  /** Every phase heading in the file outside <details>. */
  allPhases: RoadmapPhase[];
  bullets: RoadmapBullet[];
  milestones: Milestone[];
  window: [number, number];
  scope: 'complete' | 'unscoped';
  current: Milestone | null;
  progress: ProgressTable | null;
  headings: Heading[];
}

const PHASE_HEADING = /^(?:\[[^\]]*\]\s*)?Phase\s+([^\s:()]+)\s*(?:\(([^)]*)\))?\s*:\s*(.*?)\s*$/;
const BULLET = /^\s*[-*]\s+\[( |x|X)\]\s+\*\*Phase\s+([^\s:*]+)\s*:\s*(.*?)\*\*/;
const CLOSED = /\b(?:CLOSED|ARCHIVED|ABANDONED|SHIPPED|FAILED|COMPLETE[D]?)\b|\u2705|\u{1F5C4}/iu; // ✅ 🗄
const ACTIVE = /\b(?:STARTED|ACTIVE|WIP|IN PROGRESS|CURRENT)\b|\u{1F6A7}|\u{1F504}/iu; // 🚧 🔄

function detailsMask(lines: string[], fence: boolean[]): boolean[] {
  const mask: boolean[] = [];
  let depth = 0;
  lines.forEach((line, i) => {
    if (!fence[i] && /<details\b/i.test(line)) depth++;
    mask.push(depth > 0);
    if (!fence[i] && /<\/details>/i.test(line)) depth = Math.max(0, depth - 1);
  });
  return mask;
}

function field(lines: string[], start: number, end: number, name: string): { value: string; line: number } | null {
  const re = new RegExp(`^\\s*(?:[-*]\\s+)?\\*\\*${name}(?::\\*\\*|\\*\\*\\s*:?)\\s*(.*)$`, 'i');
  for (let i = start; i < end; i++) {
    const m = re.exec(lines[i]!);
    if (m) return { value: m[1]!.trim(), line: i };
  }
  return null;
}

export function parseRequirementIds(text: string | null): string[] | null {
  if (text === null) return null;
  const t = text.replace(/[[\]]/g, '').trim();
  if (t === '' || /^(tbd|none|n\/a|-)$/i.test(t)) return null;
  return t
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function readSection(lines: string[], start: number, end: number) {
  const goal = field(lines, start, end, 'Goal');
  const depends = field(lines, start, end, 'Depends on');
  const reqs = field(lines, start, end, 'Requirements');
  const plans = field(lines, start, end, 'Plans');
  const mode = field(lines, start, end, 'Mode');
  const sc = field(lines, start, end, 'Success Criteria');
  const criteria: string[] = [];
  if (sc) {
    for (let i = sc.line + 1; i < end; i++) {
      const m = /^\s*(?:\d+[.)]|[-*])\s+(.*)$/.exec(lines[i]!);
      if (m) criteria.push(m[1]!.trim());
      else if (lines[i]!.trim() !== '' || criteria.length) break;
    }
  }
  return {
    goal: goal?.value ?? null,
    dependsOn: depends?.value ?? null,
    requirements: parseRequirementIds(reqs?.value ?? null),
    successCriteria: criteria,
    plansText: plans?.value ?? null,
    mode: mode ? mode.value.toLowerCase().replace(/[^a-z-]/g, '') || null : null,
  };
}

/** Parse ROADMAP.md text. `stateMilestone` (from STATE.md) picks the window. */
export function parseRoadmap(text: string, file: string, stateMilestone?: string | null): Roadmap {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const fence = fenceMask(lines);
  const details = detailsMask(lines, fence);
  const hs = headings(lines, fence).filter((h) => !details[h.index]);
  const allPhases: RoadmapPhase[] = [];
  const milestones: Milestone[] = [];
  for (const h of hs) {
    const m = PHASE_HEADING.exec(h.text);
    if (m && h.level >= 2 && h.level <= 4) {
      const number = m[1]!;
      if (!parsePhaseId(number)) {
        throw new FileFormatError(file, h.index + 1, `phase heading has an invalid number "${number}" (expected e.g. 3, 03, 12A or 2.1)`);
      }
      let name = m[3]!;
      let tag = m[2] ?? null;
      const tail = /\s*\(([A-Z][A-Z -]*)\)\s*$/.exec(name);
      if (tail) {
        tag = tail[1]!;
        name = name.slice(0, tail.index).trim();
      }
      const next = hs.find((o) => o.index > h.index && (o.level <= h.level || PHASE_HEADING.test(o.text)));
      const end = next ? next.index : lines.length;
      allPhases.push({ number, norm: normalizePhase(number), name, tag, line: h.index, level: h.level, start: h.index + 1, end, ...readSection(lines, h.index + 1, end) });
      continue;
    }
    const v = /\bv(\d+(?:\.\d+)*)\b/.exec(h.text);
    if (v && h.level <= 3) {
      const status: Milestone['status'] = ACTIVE.test(h.text) ? 'active' : CLOSED.test(h.text) ? 'closed' : 'open';
      const name = h.text
        .replace(/[\u{1F6A7}\u{1F504}\u2705\u{1F5C4}\u{1F4CB}]/gu, '') // 🚧 🔄 ✅ 🗄 📋
        .replace(/\(.*?\)/g, '')
        .replace(/^.*?\bv\d+(?:\.\d+)*\s*[:\-\u2014\u2013]?\s*/, '')
        .trim();
      milestones.push({ version: `v${v[1]}`, name, line: h.index, level: h.level, status });
    }
  }
  let current: Milestone | null = null;
  if (stateMilestone) current = milestones.find((m) => m.version === stateMilestone && m.status !== 'closed') ?? null;
  current ??= milestones.find((m) => m.status === 'active') ?? milestones.find((m) => m.status === 'open') ?? null;
  let window: [number, number] = [0, lines.length];
  let scope: Roadmap['scope'] = 'complete';
  if (current) {
    const nextM = milestones.find((m) => m.line > current!.line && m.level <= current!.level);
    const nextH = hs.find((h) => h.index > current!.line && h.level < current!.level);
    const stop = Math.min(nextM ? nextM.line : lines.length, nextH ? nextH.index : lines.length);
    window = [current.line, stop];
  } else if (milestones.length) scope = 'unscoped';
  const phases = allPhases.filter((p) => (current ? p.line >= window[0] && p.line < window[1] : true));
  const seen = new Map<string, RoadmapPhase>();
  for (const p of phases) {
    const prior = seen.get(p.norm);
    if (prior) throw new FileFormatError(file, p.line + 1, `phase ${p.number} appears twice (first at line ${prior.line + 1})`);
    seen.set(p.norm, p);
  }
  const bullets: RoadmapBullet[] = [];
  lines.forEach((line, i) => {
    if (fence[i] || details[i]) return;
    const b = BULLET.exec(line);
    if (b && parsePhaseId(b[2]!)) bullets.push({ line: i, number: b[2]!, norm: normalizePhase(b[2]!), name: b[3]!.trim(), checked: b[1] !== ' ' });
  });
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { file, lines, eol, phases, allPhases, bullets, milestones, window, scope, current, progress: parseProgress(lines, hs, fence), headings: hs };
}

function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((c) => c.trim());
}

function parseProgress(lines: string[], hs: Heading[], fence: boolean[]): ProgressTable | null {
  const h = hs.find((x) => /^progress\b/i.test(x.text) && x.level <= 3);
  if (!h) return null;
  const next = hs.find((o) => o.index > h.index && o.level <= h.level);
  const end = next ? next.index : lines.length;
  for (let i = h.index + 1; i < end - 1; i++) {
    if (fence[i] || !/^\s*\|/.test(lines[i]!) || !/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1]!)) continue;
    const columns = cells(lines[i]!);
    const find = (re: RegExp) => columns.findIndex((c) => re.test(c));
    const col = { phase: find(/^phase$/i), plans: find(/plans/i), status: find(/^status$/i), completed: find(/^completed$/i), milestone: find(/^milestone$/i) };
    if (col.phase < 0) continue;
    const rows: ProgressTable['rows'] = [];
    for (let j = i + 2; j < end && /^\s*\|/.test(lines[j]!); j++) {
      const c = cells(lines[j]!);
      const m = /^(?:Phase\s+)?(\d{1,4}[A-Z]?(?:\.\d{1,3})*)\b/i.exec(c[col.phase] ?? '');
      rows.push({ line: j, norm: m ? normalizePhase(m[1]!) : null, cells: c });
    }
    return { header: i, columns, rows, col };
  }
  return null;
}

export function formatRow(cellsIn: string[]): string {
  return `| ${cellsIn.join(' | ')} |`;
}

export function findPhase(rm: Roadmap, phase: string, anywhere = true): RoadmapPhase | null {
  const norm = normalizePhase(phase);
  return rm.phases.find((p) => p.norm === norm) ?? (anywhere ? (rm.allPhases.find((p) => p.norm === norm) ?? null) : null);
}

/** Phases of the window that count toward progress, in order. */
export function countedPhases(rm: Roadmap): RoadmapPhase[] {
  return rm.phases.filter((p) => !isSentinel(p.norm)).sort((a, b) => comparePhase(a.norm, b.norm));
}

export function phaseHeadingText(level: number, phase: string, name: string, tag?: string): string {
  return `${'#'.repeat(level)} Phase ${displayPhase(phase)}: ${name}${tag ? ` (${tag})` : ''}`;
}

/** Markdown of one phase's section including its heading. */
export function sectionText(rm: Roadmap, p: RoadmapPhase): string {
  let end = p.end;
  while (end > p.start && rm.lines[end - 1]!.trim() === '') end--;
  return rm.lines.slice(p.line, end).join('\n');
}
