// debug open | list | status | update | resolve | search: persistent debug
// sessions and their knowledge base (formats in planning/debug-session.ts).
import fs from 'node:fs';
import path from 'node:path';
import { bool, list, num, str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { refused, usage } from '../core/errors.ts';
import { exists, readTextIfExists, writeAtomic, writeSet } from '../core/fs.ts';
import { withFrontmatter } from '../md/frontmatter.ts';
import {
  KNOWLEDGE_BASE,
  appendKbEntry,
  applyResolution,
  applyUpdate,
  debugDir,
  knowledgeBasePath,
  listSessions,
  newSessionBody,
  parseKnowledgeBase,
  searchKnowledgeBase,
  sessionDetail,
} from '../planning/debug-session.ts';
import { slugify } from '../planning/phases.ts';
import { findRecord, freeName, readRecord, rewriteRecord, titleArg, withPlanningLock, type Rec } from '../planning/records.ts';
import type { Handler } from '../cli/handler.ts';


function activeSession(ctx: Ctx, id: string): Rec {
  const active = debugDir(ctx, 'active');
  try {
    return readRecord(ctx, findRecord(ctx, active, id, 'active debug session', [KNOWLEDGE_BASE]));
  } catch (error) {
    // Say so plainly when the session exists but is already archived.
    const archived = path.join(debugDir(ctx, 'resolved'), `${id.replace(/\.md$/, '')}.md`);
    if (exists(archived)) throw refused(`debug session "${id}" is resolved (${ctx.rel(archived)}); open a new session for a new problem`);
    throw error;
  }
}


const open: Handler = (inv, ctx) => {
  const title = titleArg(inv.args.title!);
  return withPlanningLock(ctx, () => {
    const name = freeName(slugify(title, 40) || 'session', [debugDir(ctx, 'active'), debugDir(ctx, 'resolved')]);
    const file = path.join(debugDir(ctx, 'active'), name);
    const now = ctx.now().toISOString();
    const body = newSessionBody(title, {
      expected: str(inv, '--expected'),
      actual: str(inv, '--actual'),
      errors: str(inv, '--errors'),
      reproduction: str(inv, '--reproduction'),
    });
    writeAtomic(file, withFrontmatter({ title, status: 'gathering', created: now, updated: now }, body));
    const slug = name.slice(0, -3);
    return { data: { opened: true, slug, path: ctx.rel(file), status: 'gathering' }, raw: slug };
  });
};

const listCmd: Handler = (inv, ctx) => {
  const which = bool(inv, '--resolved') ? 'resolved' : 'active';
  const sessions = listSessions(ctx, which);
  return { data: { count: sessions.length, status: which, sessions } };
};

const status: Handler = (inv, ctx) => {
  const id = inv.args.session!;
  let file: string;
  try {
    file = findRecord(ctx, debugDir(ctx, 'active'), id, 'debug session', [KNOWLEDGE_BASE]);
  } catch (error) {
    const resolved = path.join(debugDir(ctx, 'resolved'), `${id.replace(/\.md$/, '')}.md`);
    if (!exists(resolved)) throw error;
    file = resolved;
  }
  return { data: sessionDetail(ctx, readRecord(ctx, file)) };
};

const update: Handler = (inv, ctx) => {
  const changes = {
    hypothesis: str(inv, '--hypothesis'),
    next: str(inv, '--next'),
    evidence: str(inv, '--evidence'),
    eliminated: str(inv, '--eliminated'),
  };
  const newStatus = str(inv, '--status');
  if (newStatus === undefined && Object.values(changes).every((v) => v === undefined)) {
    throw usage('debug update needs at least one of --status, --hypothesis, --next, --evidence, --eliminated');
  }
  for (const [k, v] of Object.entries(changes)) if (v !== undefined && !v.trim()) throw usage(`--${k} is empty`);
  return withPlanningLock(ctx, () => {
    const rec = activeSession(ctx, inv.args.session!);
    const now = ctx.now().toISOString();
    const body = applyUpdate(rec.parsed!.split.body, changes, now);
    writeAtomic(rec.file, rewriteRecord(rec, { ...(newStatus ? { status: newStatus } : {}), updated: now }, body));
    return { data: { saved: true, ...sessionDetail(ctx, readRecord(ctx, rec.file)) } };
  });
};

const resolve: Handler = (inv, ctx) => {
  const rootCause = str(inv, '--root-cause')!.trim();
  const fix = str(inv, '--fix')!.trim();
  if (!rootCause || !fix) throw usage('--root-cause and --fix must say what was wrong and what changed');
  return withPlanningLock(ctx, () => {
    const rec = activeSession(ctx, inv.args.session!);
    const now = ctx.now().toISOString();
    const files = (list(inv, '--files') ?? []).flatMap((f) => f.split(',')).map((f) => f.trim()).filter(Boolean);
    const body = applyResolution(rec.parsed!.split.body, { rootCause, fix, verification: str(inv, '--verification'), files });
    const archived = path.join(debugDir(ctx, 'resolved'), path.basename(rec.file));
    if (exists(archived)) throw refused(`${ctx.rel(archived)} already exists; not overwriting it`);
    const detail = sessionDetail(ctx, rec);
    const kbFile = knowledgeBasePath(ctx);
    const kbBefore = readTextIfExists(kbFile);
    const symptoms = [detail.symptoms.actual, detail.symptoms.errors].filter((s) => s && !/^not yet known/i.test(s)).join(' / ');
    const kbAfter = appendKbEntry(kbBefore, {
      slug: rec.id,
      title: detail.title,
      resolved: now.slice(0, 10),
      symptoms: symptoms || null,
      root_cause: rootCause,
      fix,
      files,
      session: ctx.rel(archived),
    });
    // One journaled write: the archived session and the knowledge base land
    // together or not at all; only then does the active file go.
    writeSet([
      { file: archived, before: null, after: rewriteRecord(rec, { status: 'resolved', updated: now, resolved: now }, body) },
      { file: kbFile, before: kbBefore, after: kbAfter },
    ]);
    fs.unlinkSync(rec.file);
    return { data: { resolved: true, slug: rec.id, path: ctx.rel(archived), knowledge_base: ctx.rel(kbFile) }, raw: ctx.rel(archived) };
  });
};

const search: Handler = (inv, ctx) => {
  const file = knowledgeBasePath(ctx);
  const text = readTextIfExists(file);
  const limit = num(inv, '--limit') ?? 5;
  if (limit < 1) throw usage('--limit must be at least 1');
  if (text === null) return { data: { count: 0, knowledge_base: null, matches: [] } };
  const matches = searchKnowledgeBase(parseKnowledgeBase(text, ctx.rel(file)), inv.args.words!, limit);
  return { data: { count: matches.length, knowledge_base: ctx.rel(file), matches } };
};

export const handlers: Record<string, Handler> = {
  'debug open': open,
  'debug list': listCmd,
  'debug status': status,
  'debug update': update,
  'debug resolve': resolve,
  'debug search': search,
};

