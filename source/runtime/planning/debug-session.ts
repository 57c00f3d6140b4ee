// Debug sessions: .planning/debug/<slug>.md while active, moved to
// .planning/debug/resolved/ when resolved, and one knowledge-base entry per
// resolved session in .planning/debug/knowledge-base.md, which later sessions
// search before investigating. The session file is the debugger's memory
// across context resets, so every field has a fixed place:
//   ## Symptoms       **Expected:** / **Actual:** / **Errors:** / **Reproduction:**
//   ## Current Focus  **Hypothesis:** / **Next action:**
//   ## Eliminated     bullets, one per disproved hypothesis
//   ## Evidence       bullets, one per observation
//   ## Resolution     **Root cause:** / **Fix:** / **Verification:** / **Files changed:**
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { failed } from '../core/errors.ts';
import { findField, fromDoc, headings, replaceFieldValue, sectionRange, toDoc, type Doc } from '../md/body.ts';
import { appendBullet, ensureSection } from '../md/sections.ts';
import { peekRecord, recordFiles, recordTitle, textField, type Rec } from './records.ts';

export const KNOWLEDGE_BASE = 'knowledge-base.md';

export const debugDir = (ctx: Ctx, which: 'active' | 'resolved') =>
  which === 'active' ? ctx.planningPath('debug') : ctx.planningPath('debug', 'resolved');
export const knowledgeBasePath = (ctx: Ctx) => ctx.planningPath('debug', KNOWLEDGE_BASE);

export const sessionFiles = (ctx: Ctx, which: 'active' | 'resolved') => recordFiles(debugDir(ctx, which), [KNOWLEDGE_BASE]);

export interface Symptoms {
  expected?: string;
  actual?: string;
  errors?: string;
  reproduction?: string;
}

const oneLine = (s: string | undefined) => (s ?? '').trim().replace(/\s*\r?\n\s*/g, ' ');

/** The body of a new session (the frontmatter is added by the caller). */
export function newSessionBody(title: string, s: Symptoms): string {
  const field = (name: string, value: string | undefined) => `- **${name}:** ${oneLine(value) || 'Not yet known.'}`;
  return [
    '',
    `# Debug: ${title}`,
    '',
    '## Symptoms',
    '',
    field('Expected', s.expected),
    field('Actual', s.actual),
    field('Errors', s.errors),
    field('Reproduction', s.reproduction),
    '',
    '## Current Focus',
    '',
    '- **Hypothesis:** None yet.',
    '- **Next action:** Gather evidence.',
    '',
    '## Eliminated',
    '',
    'None yet.',
    '',
    '## Evidence',
    '',
    'None yet.',
    '',
    '## Resolution',
    '',
    '- **Root cause:** Not yet known.',
    '- **Fix:** Not yet applied.',
    '- **Verification:** Not yet verified.',
    '- **Files changed:** None yet.',
    '',
  ].join('\n');
}

function section(doc: Doc, title: string): [number, number] {
  return ensureSection(doc, { re: new RegExp(`^${title}$`, 'i'), title, level: 2 });
}

/** Set `**name:** value` inside the section `title`; adds the line when the section lacks it. */
function setField(doc: Doc, title: string, name: string, value: string): void {
  const [start, end] = section(doc, title);
  const match = findField(doc.lines, name, start, end);
  if (match) doc.lines[match.index] = replaceFieldValue(match, oneLine(value));
  else appendBullet(doc, [start, end], `**${name}:** ${oneLine(value)}`);
}

function getField(doc: Doc, title: string, name: string): string | null {
  const h = headings(doc.lines).find((x) => x.level === 2 && x.text.toLowerCase() === title.toLowerCase());
  if (!h) return null;
  const [start, end] = sectionRange(doc.lines, h);
  return findField(doc.lines, name, start, end)?.value ?? null;
}

function bulletCount(doc: Doc, title: string): number {
  const h = headings(doc.lines).find((x) => x.level === 2 && x.text.toLowerCase() === title.toLowerCase());
  if (!h) return 0;
  const [start, end] = sectionRange(doc.lines, h);
  return doc.lines.slice(start, end).filter((l) => /^\s*[-*]\s+/.test(l)).length;
}

export interface SessionUpdate {
  hypothesis?: string;
  next?: string;
  evidence?: string;
  eliminated?: string;
}

/** The session body with the update applied; evidence and eliminated lines carry their time. */
export function applyUpdate(body: string, u: SessionUpdate, now: string): string {
  const doc = toDoc(body);
  if (u.hypothesis !== undefined) setField(doc, 'Current Focus', 'Hypothesis', u.hypothesis);
  if (u.next !== undefined) setField(doc, 'Current Focus', 'Next action', u.next);
  if (u.evidence !== undefined) appendBullet(doc, section(doc, 'Evidence'), `${now}: ${oneLine(u.evidence)}`);
  if (u.eliminated !== undefined) appendBullet(doc, section(doc, 'Eliminated'), `${now}: ${oneLine(u.eliminated)}`);
  return fromDoc(doc);
}

export interface Resolution {
  rootCause: string;
  fix: string;
  verification?: string;
  files: string[];
}

