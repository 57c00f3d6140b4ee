// UAT.md: acceptance tests of one phase (`### N. Name` blocks of `key: value`
// lines under `## Tests`), their counts (`## Summary`), where the session is
// (`## Current Test`) and the issues the user reported (`## Gaps`, a YAML
// list). Every gap carries a stable id; the plans that close it name that id
// in their `gap_ids`. These are pure functions over the file's text.
import { CliError } from '../core/errors.ts';
import { fenceMask, headings, sectionRange, type Heading } from '../md/body.ts';
import { parseYaml, readFrontmatter, stringifyYaml, withFrontmatter, type Yaml, type YamlMap } from '../md/frontmatter.ts';
import facts from './uat-vocabulary.json' with { type: 'json' };

export type TestResult = (typeof facts.results)[number];
export type GapStatus = (typeof facts.gap_statuses)[number];

export interface UatTest {
  number: number;
  name: string;
  result: string;
  /** Body line range [start, end) of the block, heading included. */
  start: number;
  end: number;
}

export interface Gap {
  id: string;
  test: number | null;
  truth: string;
  severity: string;
  status: string;
  root_cause: string | null;
  plans: string[];
  raw: YamlMap;
}

export interface Uat {
  fm: YamlMap;
  lines: string[];
  tests: UatTest[];
  gaps: Gap[];
}

interface Parsed extends Uat {
  parsed: ReturnType<typeof readFrontmatter>;
}

const TEST_HEADING = /^(\d{1,3})\.\s+(.*)$/;

function section(lines: string[], hs: Heading[], name: string): [number, number] | null {
  const h = hs.find((x) => x.level === 2 && x.text.trim().toLowerCase() === name);
  return h ? sectionRange(lines, h, hs) : null;
}

function fieldAt(lines: string[], start: number, end: number, key: string): number {
  for (let i = start + 1; i < end; i++) if (lines[i]!.startsWith(`${key}:`)) return i;
  return -1;
}

function text(v: Yaml | undefined): string | null {
  return v === undefined || v === null || typeof v === 'object' ? null : String(v);
}

function toGap(item: Yaml, index: number, rel: string): Gap {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw new CliError('invalid-args', `${rel}: gap ${index + 1} under ## Gaps must be a mapping (id, test, truth, ...), found ${JSON.stringify(item)}`);
  const id = text(item.id);
  if (!id) throw new CliError('invalid-args', `${rel}: gap ${index + 1} under ## Gaps has no id; expected "id: G-<phase>-<test>"`);
  const test = Number(item.test);
  const plans = Array.isArray(item.plans) ? item.plans.map(String) : [];
  return { id, test: Number.isInteger(test) && test > 0 ? test : null, truth: text(item.truth) ?? '', severity: text(item.severity) ?? 'major', status: text(item.status) ?? 'failed', root_cause: text(item.root_cause), plans, raw: item };
}

/** Read a UAT.md; `rel` names it in errors. */
export function parseUat(source: string, rel: string): Parsed {
  const parsed = readFrontmatter(source, rel);
  const lines = parsed.split.body.split('\n');
  const mask = fenceMask(lines);
  const hs = headings(lines, mask);
  const tests: UatTest[] = [];
  const range = section(lines, hs, 'tests');
  if (range) {
    const inner = hs.filter((h) => h.level === 3 && h.index >= range[0] && h.index < range[1]);
    for (const [k, h] of inner.entries()) {
      const m = TEST_HEADING.exec(h.text);
      if (!m) continue;
      const end = Math.min(inner[k + 1]?.index ?? range[1], range[1]);
      const at = fieldAt(lines, h.index, end, 'result');
      tests.push({ number: Number(m[1]), name: m[2]!.trim(), result: at < 0 ? 'pending' : lines[at]!.slice('result:'.length).trim(), start: h.index, end });
    }
  }
  const gr = section(lines, hs, 'gaps');
  let gaps: Gap[] = [];
  if (gr) {
    const yaml = lines.slice(gr[0], gr[1]).filter((l) => !/^```/.test(l.trim()) && l.trim() !== 'None yet.');
    if (yaml.some((l) => l.trim() !== '')) {
      const data = parseYaml(`gaps:\n${yaml.map((l) => `  ${l}`).join('\n')}\n`, rel);
      const list = data.gaps;
      if (!Array.isArray(list)) throw new CliError('invalid-args', `${rel}: ## Gaps must hold a YAML list of gaps, found ${JSON.stringify(list)}`);
      gaps = list.map((g, i) => toGap(g, i, rel));
    }
  }
  return { fm: parsed.data, lines, tests, gaps, parsed };
}

