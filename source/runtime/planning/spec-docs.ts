// Phase design documents that a workflow writes before planning (SPEC.md,
// AI-SPEC.md) or after building (EVAL-REVIEW.md): the ambiguity rubric of
// spec-phase and a structural check of each document, both from
// spec-docs.json. Pure: text in, findings out.
import { fenceMask, headings, isPlaceholder, normName, sectionRange } from '../md/body.ts';
import { readFrontmatter, type YamlMap } from '../md/frontmatter.ts';
import docsJson from './spec-docs.json' with { type: 'json' };

export interface Dimension {
  id: string;
  label: string;
  weight: number;
  minimum: number;
}
interface SectionRule {
  heading: string;
  count?: 'subheadings' | 'items' | 'rows';
  min?: number;
}
export interface DocRule {
  suffix: string;
  scored?: boolean;
  verdicts?: { verdict: string; min_score: number }[];
  critical_caps_at?: string;
  score?: { column: string; values: Record<string, number>; parts: { heading: string; points: number }[] };
  sections: SectionRule[];
}

export const RUBRIC = docsJson.ambiguity as { gate: number; dimensions: Dimension[] };
export const DOC_RULES = docsJson.docs as Record<string, DocRule>;
export const DOC_KINDS = Object.keys(DOC_RULES);

