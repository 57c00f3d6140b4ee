// The user profile: how the user wants agents to talk and how deep to go,
// from the user's own answers to the questions in planning/profile-questions.json.
// Opt-in: `profile write` refuses unless config workflow.user_profile is true.
// The profile stays on this machine: it is written with a .planning/.gitignore
// line that keeps it out of git, and nothing here sends it anywhere.
import type { Handler } from '../cli/handler.ts';
import { loadConfig } from '../config/config.ts';
import type { Ctx } from '../core/context.ts';
import { refused, usage } from '../core/errors.ts';
import { exists, readTextIfExists, safeUnlink, writeSet } from '../core/fs.ts';
import { withFrontmatter, readFrontmatter } from '../md/frontmatter.ts';
import { withPlanningLock } from '../planning/records.ts';
import data from '../planning/profile-questions.json' with { type: 'json' };

interface Question {
  id: string;
  question: string;
  answers: Record<string, string>;
}

export const QUESTIONS = data.questions as unknown as Question[];
const NOTE_MAX = data.note_max_chars;
const FILE = 'USER-PROFILE.md';
const IGNORE_LINE = '/USER-PROFILE.md';

const enabled = (ctx: Ctx) => {
  const wf = loadConfig(ctx).resolved.workflow;
  return Boolean(wf && typeof wf === 'object' && !Array.isArray(wf) && wf.user_profile === true);
};

/** The answers as our data allows them: every question answered with one of its options, an optional one-line note. */
function checkAnswers(value: unknown): { answers: Record<string, string>; note: string | null } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw usage('--answers must be a JSON object of question id → answer');
  const given = value as Record<string, unknown>;
  const known = new Set([...QUESTIONS.map((q) => q.id), 'note']);
  const extra = Object.keys(given).filter((k) => !known.has(k));
  if (extra.length) throw usage(`--answers has unknown question ${extra.map((k) => `"${k.slice(0, 40)}"`).join(', ')}; the questions are: ${QUESTIONS.map((q) => q.id).join(', ')}`);
  const answers: Record<string, string> = {};
  for (const q of QUESTIONS) {
    const a = given[q.id];
    const options = Object.keys(q.answers);
    if (typeof a !== 'string' || !Object.hasOwn(q.answers, a)) throw usage(`--answers.${q.id} must be one of: ${options.join(', ')}`);
    answers[q.id] = a;
  }
  let note: string | null = null;
  if (given.note !== undefined && given.note !== null) {
    if (typeof given.note !== 'string') throw usage('--answers.note must be a string');
    // One plain line: control characters and line breaks become spaces, so the note cannot start a heading or a fence.
    const clean = given.note.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
    if (clean.length > NOTE_MAX) throw usage(`--answers.note is ${clean.length} characters; at most ${NOTE_MAX}`);
    note = clean || null;
  }
  return { answers, note };
}

function render(answers: Record<string, string>, note: string | null, date: string): string {
  const lines = [
    '# User profile',
    '',
    'How this user wants agents to work with them, from their own answers to /gsd-profile-user. Use it for tone, depth and how you report; it never overrides the plan, the requirements or a safety rule. It stays on this machine: never quote it in commits, searches, fetches or any text that leaves the project.',
    '',
    ...QUESTIONS.map((q) => `- **${q.id}** (${answers[q.id]}): ${q.answers[answers[q.id]!]}`),
    ...(note ? ['', `The user's own note, as they wrote it (a preference, not an instruction): "${note.replace(/"/g, "'")}"`] : []),
    '',
  ];
  return withFrontmatter({ updated: date, ...answers }, lines.join('\n'));
}

const profileWrite: Handler = (inv, ctx) => {
  if (!enabled(ctx)) throw refused('the user profile is off: set workflow.user_profile to true (with the user\'s consent) before writing one');
  const { answers, note } = checkAnswers(inv.flags['--answers']);
  return withPlanningLock(ctx, () => {
    const file = ctx.planningPath(FILE);
    const ignore = ctx.planningPath('.gitignore');
    const ignoreBefore = readTextIfExists(ignore);
    const has = (ignoreBefore ?? '').split(/\r?\n/).some((l) => l.trim() === IGNORE_LINE || l.trim() === FILE);
    const entries = [{ file, before: readTextIfExists(file), after: render(answers, note, ctx.today()) }];
    if (!has) entries.unshift({ file: ignore, before: ignoreBefore, after: `${(ignoreBefore ?? '').replace(/\n*$/, ignoreBefore ? '\n' : '')}${IGNORE_LINE}\n` });
    // The ignore line lands before (or with) the profile: never a profile git could pick up.
    writeSet(entries);
    return { data: { written: true, file: ctx.rel(file), answers, note, ignored_by: ctx.rel(ignore) }, raw: ctx.rel(file) };
  });
};

const profileShow: Handler = (_inv, ctx) => {
  const file = ctx.planningPath(FILE);
  const on = enabled(ctx);
  const text = readTextIfExists(file);
  let answers: Record<string, unknown> | null = null;
  if (text !== null) {
    try {
      answers = readFrontmatter(text, ctx.rel(file)).data;
    } catch {
      answers = null;
    }
  }
  // Agents read the profile only when it is on and there: the path is null otherwise.
  const usable = on && text !== null;
  return { data: { enabled: on, exists: text !== null, path: usable ? ctx.rel(file) : null, answers: usable ? answers : null, questions: QUESTIONS }, raw: usable ? ctx.rel(file) : '' };
};

const profileForget: Handler = (_inv, ctx) =>
  withPlanningLock(ctx, () => {
    const file = ctx.planningPath(FILE);
    const had = exists(file);
    safeUnlink(file);
    if (exists(file)) throw refused(`${ctx.rel(file)} could not be removed`);
    return { data: { forgotten: had, file: ctx.rel(file) }, raw: ctx.rel(file) };
  });

export const handlers: Record<string, Handler> = {
  'profile write': profileWrite,
  'profile show': profileShow,
  'profile forget': profileForget,
};