/** The gap id for a test: `G-<padded phase>-<test>`, then `-r2`, `-r3` for a failure after an earlier one was resolved. */
export function gapId(padded: string, test: number, taken: readonly string[]): string {
  const base = `G-${padded}-${test}`;
  if (!taken.includes(base)) return base;
  let k = 2;
  while (taken.includes(`${base}-r${k}`)) k += 1;
  return `${base}-r${k}`;
}

export function isOpen(g: Gap): boolean {
  return g.status !== 'resolved';
}

export interface Counts {
  total: number;
  passed: number;
  issues: number;
  pending: number;
  skipped: number;
  blocked: number;
}

export function countResults(tests: readonly UatTest[]): Counts {
  const n = (r: string) => tests.filter((t) => t.result === r).length;
  return { total: tests.length, passed: n('pass'), issues: n('issue'), pending: n('pending'), skipped: n('skipped'), blocked: n('blocked') };
}

/** The test to show next: the first pending one, then the first blocked one; null when none is left. */
export function nextTest(tests: readonly UatTest[]): UatTest | null {
  return tests.find((t) => t.result === 'pending') ?? tests.find((t) => t.result === 'blocked') ?? null;
}

function replaceSection(lines: string[], name: string, title: string, content: string[]): string[] {
  const hs = headings(lines, fenceMask(lines));
  const r = section(lines, hs, name);
  const block = ['', ...content, ''];
  if (!r) return [...lines, `## ${title}`, ...block];
  return [...lines.slice(0, r[0]), ...block, ...lines.slice(r[1])];
}

/** Re-derive `## Summary`, `## Current Test` and `## Gaps` from the tests and gaps. */
function render(u: Parsed, gaps: Gap[], fmChanges: YamlMap): string {
  let lines = u.lines;
  const reparsed = parseUatLines(lines, u);
  const c = countResults(reparsed);
  lines = replaceSection(lines, 'summary', 'Summary', Object.entries(c).map(([k, v]) => `${k}: ${v}`));
  const next = nextTest(reparsed);
  lines = replaceSection(lines, 'current test', 'Current Test', next ? [`number: ${next.number}`, `name: ${next.name}`, 'awaiting: user response'] : ['[testing complete]']);
  const yaml = gaps.length ? stringifyYaml({ gaps: gaps.map((g) => g.raw) }).split('\n').slice(1).filter((l) => l !== '').map((l) => l.slice(2)) : ['None yet.'];
  lines = replaceSection(lines, 'gaps', 'Gaps', yaml);
  while (lines.length > 1 && lines[lines.length - 1] === '' && lines[lines.length - 2] === '') lines.pop();
  if (lines[lines.length - 1] !== '') lines.push('');
  return withFrontmatter({ ...u.fm, ...fmChanges }, lines.join('\n'), u.parsed);
}

function parseUatLines(lines: string[], u: Parsed): UatTest[] {
  return parseUat(withFrontmatter(u.fm, lines.join('\n'), u.parsed), 'UAT.md').tests;
}

/** Set `key: value` lines of a test block (a null value removes the line), keeping the rest as written. */
function setTestFields(lines: string[], t: UatTest, fields: Record<string, string | null>): string[] {
  const block = lines.slice(t.start, t.end);
  let tail = block.length;
  while (tail > 1 && block[tail - 1]!.trim() === '') tail -= 1;
  const head = block.slice(0, tail);
  for (const [key, value] of Object.entries(fields)) {
    const at = head.findIndex((l, i) => i > 0 && l.startsWith(`${key}:`));
    if (value === null) {
      if (at >= 0) head.splice(at, 1);
    } else if (at >= 0) head[at] = `${key}: ${value}`;
    else head.push(`${key}: ${value}`);
  }
  return [...lines.slice(0, t.start), ...head, ...block.slice(tail), ...lines.slice(t.end)];
}

function findTest(u: Parsed, n: number, rel: string): UatTest {
  const t = u.tests.find((x) => x.number === n);
  if (!t) throw new CliError('not-found', `${rel}: no test ${n} under ## Tests; expected one of ${u.tests.map((x) => x.number).join(', ') || 'none (the file has no tests)'}`);
  return t;
}

export interface RecordInput {
  result: TestResult;
  reported?: string;
  severity?: string;
  reason?: string;
}