/** A score as the CLI accepts it: 0, 1, or a decimal in between with at most three places. */
export function parseScore(text: string): number | null {
  const t = text.trim();
  if (t.length === 0 || t.length > 5) return null;
  if (!/^(?:0(?:\.\d{1,3})?|1(?:\.0{1,3})?|\.\d{1,3})$/.test(t)) return null;
  return Number(t);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export interface Scored {
  ambiguity: number;
  clarity: number;
  gate: number;
  passed: boolean;
  below_minimum: string[];
  dimensions: { id: string; label: string; score: number; minimum: number; weight: number; ok: boolean }[];
}

/** Ambiguity = 1 − Σ weight × score; the gate passes at or under RUBRIC.gate with every dimension at its minimum. */
export function scoreAmbiguity(scores: Record<string, number>): Scored {
  const dims = RUBRIC.dimensions.map((d) => {
    const score = scores[d.id]!;
    return { id: d.id, label: d.label, score, minimum: d.minimum, weight: d.weight, ok: score >= d.minimum };
  });
  const clarity = round(dims.reduce((sum, d) => sum + d.weight * d.score, 0));
  const ambiguity = round(1 - clarity);
  const below = dims.filter((d) => !d.ok).map((d) => d.id);
  return { ambiguity, clarity, gate: RUBRIC.gate, passed: ambiguity <= RUBRIC.gate && below.length === 0, below_minimum: below, dimensions: dims };
}

/**
 * A template placeholder left in prose: `[short title]`, `[…]`, `[what it
 * is]`, not a link (`[a](b)`, `[a][b]`), a checkbox (`[ ]`, `[x]`), an index
 * (`rows[0]`, `a[i]`) or nested brackets. Bounded, so linear on any input.
 */
const PLACEHOLDER = /(?:^|[^\w\]!`])\[([A-Za-z\u2026][^\]\n]{0,300})\](?![([])/;

export function placeholderIn(text: string): string | null {
  const m = PLACEHOLDER.exec(text);
  return m && !(m[1]!.length === 1 && /[xX]/.test(m[1]!)) ? `[${m[1]}]` : null;
}

interface Body {
  lines: string[];
  mask: boolean[];
  start: number;
  end: number;
}

interface Paragraph {
  line: number;
  lines: number[];
  text: string;
}

/** Paragraphs of the section (blank-line separated), without HTML comments, placeholder-only lines like "None yet." and code. */
function paragraphs(b: Body): Paragraph[] {
  const out: Paragraph[] = [];
  let comment = false;
  let cur: number[] = [];
  const flush = () => {
    if (cur.length) out.push({ line: cur[0]!, lines: cur, text: cur.map((i) => b.lines[i]!.trim()).join(' ') });
    cur = [];
  };
  for (let i = b.start; i < b.end; i++) {
    const t = b.lines[i]!.trim();
    if (b.mask[i]) {
      if (t !== '') cur.push(i);
      continue;
    }
    if (comment) {
      if (t.includes('-->')) comment = false;
      continue;
    }
    if (t.startsWith('<!--')) {
      if (!t.includes('-->')) comment = true;
      continue;
    }
    if (t === '') flush();
    else if (!isPlaceholder(t)) cur.push(i);
  }
  flush();
  return out;
}

function count(b: Body, kind: NonNullable<SectionRule['count']>): number {
  const ls = paragraphs(b)
    .flatMap((p) => p.lines)
    .filter((i) => !b.mask[i])
    .map((i) => b.lines[i]!.trim());
  if (kind === 'subheadings') return ls.filter((l) => /^###\s+\S/.test(l)).length;
  if (kind === 'items') return ls.filter((l) => /^(?:[-*+]|\d+[.)])\s+\S/.test(l)).length;
  // rows: table lines that are neither a separator nor the header right above one.
  const sep = (l: string) => /^\|[\s:|-]+\|$/.test(l);
  return ls.filter((l, i) => l.startsWith('|') && !sep(l) && !(i + 1 < ls.length && sep(ls[i + 1]!))).length;
}

/** Cells of a table row, `| a | b |` → [a, b]; `\\|` stays inside a cell. */
function cells(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  const t = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '\\' && t[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (t[i] === '|') {
      out.push(cur.trim());
      cur = '';
    } else cur += t[i];
  }
  out.push(cur.trim());
  return out;
}

/** The values of one column of the first table in [start, end), or null when it has no such column. */
function column(lines: string[], mask: boolean[], start: number, end: number, name: string): { line: number; value: string }[] | null {
  const sep = (l: string) => /^\|[\s:|-]+\|$/.test(l.trim());
  for (let i = start + 1; i < end; i++) {
    if (mask[i] || !sep(lines[i]!) || !lines[i - 1]!.trim().startsWith('|')) continue;
    const at = cells(lines[i - 1]!).findIndex((c) => normName(c) === normName(name));
    if (at < 0) return null;
    const out: { line: number; value: string }[] = [];
    for (let j = i + 1; j < end && lines[j]!.trim().startsWith('|'); j++) out.push({ line: j + 1, value: (cells(lines[j]!)[at] ?? '').toLowerCase() });
    return out;
  }
  return null;
}

/** The score a review's tables give, or the problems that keep it from being computed. */
function reviewScore(rule: NonNullable<DocRule['score']>, lines: string[], mask: boolean[], hs: ReturnType<typeof headings>): { score: number | null; problems: DocFinding[] } {
  const problems: DocFinding[] = [];
  let total = 0;
  for (const part of rule.parts) {
    const h = hs.find((x) => x.level === 2 && normName(x.text) === normName(part.heading));
    if (!h) return { score: null, problems };
    const [start, end] = sectionRange(lines, h, hs);
    const col = column(lines, mask, start, end, rule.column);
    if (!col || col.length === 0) {
      problems.push({ section: part.heading, line: h.index + 1, problem: `expected a table with a ${rule.column} column` });
      continue;
    }
    let sum = 0;
    for (const c of col) {
      const v = rule.values[c.value];
      if (v === undefined) problems.push({ section: part.heading, line: c.line, problem: `${rule.column} "${c.value}": expected one of ${Object.keys(rule.values).join(', ')}` });
      else sum += v;
    }
    total += (part.points * sum) / col.length;
  }
  return { score: problems.length ? null : Math.round(total), problems };
}

export interface DocFinding {
  section: string;
  line: number;
  problem: string;
}

export interface DocCheck {
  ok: boolean;
  problems: DocFinding[];
  frontmatter: YamlMap;
  counts: Record<string, number>;
  ambiguity: Scored | null;
}

/** Check a document of `kind` against its rule: every section present and filled in, counts met, frontmatter consistent. */
export function checkDoc(kind: string, text: string, file: string): DocCheck {
  const rule = DOC_RULES[kind]!;
  const fm = readFrontmatter(text, file);
  const lines = text.split(/\r?\n/);
  const mask = fenceMask(lines);
  const hs = headings(lines, mask);
  const problems: DocFinding[] = [];
  const counts: Record<string, number> = {};
  for (const sec of rule.sections) {
    const h = hs.find((x) => x.level === 2 && normName(x.text) === normName(sec.heading));
    if (!h) {
      problems.push({ section: sec.heading, line: 1, problem: `no "## ${sec.heading}" section` });
      continue;
    }
    const [start, end] = sectionRange(lines, h, hs);
    const body = { lines, mask, start, end };
    const paras = paragraphs(body);
    if (paras.length === 0) {
      problems.push({ section: sec.heading, line: h.index + 1, problem: 'is empty' });
      continue;
    }
    const left = paras.map((p) => ({ p, ph: p.lines.some((i) => mask[i]) ? null : placeholderIn(p.text) })).find((x) => x.ph !== null);
    if (left) {
      problems.push({ section: sec.heading, line: left.p.line + 1, problem: `still holds the template placeholder ${left.ph!.length > 60 ? `${left.ph!.slice(0, 57)}\u2026]` : left.ph}` });
      continue;
    }
    if (sec.count) {
      const n = count(body, sec.count);
      counts[normName(sec.heading).replace(/ /g, '_')] = n;
      if (n < sec.min!) problems.push({ section: sec.heading, line: h.index + 1, problem: `has ${n} ${sec.count === 'subheadings' ? '### entries' : sec.count === 'rows' ? 'table rows' : 'list items'}; expected at least ${sec.min}` });
    }
  }
  let ambiguity: Scored | null = null;
  if (rule.scored) {
    const scores: Record<string, number> = {};
    const given = fm.data.scores;
    const map: YamlMap = given !== null && typeof given === 'object' && !Array.isArray(given) ? given : {};
    for (const d of RUBRIC.dimensions) {
      const v = map[d.id];
      const n = typeof v === 'number' ? v : typeof v === 'string' ? parseScore(v) : null;
      if (n === null || !(n >= 0 && n <= 1)) problems.push({ section: 'frontmatter', line: 1, problem: `scores.${d.id}: expected a score from 0 to 1, found ${v === undefined ? 'nothing' : JSON.stringify(v)}` });
      else scores[d.id] = n;
    }
    if (Object.keys(scores).length === RUBRIC.dimensions.length) {
      ambiguity = scoreAmbiguity(scores);
      const stated = fm.data.ambiguity;
      if (typeof stated !== 'number' || Math.abs(stated - ambiguity.ambiguity) > 0.0005) {
        problems.push({ section: 'frontmatter', line: 1, problem: `ambiguity: the dimension scores give ${ambiguity.ambiguity}, found ${stated === undefined ? 'nothing' : JSON.stringify(stated)}` });
      }
      if (!ambiguity.passed && !ambiguity.below_minimum.every((id) => flagged(lines, hs, id))) {
        problems.push({ section: 'Ambiguity Report', line: 1, problem: `dimensions below their minimum (${ambiguity.below_minimum.join(', ')}) must each be flagged "below minimum" in the Ambiguity Report` });
      }
    }
  }
  if (rule.verdicts) {
    const names = rule.verdicts.map((b) => b.verdict);
    const v = fm.data.verdict;
    const sc = fm.data.score;
    const scoreOk = typeof sc === 'number' && Number.isInteger(sc) && sc >= 0 && sc <= 100;
    if (typeof v !== 'string' || !names.includes(v)) problems.push({ section: 'frontmatter', line: 1, problem: `verdict: expected one of ${names.join(', ')}, found ${v === undefined ? 'nothing' : JSON.stringify(v)}` });
    if (!scoreOk) problems.push({ section: 'frontmatter', line: 1, problem: `score: expected a whole number from 0 to 100, found ${sc === undefined ? 'nothing' : JSON.stringify(sc)}` });
    if (rule.score) {
      const computed = reviewScore(rule.score, lines, mask, hs);
      problems.push(...computed.problems);
      if (computed.score !== null && scoreOk && sc !== computed.score) problems.push({ section: 'frontmatter', line: 1, problem: `score: the ${rule.score.parts.map((x) => x.heading).join(' and ')} tables give ${computed.score}, found ${sc}` });
    }
    if (scoreOk && typeof v === 'string' && names.includes(v)) {
      let at = rule.verdicts.findIndex((b) => (sc as number) >= b.min_score);
      const crit = fm.data.critical_gaps;
      const cap = rule.critical_caps_at ? names.indexOf(rule.critical_caps_at) : -1;
      if (typeof crit === 'number' && crit > 0 && cap > at) at = cap;
      if (names[at] !== v) problems.push({ section: 'frontmatter', line: 1, problem: `verdict: score ${sc}${at === cap && cap >= 0 && typeof crit === 'number' && crit > 0 ? ` with ${crit} critical gap(s)` : ''} gives ${names[at]}, found ${v}` });
    }
  }
  return { ok: problems.length === 0, problems, frontmatter: fm.data, counts, ambiguity };
}

/** The Ambiguity Report names the dimension (its id or label) on a line that says "below minimum". */
function flagged(lines: string[], hs: ReturnType<typeof headings>, id: string): boolean {
  const h = hs.find((x) => x.level === 2 && normName(x.text) === 'ambiguity report');
  if (!h) return false;
  const label = RUBRIC.dimensions.find((d) => d.id === id)!.label.toLowerCase();
  const [start, end] = sectionRange(lines, h, hs);
  return lines.slice(start, end).some((l) => {
    const t = l.toLowerCase();
    return t.includes('below minimum') && (t.includes(label) || t.includes(id));
  });
}
