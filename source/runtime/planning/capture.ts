// Where captured items live and how they are summarised, shared by the
// todo/seed/thread verbs and `init capture`:
//   todos/{pending,completed}/<date>-<slug>.md   title, area, created, completed
//   seeds/SEED-NNN-<slug>.md                     id, title, trigger, status, planted
//   threads/<slug>.md (resolved/ when closed)    title, status, opened, closed, outcome
//   notes/<date>-<slug>.md                       title, created
//   backlog/BL-NNN-<slug>.md (promoted/, dropped/) id, title, status, added, phase, reason
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { peekRecord, recordFiles, recordTitle, textField, type Rec } from './records.ts';

export const todoDir = (ctx: Ctx, which: 'pending' | 'completed') => ctx.planningPath('todos', which);
export const seedDir = (ctx: Ctx) => ctx.planningPath('seeds');
export const threadDir = (ctx: Ctx, which: 'open' | 'resolved') =>
  which === 'open' ? ctx.planningPath('threads') : ctx.planningPath('threads', 'resolved');

export const noteDir = (ctx: Ctx) => ctx.planningPath('notes');
export const BACKLOG_STATES = ['open', 'promoted', 'dropped'] as const;
export type BacklogState = (typeof BACKLOG_STATES)[number];
export const backlogDir = (ctx: Ctx, which: BacklogState) => (which === 'open' ? ctx.planningPath('backlog') : ctx.planningPath('backlog', which));

export function todoSummary(ctx: Ctx, rec: Rec) {
  const completed = textField(rec.fm, 'completed');
  return {
    id: rec.id,
    file: ctx.rel(rec.file),
    title: recordTitle(rec),
    area: textField(rec.fm, 'area'),
    created: textField(rec.fm, 'created'),
    ...(completed ? { completed } : {}),
  };
}

export function seedSummary(ctx: Ctx, rec: Rec) {
  return {
    id: textField(rec.fm, 'id') ?? rec.id,
    title: recordTitle(rec),
    trigger: textField(rec.fm, 'trigger'),
    status: textField(rec.fm, 'status') ?? 'dormant',
    planted: textField(rec.fm, 'planted'),
    path: ctx.rel(rec.file),
  };
}

export function threadSummary(ctx: Ctx, rec: Rec) {
  return {
    slug: rec.id,
    title: recordTitle(rec),
    status: textField(rec.fm, 'status') ?? 'open',
    opened: textField(rec.fm, 'opened'),
    updated: textField(rec.fm, 'updated'),
    path: ctx.rel(rec.file),
  };
}

export const listTodos = (ctx: Ctx, which: 'pending' | 'completed') => recordFiles(todoDir(ctx, which)).map((f) => todoSummary(ctx, peekRecord(ctx, f)));
export const listSeeds = (ctx: Ctx) => recordFiles(seedDir(ctx)).map((f) => seedSummary(ctx, peekRecord(ctx, f)));
export const listThreads = (ctx: Ctx, which: 'open' | 'resolved') => recordFiles(threadDir(ctx, which)).map((f) => threadSummary(ctx, peekRecord(ctx, f)));

export function noteSummary(ctx: Ctx, rec: Rec) {
  return { id: rec.id, title: recordTitle(rec), created: textField(rec.fm, 'created'), path: ctx.rel(rec.file) };
}

export function backlogSummary(ctx: Ctx, rec: Rec) {
  return {
    id: textField(rec.fm, 'id') ?? rec.id,
    title: recordTitle(rec),
    status: textField(rec.fm, 'status') ?? 'open',
    added: textField(rec.fm, 'added'),
    phase: textField(rec.fm, 'phase'),
    reason: textField(rec.fm, 'reason'),
    path: ctx.rel(rec.file),
  };
}

export const listNotes = (ctx: Ctx) => recordFiles(noteDir(ctx)).map((f) => noteSummary(ctx, peekRecord(ctx, f)));
export const listBacklog = (ctx: Ctx, which: BacklogState) => recordFiles(backlogDir(ctx, which)).map((f) => backlogSummary(ctx, peekRecord(ctx, f)));