/** Record the user's answer to one test; an issue adds a gap with a fresh id. */
export function recordResult(source: string, rel: string, padded: string, n: number, input: RecordInput, now: string): { text: string; gap: Gap | null; counts: Counts; next: UatTest | null } {
  const u = parseUat(source, rel);
  const t = findTest(u, n, rel);
  if (input.result === 'issue' && !input.reported) throw new CliError('invalid-args', `uat record: an issue needs --reported with the user's words`);
  const severity = input.result === 'issue' ? (input.severity ?? 'major') : null;
  if (severity !== null && !facts.severities.includes(severity)) throw new CliError('invalid-args', `uat record: --severity must be one of ${facts.severities.join(', ')}, found "${severity}"`);
  const lines = setTestFields(u.lines, t, {
    result: input.result,
    reported: input.result === 'issue' ? JSON.stringify(input.reported) : null,
    severity,
    reason: input.result === 'skipped' || input.result === 'blocked' ? (input.reason ? JSON.stringify(input.reason) : null) : null,
  });
  const gaps = [...u.gaps];
  let gap: Gap | null = null;
  if (input.result === 'issue') {
    const expected = fieldAt(u.lines, t.start, t.end, 'expected');
    const truth = expected < 0 ? t.name : u.lines[expected]!.slice('expected:'.length).trim();
    const id = gapId(padded, n, gaps.map((g) => g.id));
    const raw: YamlMap = { id, test: n, truth, reported: input.reported!, severity: severity!, status: 'failed' };
    gap = toGap(raw, gaps.length, rel);
    gaps.push(gap);
  }
  const next = { ...u, lines };
  const text = render(next, gaps, { updated: now });
  const tests = parseUat(text, rel).tests;
  return { text, gap, counts: countResults(tests), next: nextTest(tests) };
}

export interface Diagnosis {
  root_cause: string;
  files?: string[];
  fix?: string;
  session?: string;
}

/** Write a debugger's diagnosis into an open gap; the file is `diagnosed` once no open gap lacks a root cause. */
export function diagnoseGap(source: string, rel: string, id: string, d: Diagnosis, now: string): { text: string; gap: Gap; undiagnosed: string[] } {
  const u = parseUat(source, rel);
  const at = u.gaps.findIndex((g) => g.id === id);
  if (at < 0) throw new CliError('not-found', `${rel}: no gap "${id}" under ## Gaps; expected one of ${u.gaps.map((g) => g.id).join(', ') || 'none'}`);
  const old = u.gaps[at]!;
  if (!isOpen(old)) throw new CliError('refused', `${rel}: gap ${id} is resolved (by ${old.plans.join(', ') || 'a plan'}); a new failure of test ${old.test ?? '?'} is a new gap`);
  const raw: YamlMap = { ...old.raw, status: 'diagnosed', root_cause: d.root_cause };
  if (d.files) raw.files = d.files;
  if (d.fix) raw.fix = d.fix;
  if (d.session) raw.debug_session = d.session;
  const gaps = u.gaps.map((g, i) => (i === at ? toGap(raw, i, rel) : g));
  const undiagnosed = gaps.filter((g) => isOpen(g) && !g.root_cause).map((g) => g.id);
  const text = render(u, gaps, { updated: now, ...(undiagnosed.length === 0 ? { status: 'diagnosed' } : {}) });
  return { text, gap: gaps[at]!, undiagnosed };
}

export interface GapPlan {
  id: string;
  gap_ids: string[];
  has_summary: boolean;
}

/**
 * Gaps whose every naming plan has a summary become `resolved` (with the plan
 * ids); the test behind each goes back to `pending` so the user re-tests it.
 */
export function reconcileGaps(source: string, rel: string, plans: readonly GapPlan[], now: string): { text: string; resolved: string[]; open: string[]; retest: number[] } {
  const u = parseUat(source, rel);
  let lines = u.lines;
  const resolved: string[] = [];
  const retest: number[] = [];
  const gaps = u.gaps.map((g, i) => {
    if (!isOpen(g)) return g;
    const by = plans.filter((p) => p.gap_ids.includes(g.id));
    if (by.length === 0 || by.some((p) => !p.has_summary)) return g;
    resolved.push(g.id);
    if (g.test !== null) retest.push(g.test);
    return toGap({ ...g.raw, status: 'resolved', plans: by.map((p) => p.id), resolved_at: now }, i, rel);
  });
  for (const n of retest) {
    const t = parseUatLines(lines, u).find((x) => x.number === n);
    if (t && t.result === 'issue') lines = setTestFields(lines, t, { result: 'pending', reported: null, severity: null });
  }
  const changed = resolved.length > 0;
  const text = changed ? render({ ...u, lines }, gaps, { updated: now, status: 'testing' }) : source;
  return { text, resolved, open: gaps.filter(isOpen).map((g) => g.id), retest };
}
