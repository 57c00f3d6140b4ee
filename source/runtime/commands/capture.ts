// Captured items: todo add | list | complete, seed add | list,
// thread open | list | note | close, note add | list,
// backlog add | list | promote | drop. File layout in planning/capture.ts.
import path from 'node:path';
import { bool, str } from '../cli/parse.ts';
import { refused, usage } from '../core/errors.ts';
import { writeAtomic } from '../core/fs.ts';
import { fromDoc, toDoc } from '../md/body.ts';
import { withFrontmatter } from '../md/frontmatter.ts';
import { ensureSection } from '../md/sections.ts';
import { slugify } from '../planning/phases.ts';
import { backlogDir, backlogSummary, BACKLOG_STATES, listBacklog, listNotes, listSeeds, listThreads, listTodos, noteDir, seedDir, threadDir, threadSummary, todoDir, type BacklogState } from '../planning/capture.ts';
import { createPhase, nextPhaseNumber, phaseKnown } from './phase.ts';
import { requireRoadmap } from './roadmap.ts';
import { findRecord, freeName, moveRecord, readRecord, recordBody, recordFiles, recordTitle, rewriteRecord, textField, titleArg, withPlanningLock } from '../planning/records.ts';
import type { Handler } from '../cli/handler.ts';


const todoAdd: Handler = (inv, ctx) => {
  const title = titleArg(inv.args.title!);
  const area = str(inv, '--area');
  if (area !== undefined && !/^[a-z0-9][a-z0-9-]{0,40}$/.test(area)) throw usage(`--area "${area}" must be lowercase letters, digits and hyphens`);
  return withPlanningLock(ctx, () => {
    const name = freeName(`${ctx.today()}-${slugify(title, 50) || 'todo'}`, [todoDir(ctx, 'pending'), todoDir(ctx, 'completed')]);
    const file = path.join(todoDir(ctx, 'pending'), name);
    writeAtomic(file, withFrontmatter({ title, ...(area ? { area } : {}), created: ctx.now().toISOString() }, recordBody(title, str(inv, '--body'))));
    return { data: { added: true, id: name.slice(0, -3), path: ctx.rel(file), title, area: area ?? null }, raw: ctx.rel(file) };
  });
};

const todoList: Handler = (inv, ctx) => {
  const which = bool(inv, '--completed') ? 'completed' : 'pending';
  const area = inv.args.area;
  const todos = listTodos(ctx, which).filter((t) => area === undefined || t.area === area);
  return { data: { count: todos.length, status: which, todos } };
};

const todoComplete: Handler = (inv, ctx) =>
  withPlanningLock(ctx, () => {
    const rec = readRecord(ctx, findRecord(ctx, todoDir(ctx, 'pending'), inv.args.id!, 'pending todo'));
    const to = moveRecord(rec.file, todoDir(ctx, 'completed'), rewriteRecord(rec, { completed: ctx.now().toISOString() }));
    return { data: { completed: true, id: rec.id, path: ctx.rel(to) }, raw: ctx.rel(to) };
  });

const seedAdd: Handler = (inv, ctx) => {
  const title = titleArg(inv.args.title!);
  const trigger = str(inv, '--trigger')!.trim().replace(/\s+/g, ' ');
  if (!trigger) throw usage('--trigger is empty: say when this idea should come back');
  return withPlanningLock(ctx, () => {
    const dir = seedDir(ctx);
    const used = recordFiles(dir).map((f) => Number(/^SEED-(\d+)/.exec(path.basename(f))?.[1] ?? 0));
    const id = `SEED-${String(Math.max(0, ...used) + 1).padStart(3, '0')}`;
    const file = path.join(dir, `${id}-${slugify(title, 50) || 'seed'}.md`);
    writeAtomic(file, withFrontmatter({ id, title, trigger, status: 'dormant', planted: ctx.now().toISOString() }, recordBody(title, str(inv, '--body'))));
    return { data: { added: true, id, path: ctx.rel(file), title, trigger }, raw: ctx.rel(file) };
  });
};

