// Throwaway experiments: spikes (does this work?) and sketches (HTML mockups:
// how should it look?), one numbered folder each under .planning/spikes/ or
// .planning/sketches/. A wrap-up keeps what was learned: the experiment's
// FINDINGS.md must exist, its README is marked wrapped with a verdict, and one
// entry goes into .planning/FINDINGS.md, the single file the planner reads.
import fs from 'node:fs';
import path from 'node:path';
import { str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, notFound, refused, usage } from '../core/errors.ts';
import { exists, isDir, listDir, readTextIfExists, writeAtomic, writeSet } from '../core/fs.ts';
import { withFrontmatter } from '../md/frontmatter.ts';
import { slugify } from '../planning/phases.ts';
import { peekRecord, readRecord, recordBody, recordTitle, rewriteRecord, textField, titleArg, withPlanningLock } from '../planning/records.ts';
import type { Handler } from '../cli/handler.ts';

const KINDS = ['spike', 'sketch'] as const;
type Kind = (typeof KINDS)[number];

function kindArg(text: string): Kind {
  if (!(KINDS as readonly string[]).includes(text)) throw usage(`kind "${text}" must be one of: ${KINDS.join(', ')}`);
  return text as Kind;
}

const DIRS: Record<Kind, string> = { spike: 'spikes', sketch: 'sketches' };
const kindDir = (ctx: Ctx, kind: Kind) => path.join(ctx.planning, DIRS[kind]);
const ENTRY = /^(\d{3})-[a-z0-9-]+$/;

function folders(ctx: Ctx, kind: Kind): string[] {
  const dir = kindDir(ctx, kind);
  return listDir(dir).filter((n) => ENTRY.test(n) && isDir(path.join(dir, n))).sort();
}

function summary(ctx: Ctx, kind: Kind, name: string) {
  const dir = path.join(kindDir(ctx, kind), name);
  const readme = path.join(dir, 'README.md');
  const rec = exists(readme) ? peekRecord(ctx, readme) : null;
  const findings = path.join(dir, 'FINDINGS.md');
  return {
    id: name.slice(0, 3),
    kind,
    slug: name,
    title: rec ? recordTitle(rec) : name,
    question: rec ? textField(rec.fm, 'question') : null,
    status: (rec && textField(rec.fm, 'status')) ?? 'open',
    verdict: rec ? textField(rec.fm, 'verdict') : null,
    dir: ctx.rel(dir),
    findings: exists(findings) ? ctx.rel(findings) : null,
  };
}

/** The folder of `kind` named by its number (`3`, `003`) or its full name. */
function findFolder(ctx: Ctx, kind: Kind, id: string): string {
  const names = folders(ctx, kind);
  const want = /^\d{1,3}$/.test(id) ? id.padStart(3, '0') : id;
  const hit = names.find((n) => n === want || n.slice(0, 3) === want);
  if (!hit) throw notFound(`no ${kind} "${id}" in ${ctx.rel(kindDir(ctx, kind))}${names.length ? `; there are: ${names.join(', ')}` : ''}`);
  return hit;
}

const experimentAdd: Handler = (inv, ctx) => {
  const kind = kindArg(inv.args.kind!);
  const title = titleArg(inv.args.title!);
  const question = str(inv, '--question')!.trim().replace(/\s+/g, ' ');
  if (!question) throw usage('--question is empty: say what this experiment should answer');
  return withPlanningLock(ctx, () => {
    const used = folders(ctx, kind).map((n) => Number(n.slice(0, 3)));
    const next = Math.max(0, ...used) + 1;
    if (next > 999) throw refused(`${ctx.rel(kindDir(ctx, kind))} already holds ${kind} 999`);
    const name = `${String(next).padStart(3, '0')}-${slugify(title, 40) || kind}`;
    const dir = path.join(kindDir(ctx, kind), name);
    if (exists(dir)) throw new CliError('refused', `${ctx.rel(dir)} already exists`);
    fs.mkdirSync(dir, { recursive: true });
    const readme = path.join(dir, 'README.md');
    try {
      writeAtomic(readme, withFrontmatter({ id: name.slice(0, 3), kind, title, question, status: 'open', started: ctx.now().toISOString() }, recordBody(title, str(inv, '--body'))));
    } catch (error) {
      fs.rmSync(dir, { recursive: true, force: true }); // no half-made experiment folder
      throw error;
    }
    return { data: { added: true, ...summary(ctx, kind, name), readme: ctx.rel(readme) }, raw: ctx.rel(dir) };
  });
};

const experimentList: Handler = (inv, ctx) => {
  const kinds = inv.args.kind === undefined ? KINDS : [kindArg(inv.args.kind)];
  const experiments = kinds.flatMap((k) => folders(ctx, k).map((n) => summary(ctx, k, n)));
  return { data: { count: experiments.length, open: experiments.filter((e) => e.status !== 'wrapped').length, experiments } };
};

const INDEX_HEAD = '# Findings\n\nWhat spikes and sketches established. Each entry links to its full FINDINGS.md.\n';

const experimentWrap: Handler = (inv, ctx) => {
  const kind = kindArg(inv.args.kind!);
  const verdict = str(inv, '--verdict')!.trim().replace(/\s+/g, ' ');
  if (!verdict) throw usage('--verdict is empty: say in one sentence what was learned');
  return withPlanningLock(ctx, () => {
    const name = findFolder(ctx, kind, inv.args.id!);
    const dir = path.join(kindDir(ctx, kind), name);
    const readme = path.join(dir, 'README.md');
    const findings = path.join(dir, 'FINDINGS.md');
    if (!exists(findings)) throw refused(`${ctx.rel(findings)} is missing: write what was learned there before wrapping up`);
    if (!exists(readme)) throw notFound(`${ctx.rel(readme)} is missing`);
    const rec = readRecord(ctx, readme);
    if (rec.fm.status === 'wrapped') throw refused(`${kind} ${name} is already wrapped up`);
    const index = ctx.planningPath('FINDINGS.md');
    const before = readTextIfExists(index);
    const base = before ?? INDEX_HEAD;
    const entry = `\n## ${kind} ${name.slice(0, 3)}: ${recordTitle(rec)}\n\n${verdict}\nDetails: ${ctx.rel(findings)}\n`;
    const now = ctx.now().toISOString();
    // One set: the index entry and the wrapped status land together or not at all.
    writeSet([
      { file: index, before, after: `${base.replace(/\n*$/, '\n')}${entry}` },
      { file: readme, before: rec.text, after: rewriteRecord(rec, { status: 'wrapped', verdict, wrapped: now }) },
    ]);
    return { data: { wrapped: true, ...summary(ctx, kind, name), index: ctx.rel(index) }, raw: ctx.rel(index) };
  });
};

export const handlers: Record<string, Handler> = {
  'experiment add': experimentAdd,
  'experiment list': experimentList,
  'experiment wrap': experimentWrap,
};
