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
import { deepEqual, readFrontmatter, withFrontmatter, type Frontmatter, type Yaml, type YamlMap } from '../md/frontmatter.ts';
import { computeProgress, loadRoadmap, type Progress } from './progress.ts';

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
}

export function statePath(ctx: Ctx): string {
  return path.join(ctx.planning, 'STATE.md');
}

export function parseState(text: string, file: string): StateFile {
  const fm = readFrontmatter(text, file);
  const body = toDoc(fm.split.body);
  // A frontmatter fence in the body is a second, stray block: refuse rather than guess.
  if (fm.split.yaml !== null && /^---\s*$/.test(body.lines[0] ?? '') && body.lines.slice(1).some((l) => /^---\s*$/.test(l))) {
    throw new FileFormatError(file, fm.split.bodyLine, 'a second frontmatter block follows the first; merge them');
  }
  return { file, text, fm, body };
}

export function readState(ctx: Ctx): StateFile {
  const file = statePath(ctx);
  const text = readTextIfExists(file);
  if (text === null) throw new CliError('not-found', `${ctx.rel(file)} does not exist`);
  return parseState(text, ctx.rel(file));
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

export function normalizeStatus(text: string | null, pausedAt: Yaml | undefined): string {
  const t = (text ?? '').toLowerCase();
  if ((pausedAt !== undefined && pausedAt !== null && pausedAt !== '') || /paused|stopped/.test(t)) return 'paused';
  if (/execut|in progress/.test(t)) return 'executing';
  if (/planning|ready to plan|planned/.test(t)) return 'planning';
  if (/discuss/.test(t)) return 'discussing';
  if (/verif/.test(t)) return 'verifying';
  if (/complete|done/.test(t)) return 'completed';
  return 'unknown';
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
        if (key === 'status' && value === 'unknown' && typeof old.status === 'string' && old.status !== 'unknown') value = old.status;
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
  return deriveFrontmatter({ old: sf.fm.data, oldBody: sf.body, body: sf.body, progress, milestone });
}

export interface MutationResult<R> {
  result: R;
  /** Frontmatter keys whose persisted value changed. */
  frontmatter: string[];
  written: boolean;
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
    const sf = readState(ctx);
    const oldBody: Doc = { ...sf.body, lines: [...sf.body.lines] };
    const body: Doc = { ...sf.body, lines: [...sf.body.lines] };
    const result = transform(body, sf);
    const bodyText = fromDoc(body);
    if (bodyText === fromDoc(oldBody) && !opts.resync) return { result, frontmatter: [], written: false };
    const { progress, milestone } = progressFor(ctx, sf.fm.data.milestone);
    const next = deriveFrontmatter({ old: sf.fm.data, oldBody, body, progress, milestone });
    const original = sf.fm.split.yaml === null ? undefined : sf.fm;
    if (withFrontmatter(next, bodyText, original) === sf.text) return { result, frontmatter: [], written: false };
    next.last_updated = ctx.now().toISOString();
    writeAtomic(file, withFrontmatter(next, bodyText, original));
    const changed = [...new Set([...Object.keys(next), ...Object.keys(sf.fm.data)])].filter((k) => !deepEqual(next[k], sf.fm.data[k]));
    return { result, frontmatter: changed, written: true };
  });
}

export { normName };