const seedList: Handler = (_inv, ctx) => {
  // Dormant seeds first: they are the ones still waiting for their trigger.
  const seeds = listSeeds(ctx).sort((a, b) => Number(a.status !== 'dormant') - Number(b.status !== 'dormant'));
  return { data: { count: seeds.length, seeds } };
};

const threadOpen: Handler = (inv, ctx) => {
  const title = titleArg(inv.args.title!);
  return withPlanningLock(ctx, () => {
    const name = freeName(slugify(title, 50) || 'thread', [threadDir(ctx, 'open'), threadDir(ctx, 'resolved')]);
    const file = path.join(threadDir(ctx, 'open'), name);
    const now = ctx.now().toISOString();
    writeAtomic(file, withFrontmatter({ title, status: 'open', opened: now, updated: now }, `${recordBody(title, str(inv, '--body'))}\n## Log\n`));
    return { data: { opened: true, slug: name.slice(0, -3), path: ctx.rel(file), title }, raw: ctx.rel(file) };
  });
};

const threadList: Handler = (inv, ctx) => {
  const which = bool(inv, '--resolved') ? 'resolved' : 'open';
  const threads = listThreads(ctx, which);
  return { data: { count: threads.length, status: which, threads } };
};

const threadNote: Handler = (inv, ctx) => {
  const text = str(inv, '--body')!.trim();
  if (!text) throw usage('--body is empty');
  return withPlanningLock(ctx, () => {
    const rec = readRecord(ctx, findRecord(ctx, threadDir(ctx, 'open'), inv.args.thread!, 'open thread'));
    const now = ctx.now().toISOString();
    const body = toDoc(rec.parsed!.split.body);
    const [, end] = ensureSection(body, { re: /^log$/i, title: 'Log', level: 2 });
    let at = end;
    while (at > 0 && body.lines[at - 1]!.trim() === '') at--;
    body.lines.splice(at, end - at, '', `### ${now}`, '', ...text.split(/\r?\n/), ...(end < body.lines.length ? [''] : []));
    body.trailingNewline = true;
    writeAtomic(rec.file, rewriteRecord(rec, { updated: now }, fromDoc(body)));
    return { data: { noted: true, ...threadSummary(ctx, readRecord(ctx, rec.file)) } };
  });
};

const threadClose: Handler = (inv, ctx) =>
  withPlanningLock(ctx, () => {
    const rec = readRecord(ctx, findRecord(ctx, threadDir(ctx, 'open'), inv.args.thread!, 'open thread'));
    if (rec.fm.status === 'resolved') throw refused(`${ctx.rel(rec.file)} is already resolved`);
    const now = ctx.now().toISOString();
    const outcome = str(inv, '--outcome')?.trim();
    const to = moveRecord(rec.file, threadDir(ctx, 'resolved'), rewriteRecord(rec, { status: 'resolved', updated: now, closed: now, ...(outcome ? { outcome } : {}) }));
    return { data: { closed: true, slug: rec.id, path: ctx.rel(to) }, raw: ctx.rel(to) };
  });

const noteAdd: Handler = (inv, ctx) => {
  const title = titleArg(inv.args.title!);
  return withPlanningLock(ctx, () => {
    const name = freeName(`${ctx.today()}-${slugify(title, 50) || 'note'}`, [noteDir(ctx)]);
    const file = path.join(noteDir(ctx), name);
    writeAtomic(file, withFrontmatter({ title, created: ctx.now().toISOString() }, recordBody(title, str(inv, '--body'))));
    return { data: { added: true, id: name.slice(0, -3), path: ctx.rel(file), title }, raw: ctx.rel(file) };
  });
};

const noteList: Handler = (_inv, ctx) => {
  const notes = listNotes(ctx);
  return { data: { count: notes.length, notes } };
};

const backlogAdd: Handler = (inv, ctx) => {
  const title = titleArg(inv.args.title!);
  return withPlanningLock(ctx, () => {
    // Numbers are never reused: promoted and dropped items keep theirs.
    const used = BACKLOG_STATES.flatMap((w) => recordFiles(backlogDir(ctx, w))).map((f) => Number(/^BL-(\d+)-/.exec(path.basename(f))?.[1] ?? 0));
    const id = `BL-${String(Math.max(0, ...used) + 1).padStart(3, '0')}`;
    const file = path.join(backlogDir(ctx, 'open'), `${id}-${slugify(title, 50) || 'item'}.md`);
    writeAtomic(file, withFrontmatter({ id, title, status: 'open', added: ctx.now().toISOString() }, recordBody(title, str(inv, '--body'))));
    return { data: { added: true, id, path: ctx.rel(file), title }, raw: ctx.rel(file) };
  });
};