export function applyResolution(body: string, r: Resolution): string {
  const doc = toDoc(body);
  setField(doc, 'Resolution', 'Root cause', r.rootCause);
  setField(doc, 'Resolution', 'Fix', r.fix);
  setField(doc, 'Resolution', 'Verification', r.verification ?? 'Not recorded.');
  setField(doc, 'Resolution', 'Files changed', r.files.length ? r.files.join(', ') : 'None recorded.');
  setField(doc, 'Current Focus', 'Next action', 'None: resolved.');
  return fromDoc(doc);
}

export function sessionSummary(ctx: Ctx, rec: Rec) {
  return {
    slug: rec.id,
    title: recordTitle(rec),
    status: textField(rec.fm, 'status') ?? 'gathering',
    created: textField(rec.fm, 'created'),
    updated: textField(rec.fm, 'updated'),
    path: ctx.rel(rec.file),
  };
}

export function sessionDetail(ctx: Ctx, rec: Rec) {
  const doc = toDoc(rec.parsed?.split.body ?? rec.text);
  return {
    ...sessionSummary(ctx, rec),
    hypothesis: getField(doc, 'Current Focus', 'Hypothesis'),
    next_action: getField(doc, 'Current Focus', 'Next action'),
    evidence_count: bulletCount(doc, 'Evidence'),
    eliminated_count: bulletCount(doc, 'Eliminated'),
    symptoms: {
      expected: getField(doc, 'Symptoms', 'Expected'),
      actual: getField(doc, 'Symptoms', 'Actual'),
      errors: getField(doc, 'Symptoms', 'Errors'),
      reproduction: getField(doc, 'Symptoms', 'Reproduction'),
    },
  };
}

export const listSessions = (ctx: Ctx, which: 'active' | 'resolved') => sessionFiles(ctx, which).map((f) => sessionSummary(ctx, peekRecord(ctx, f)));

// ---- knowledge base -------------------------------------------------------

export interface KbEntry {
  slug: string;
  title: string;
  resolved: string | null;
  symptoms: string | null;
  root_cause: string | null;
  fix: string | null;
  files: string[];
  /** 1-based line of the entry's heading. */
  line: number;
  text: string;
}

const KB_HEAD = '# Debug knowledge base\n\nOne entry per resolved debug session, oldest first. `debug search` reads this file before a new investigation starts.\n';

/** The knowledge base with one entry appended (a new file when `existing` is null). */
export function appendKbEntry(existing: string | null, e: Omit<KbEntry, 'line' | 'text'> & { session: string }): string {
  const entry = [
    `## ${e.slug}: ${oneLine(e.title)}`,
    '',
    `- **Resolved:** ${e.resolved ?? 'unknown'}`,
    `- **Symptoms:** ${oneLine(e.symptoms ?? '') || 'Not recorded.'}`,
    `- **Root cause:** ${oneLine(e.root_cause ?? '')}`,
    `- **Fix:** ${oneLine(e.fix ?? '')}`,
    `- **Files:** ${e.files.length ? e.files.join(', ') : 'None recorded.'}`,
    `- **Session:** ${e.session}`,
    '',
  ].join('\n');
  const base = existing ?? KB_HEAD;
  return `${base.replace(/\s*$/, '')}\n\n${entry}`;
}

export function parseKnowledgeBase(text: string, file: string): KbEntry[] {
  const doc = toDoc(text);
  const all = headings(doc.lines);
  return all
    .filter((h) => h.level === 2)
    .map((h) => {
      const m = /^([A-Za-z0-9][A-Za-z0-9._-]*):\s*(.*)$/.exec(h.text);
      if (!m) throw failed(`${file}:${h.index + 1}: knowledge-base entry heading "${h.text}" is not "<slug>: <title>"`);
      const [start, end] = sectionRange(doc.lines, h, all);
      const get = (name: string) => findField(doc.lines, name, start, end)?.value ?? null;
      const files = get('Files');
      return {
        slug: m[1]!,
        title: m[2]!,
        resolved: get('Resolved'),
        symptoms: get('Symptoms'),
        root_cause: get('Root cause'),
        fix: get('Fix'),
        files: files && !/^none/i.test(files) ? files.split(/,\s*/) : [],
        line: h.index + 1,
        text: doc.lines.slice(h.index, end).join('\n'),
      };
    });
}

// Words too common to say anything about a bug.
const STOP = new Set('the and for with that this from when then than into not but are was were has have had does did its can cannot after before while what which where who why how all any our out get got use used using'.split(' '));

export function searchWords(text: string): string[] {
  return [...new Set(text.toLowerCase().split(/[^a-z0-9_]+/).filter((w) => w.length >= 3 && !STOP.has(w)))];
}

/** Entries sharing words with `query`, most shared words first, then newest first. */
export function searchKnowledgeBase(entries: KbEntry[], query: string, limit: number) {
  const want = searchWords(query);
  return entries
    .map((e, order) => {
      const have = new Set(searchWords(e.text));
      const matched = want.filter((w) => have.has(w));
      return { e, order, matched };
    })
    .filter((x) => x.matched.length > 0)
    .sort((a, b) => b.matched.length - a.matched.length || b.order - a.order)
    .slice(0, limit)
    .map(({ e, matched }) => ({
      slug: e.slug,
      title: e.title,
      resolved: e.resolved,
      symptoms: e.symptoms,
      root_cause: e.root_cause,
      fix: e.fix,
      files: e.files,
      score: matched.length,
      matched_words: matched,
      line: e.line,
    }));
}
