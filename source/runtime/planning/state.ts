// STATE.md: the body is the source of truth; the YAML frontmatter is a cache
// rebuilt from the body (and a disk scan for progress) on every write. Which
// old frontmatter values survive a rebuild is declared per key in POLICY.
// Every write holds STATE.md.lock from read to rename, and a write that would
// change nothing is skipped so last_updated does not move.
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { CliError, FileFormatError } from '../core/errors.ts';
import { readTextIfExists, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { fenceMask, findField, findHeading, fromDoc, normName, replaceFieldValue, sectionRange, toDoc, type Doc } from '../md/body.ts';
import { deepEqual } from '../core/equal.ts';
import { parseYaml, readFrontmatter, withFrontmatter, type Frontmatter, type Yaml, type YamlMap } from '../md/frontmatter.ts';
import { isForbiddenKey } from '../core/json.ts';
import { keepBroken } from '../core/broken.ts';
import { computeProgress, loadRoadmap, type Progress } from './progress.ts';
import statusJson from './state-status.json' with { type: 'json' };

export type Policy =
  /** Always recomputed. */
  | 'derive'
  /** Recomputed only when the body line it comes from changed in this write (or the key is missing). */
  | 'preserve-when-unchanged'
  /** Kept unless missing or a placeholder. */
  | 'preserve-if-placeholder';

/** Frontmatter keys in their written order, with where each comes from. */
export const POLICY: { key: string; policy: Policy; source: string }[] = [
  { key: 'gsd_state_version', policy: 'derive', source: 'constant "1.0"' },
  { key: 'milestone', policy: 'preserve-if-placeholder', source: 'roadmap current milestone' },
  { key: 'milestone_name', policy: 'preserve-if-placeholder', source: 'roadmap current milestone' },
  { key: 'current_phase', policy: 'preserve-when-unchanged', source: 'body Phase:' },
  { key: 'current_phase_name', policy: 'preserve-when-unchanged', source: 'body Phase:' },
  { key: 'current_plan', policy: 'preserve-when-unchanged', source: 'body Plan:' },
  { key: 'status', policy: 'preserve-when-unchanged', source: 'body Status:' },
  { key: 'stopped_at', policy: 'preserve-when-unchanged', source: 'body Stopped at:' },
  { key: 'paused_at', policy: 'preserve-when-unchanged', source: 'body Paused at:' },
  { key: 'last_updated', policy: 'derive', source: 'clock, on a write that changes something' },
  { key: 'last_activity', policy: 'derive', source: 'body Last activity: date' },
  { key: 'last_activity_desc', policy: 'preserve-when-unchanged', source: 'body Last activity: text' },
  { key: 'progress', policy: 'derive', source: 'phase directories + roadmap' },
];

const BODY_SOURCE: Record<string, string> = {
  current_phase: 'Phase',
  current_phase_name: 'Phase',
  current_plan: 'Plan',
  status: 'Status',
  stopped_at: 'Stopped at',
  paused_at: 'Paused at',
  last_activity_desc: 'Last activity',
};

export interface StateFile {
  file: string;
  text: string;
  fm: Frontmatter;
  body: Doc;
  /** Set when the frontmatter did not parse and was rebuilt from the body (in memory). */
  healed?: StateHeal;
}

/** Why and where a STATE.md frontmatter was set aside, for the warning. */
export interface StateHeal {
  line: number;
  problem: string;
  /** Keys recovered one by one from the broken block (the rest come from the body). */
  salvaged: string[];
}

export const STATE_HEAL_CODE = 'state-frontmatter-rebuilt';

export function statePath(ctx: Ctx): string {
  return ctx.planningPath('STATE.md');
}

/** Strict parse: any frontmatter problem is a FileFormatError naming the line. */
export function parseState(text: string, file: string): StateFile {
  const fm = readFrontmatter(text, file);
  const body = toDoc(fm.split.body);
  // A frontmatter fence in the body is a second, stray block: refuse rather than guess.
  if (fm.split.yaml !== null && /^---\s*$/.test(body.lines[0] ?? '') && body.lines.slice(1).some((l) => /^---\s*$/.test(l))) {
    throw new FileFormatError(file, fm.split.bodyLine, 'a second frontmatter block follows the first; merge them');
  }
  return { file, text, fm, body };
}

/**
 * Parse, and when the frontmatter does not parse, rebuild it from the body:
 * the body is the authority and the frontmatter only a cache of it. Top-level
 * keys of the broken block that still parse one by one are kept (custom keys,
 * the milestone); everything POLICY derives is derived afresh. Body problems
 * are never guessed at, only frontmatter ones.
 */
export function parseStateHealing(text: string, file: string): StateFile {
  try {
    return parseState(text, file);
  } catch (error) {
    if (!(error instanceof FileFormatError)) throw error;
    return rebuildState(text, file, error);
  }
}

function problemOf(error: FileFormatError): string {
  const prefix = `${error.file}${error.line === undefined ? '' : `:${error.line}`}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

const FENCE_LINE = /^---[ \t]*\r?$/;

function rebuildState(text: string, file: string, error: FileFormatError): StateFile {
  const noBom = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows = noBom.split('\n');
  // Where the broken block ends: its closing fence, or (never closed) the first Markdown heading.
  const blocks: { yaml: string[]; firstLine: number }[] = [];
  let bodyFrom = 0;
  if (FENCE_LINE.test(rows[0] ?? '')) {
    const close = rows.findIndex((r, i) => i > 0 && FENCE_LINE.test(r));
    if (close < 0) {
      // Never closed: the block is the leading run of lines that look like our
      // frontmatter (lowercase snake_case keys, their indented values, comments,
      // blanks); a heading or a body field such as "Phase: 1 of 3" ends it.
      let end = 1;
      while (end < rows.length && !/^#{1,6}\s/.test(rows[end]!) && /^(?:[a-z0-9_][a-z0-9_.-]*:(?:\s|$)|[ \t]|-\s|#|\s*\r?$)/.test(rows[end]!)) end++;
      // Trailing blank lines belong to the body.
      while (end > 1 && rows[end - 1]!.trim() === '') end--;
      blocks.push({ yaml: rows.slice(1, end), firstLine: 2 });
      bodyFrom = end;
    } else {
      blocks.push({ yaml: rows.slice(1, close), firstLine: 2 });
      bodyFrom = close + 1;
    }
    // A stray second block right after the first (blank lines between allowed).
    let next = bodyFrom;
    while (next < rows.length && rows[next]!.trim() === '') next++;
    if (FENCE_LINE.test(rows[next] ?? '')) {
      const end = rows.findIndex((r, i) => i > next && FENCE_LINE.test(r));
      if (end > next) {
        blocks.push({ yaml: rows.slice(next + 1, end), firstLine: next + 2 });
        bodyFrom = end + 1;
      }
    }
  }
  const bodyText = rows.slice(bodyFrom).join('\n');
  const data: YamlMap = {};
  const salvaged: string[] = [];
  for (const block of blocks) {
    for (const [key, value] of salvageKeys(block.yaml, file, block.firstLine)) {
      if (Object.prototype.hasOwnProperty.call(data, key)) continue;
      data[key] = value;
      salvaged.push(key);
    }
  }
  const fm: Frontmatter = {
    data,
    rawByKey: new Map(),
    split: { yaml: null, yamlLine: 1, body: bodyText, bodyLine: bodyFrom + 1, eol: rows[0]?.endsWith('\r') ? '\r\n' : '\n' },
  };
  return { file, text, fm, body: toDoc(bodyText), healed: { line: error.line ?? 1, problem: problemOf(error), salvaged } };
}

/** Each top-level key of a frontmatter block that parses on its own (first of a duplicate wins). */
function salvageKeys(lines: string[], file: string, firstLine: number): [string, Yaml][] {
  const out: [string, Yaml][] = [];
  const seen = new Set<string>();
  let i = 0;
  while (i < lines.length) {
    if (!/^[A-Za-z0-9_"']/.test(lines[i]!)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < lines.length && (/^[ \t]/.test(lines[j]!) || lines[j]!.trim() === '')) j++;
    try {
      const parsed = parseYaml(lines.slice(i, j).join('\n'), file, firstLine + i);
      for (const [k, v] of Object.entries(parsed)) {
        if (seen.has(k) || isForbiddenKey(k)) continue;
        seen.add(k);
        out.push([k, v]);
      }
    } catch {
      // this key is lost; the body gives what POLICY derives
    }
    i = j;
  }
  return out;
}

/** The warning for a healed STATE.md, in the diagnostic shape `path:line:col: warning CODE message`. */
export function healWarning(sf: StateFile, what: string): string {
  const h = sf.healed!;
  return `${sf.file}:${h.line}:1: warning ${STATE_HEAL_CODE} frontmatter does not parse (${h.problem}); ${what}`;
}

/** STATE.md as commands read it: a broken frontmatter is rebuilt from the body in memory, with a warning. */
export function readState(ctx: Ctx, opts: { quiet?: boolean } = {}): StateFile {
  const file = statePath(ctx);
  const text = readTextIfExists(file);
  if (text === null) throw new CliError('not-found', `${ctx.rel(file)} does not exist`);
  const sf = parseStateHealing(text, ctx.rel(file));
  if (sf.healed && !opts.quiet) ctx.warn(healWarning(sf, 'read as rebuilt from the body; the next state write or `health --repair` rewrites it and keeps the old bytes beside it'));
  return sf;
}

/** A body field's value, searched in one section when given. */
export function getField(body: Doc, name: string, section?: RegExp): string | null {
  const [from, to] = sectionBounds(body, section);
  return findField(body.lines, name, from, to)?.value ?? null;
}

export function sectionBounds(body: Doc, section?: RegExp): [number, number] {
  if (!section) return [0, body.lines.length];
  const h = findHeading(body.lines, (x) => section.test(x.text));
  return h ? sectionRange(body.lines, h) : [0, 0];
}

/** Replace a field's value. Returns whether the field exists and whether it changed. */
export function setField(body: Doc, name: string, value: string, section?: RegExp): { found: boolean; changed: boolean; name: string } {
  const [from, to] = sectionBounds(body, section);
  const m = findField(body.lines, name, from, to, fenceMask(body.lines));
  if (!m) return { found: false, changed: false, name };
  const line = replaceFieldValue(m, value);
  const changed = line !== body.lines[m.index];
  body.lines[m.index] = line;
  return { found: true, changed, name: m.name };
}

export interface StatusRow {
  status: string;
  match: string;
  active: boolean;
}

export const STATUS_VOCABULARY = statusJson as { statuses: StatusRow[]; fallback: string };
const STATUS_MATCHERS = STATUS_VOCABULARY.statuses.map((row) => ({ row, re: new RegExp(row.match, 'i') }));

/** The frontmatter status for a body `Status:` text, by the first matching row of state-status.json. */
export function normalizeStatus(text: string | null, pausedAt: Yaml | undefined): string {
  const t = text ?? '';
  if (pausedAt !== undefined && pausedAt !== null && pausedAt !== '') return 'paused';
  return STATUS_MATCHERS.find((m) => m.re.test(t))?.row.status ?? STATUS_VOCABULARY.fallback;
}

function parsePhaseLine(v: string | null): { phase: string | null; total: number | null; name: string | null } {
  if (!v) return { phase: null, total: null, name: null };
  const m = /^(\S+?)(?:\s+of\s+(\d+))?\s*(?:\((.*)\))?\s*$/.exec(v);
  if (!m) return { phase: v, total: null, name: null };
  const phase = /^(none|-|tbd|\u2014)$/i.test(m[1]!) ? null : m[1]!;
  return { phase, total: m[2] ? Number(m[2]) : null, name: m[3]?.trim() || null };
}

function parseActivity(v: string | null): { date: string | null; desc: string | null } {
  if (!v) return { date: null, desc: null };
  const m = /^(\d{4}-\d{2}-\d{2})(?:\s*[\u2014\u2013:-]+\s*(.*))?$/.exec(v.trim());
  if (!m) return { date: null, desc: v.trim() || null };
  return { date: m[1]!, desc: m[2]?.trim() || null };
}

const SESSION = /^session/i;

/** Values the body gives for each derived key. */
function fromBody(body: Doc): Record<string, Yaml> {
  const phase = parsePhaseLine(getField(body, 'Phase', /current position/i) ?? getField(body, 'Phase'));
  const plan = getField(body, 'Plan', /current position/i) ?? getField(body, 'Plan');
  const planNo = plan ? (/^(\d+)/.exec(plan)?.[1] ?? null) : null;
  const activity = parseActivity(getField(body, 'Last activity'));
  const paused = getField(body, 'Paused at', SESSION) ?? getField(body, 'Paused at');
  const stopped = getField(body, 'Stopped at', SESSION);
  const status = getField(body, 'Status', /current position/i) ?? getField(body, 'Status');
  const placeholder = (s: string | null) => (s && !/^(none|-|\u2014|n\/a)$/i.test(s) ? s : null);
  return {
    current_phase: phase.phase,
    current_phase_name: phase.name,
    current_plan: planNo === null ? null : Number(planNo),
    status: normalizeStatus(status, placeholder(paused)),
    stopped_at: placeholder(stopped),
    paused_at: placeholder(paused),
    last_activity: activity.date,
    last_activity_desc: activity.desc,
  };
}

function bodySourceValue(body: Doc | null, key: string): string | null {
  const name = BODY_SOURCE[key];
  if (!body || !name) return null;
  return getField(body, name, key === 'stopped_at' ? SESSION : undefined);
}

function isPlaceholderName(v: Yaml | undefined): boolean {
  return v === undefined || v === null || v === '' || v === 'milestone' || (typeof v === 'string' && /^[-:\u2014]/.test(v));
}

export interface DeriveInput {
  old: YamlMap;
  oldBody: Doc | null;
  body: Doc;
  progress: Progress | null;
  milestone: { version: string; name: string } | null;
}

/** Rebuild the frontmatter under POLICY; keys not in POLICY are carried over unchanged. */
export function deriveFrontmatter(input: DeriveInput): YamlMap {
  const { old, oldBody, body } = input;
  const derived = fromBody(body);
  const out: YamlMap = {};
  for (const { key, policy } of POLICY) {
    let value: Yaml | undefined;
    switch (key) {
      case 'gsd_state_version':
        value = '1.0';
        break;
      case 'milestone':
      case 'milestone_name': {
        const fresh = input.milestone ? (key === 'milestone' ? input.milestone.version : input.milestone.name) : undefined;
        value = isPlaceholderName(old[key]) ? (fresh ?? old[key]) : old[key];
        break;
      }
      case 'last_updated':
        value = old[key] ?? null;
        break;
      case 'last_activity':
        value = derived.last_activity ?? old[key];
        break;
      case 'progress':
        value = input.progress ? { ...input.progress } : old[key];
        break;
      default: {
        const sourceChanged = oldBody === null || bodySourceValue(oldBody, key) !== bodySourceValue(body, key);
        const has = Object.prototype.hasOwnProperty.call(old, key);
        value = policy === 'preserve-when-unchanged' && has && !sourceChanged ? old[key] : derived[key];
        if (key === 'status' && value === STATUS_VOCABULARY.fallback && typeof old.status === 'string' && old.status !== STATUS_VOCABULARY.fallback) value = old.status;
      }
    }
    const alwaysWritten = key === 'current_phase' || key === 'status' || key === 'last_updated';
    if (value !== undefined && (value !== null || alwaysWritten || Object.prototype.hasOwnProperty.call(old, key))) out[key] = value;
  }
  for (const key of Object.keys(old)) if (!(key in out) && !POLICY.some((p) => p.key === key)) out[key] = old[key]!;
  return out;
}

function milestoneOf(rm: ReturnType<typeof loadRoadmap>): { version: string; name: string } | null {
  return rm?.current ? { version: rm.current.version, name: rm.current.name } : null;
}

function progressFor(ctx: Ctx, stateMilestone: Yaml | undefined): { progress: Progress | null; milestone: { version: string; name: string } | null } {
  try {
    const rm = loadRoadmap(ctx.planning, typeof stateMilestone === 'string' ? stateMilestone : null);
    return { progress: computeProgress(ctx.planning, rm), milestone: milestoneOf(rm) };
  } catch (error) {
    ctx.warn(`progress not recomputed: ${(error as Error).message}`);
    return { progress: null, milestone: null };
  }
}

/** The frontmatter as it would be written now (for `state json`). */
export function currentFrontmatter(ctx: Ctx, sf: StateFile): YamlMap {
  const { progress, milestone } = progressFor(ctx, sf.fm.data.milestone);
  return deriveFrontmatter({ old: sf.fm.data, oldBody: sf.healed ? null : sf.body, body: sf.body, progress, milestone });
}

export interface MutationResult<R> {
  result: R;
  /** Frontmatter keys whose persisted value changed. */
  frontmatter: string[];
  written: boolean;
  /** Where the bytes of a STATE.md whose frontmatter was rebuilt were kept. */
  kept?: string;
}

/**
 * Read-modify-write STATE.md under its lock. `transform` edits the body in
 * place; the frontmatter is then re-derived and the file written only when
 * its text changes.
 */
export function mutateState<R>(
  ctx: Ctx,
  transform: (body: Doc, sf: StateFile) => R,
  opts: { resync?: boolean } = {},
): MutationResult<R> {
  const file = statePath(ctx);
  return withLock(`${file}.lock`, () => {
    const sf = readState(ctx, { quiet: true });
    const oldBody: Doc = { ...sf.body, lines: [...sf.body.lines] };
    const body: Doc = { ...sf.body, lines: [...sf.body.lines] };
    const result = transform(body, sf);
    const bodyText = fromDoc(body);
    // A rebuilt frontmatter is always written, even when the body did not change.
    if (bodyText === fromDoc(oldBody) && !opts.resync && !sf.healed) return { result, frontmatter: [], written: false };
    const { progress, milestone } = progressFor(ctx, sf.fm.data.milestone);
    const next = deriveFrontmatter({ old: sf.fm.data, oldBody: sf.healed ? null : oldBody, body, progress, milestone });
    const original = sf.fm.split.yaml === null ? undefined : sf.fm;
    if (!sf.healed && withFrontmatter(next, bodyText, original) === sf.text) return { result, frontmatter: [], written: false };
    next.last_updated = ctx.now().toISOString();
    let kept: string | undefined;
    if (sf.healed) {
      kept = keepBroken(file, sf.text, ctx.now());
      ctx.warn(healWarning(sf, `rebuilt from the body; the old bytes are kept in ${ctx.rel(kept)}`));
    }
    writeAtomic(file, withFrontmatter(next, bodyText, original));
    const changed = [...new Set([...Object.keys(next), ...Object.keys(sf.fm.data)])].filter((k) => !deepEqual(next[k], sf.fm.data[k], { orderedKeys: true }));
    return { result, frontmatter: changed, written: true, ...(kept ? { kept: ctx.rel(kept) } : {}) };
  });
}

export { normName };