const backlogList: Handler = (inv, ctx) => {
  const which = (inv.args.status ?? 'open') as BacklogState;
  if (!BACKLOG_STATES.includes(which)) throw usage(`backlog status "${which}" must be one of: ${BACKLOG_STATES.join(', ')}`);
  const items = listBacklog(ctx, which);
  return { data: { count: items.length, status: which, dir: ctx.rel(backlogDir(ctx, 'open')), items } };
};

/**
 * Promote an open backlog item into a new phase at the end of the roadmap.
 * The item records the phase number it is becoming before the phase is made,
 * so a promotion cut short is finished by running it again: the phase is not
 * added twice, and the item moves to backlog/promoted/ last.
 */
const backlogPromote: Handler = (inv, ctx) =>
  withPlanningLock(ctx, () => {
    requireRoadmap(ctx);
    let rec = readRecord(ctx, findRecord(ctx, backlogDir(ctx, 'open'), inv.args.id!, 'open backlog item'));
    const title = recordTitle(rec);
    const pending = rec.fm.status === 'promoting' ? textField(rec.fm, 'phase') : null;
    // The number comes from our own earlier run, but the file is editable: take only a phase number.
    if (pending !== null && !/^\d{1,4}$/.test(pending)) throw refused(`${ctx.rel(rec.file)}: phase "${pending}" of a promotion in progress is not a phase number; set it to the phase added for this item, or remove the status and phase lines`);
    const number = pending ?? nextPhaseNumber(ctx);
    if (!pending) {
      writeAtomic(rec.file, rewriteRecord(rec, { status: 'promoting', phase: number }));
      rec = readRecord(ctx, rec.file);
    }
    const created = phaseKnown(ctx, number) ? null : createPhase(ctx, number, title);
    const to = moveRecord(rec.file, backlogDir(ctx, 'promoted'), rewriteRecord(rec, { status: 'promoted', phase: number, promoted: ctx.now().toISOString() }));
    return { data: { promoted: true, id: textField(rec.fm, 'id') ?? rec.id, phase_number: number, directory: created?.directory ?? null, resumed: pending !== null, path: ctx.rel(to), roadmap: ctx.rel(ctx.planningPath('ROADMAP.md')), state: ctx.rel(ctx.planningPath('STATE.md')) }, raw: number };
  });

const backlogDrop: Handler = (inv, ctx) => {
  const reason = str(inv, '--reason')!.trim().replace(/\s+/g, ' ');
  if (!reason) throw usage('--reason is empty: say in one line why the item is dropped');
  return withPlanningLock(ctx, () => {
    const rec = readRecord(ctx, findRecord(ctx, backlogDir(ctx, 'open'), inv.args.id!, 'open backlog item'));
    if (rec.fm.status === 'promoting') throw refused(`${ctx.rel(rec.file)} is half promoted (phase ${String(rec.fm.phase)}): run \`backlog promote ${rec.id}\` to finish it`);
    const to = moveRecord(rec.file, backlogDir(ctx, 'dropped'), rewriteRecord(rec, { status: 'dropped', reason, dropped: ctx.now().toISOString() }));
    return { data: { dropped: true, ...backlogSummary(ctx, readRecord(ctx, to)) }, raw: ctx.rel(to) };
  });
};

export const handlers: Record<string, Handler> = {
  'todo add': todoAdd,
  'todo list': todoList,
  'todo complete': todoComplete,
  'seed add': seedAdd,
  'seed list': seedList,
  'thread open': threadOpen,
  'thread list': threadList,
  'thread note': threadNote,
  'thread close': threadClose,
  'note add': noteAdd,
  'note list': noteList,
  'backlog add': backlogAdd,
  'backlog list': backlogList,
  'backlog promote': backlogPromote,
  'backlog drop': backlogDrop,
};
