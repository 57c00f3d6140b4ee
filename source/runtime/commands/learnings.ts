// Learnings: what a finished phase taught, kept where the next plans see it.
// /gsd-extract-learnings writes the phase's <NN>-LEARNINGS.md (decisions,
// lessons, patterns, surprises as bullets); `learnings record` copies its
// bullets into the phase's section of .planning/LEARNINGS.md, the knowledge
// file the planner reads. Recording a phase again replaces its section.
import path from 'node:path';
import type { Handler } from '../cli/handler.ts';
import { str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { notFound, refused } from '../core/errors.ts';
import { readText, readTextIfExists, writeAtomic } from '../core/fs.ts';
import { fenceMask, headings, normName, sectionRange } from '../md/body.ts';
import { splitFrontmatter } from '../md/frontmatter.ts';
import { phaseInfo } from '../planning/phase-info.ts';
import { comparePhase, phaseFile } from '../planning/phases.ts';
import { withPlanningLock } from '../planning/records.ts';

/** The four kinds, in the order the knowledge file lists them. */
export const KINDS = ['Decisions', 'Lessons', 'Patterns', 'Surprises'] as const;
/** One item is one bullet; longer text is cut so a single item cannot crowd the planner's context. */
const MAX_ITEM_CHARS = 600;

const HEAD = '# Learnings\n\nWhat finished phases taught, one section per phase (written by /gsd-extract-learnings). Planners read it before planning.\n';
const PHASE_HEADING = /^## Phase ([0-9A-Z.]+)(?::|$)/;

/** Top-level bullets under each kind's `##` heading, continuation lines joined with a space. */
export function learningItems(text: string, file: string): Record<(typeof KINDS)[number], string[]> {
  const lines = splitFrontmatter(text, file).body.split(/\r?\n/);
  const mask = fenceMask(lines);
  const all = headings(lines, mask);
  const out = Object.fromEntries(KINDS.map((k) => [k, [] as string[]])) as Record<(typeof KINDS)[number], string[]>;
  for (const kind of KINDS) {
    const h = all.find((x) => x.level === 2 && normName(x.text) === normName(kind));
    if (!h) continue;
    const [from, to] = sectionRange(lines, h, all);
    let current: string[] | null = null;
    const flush = () => {
      if (!current) return;
      let item = current.join(' ').replace(/\s+/g, ' ').trim();
      if (item.length > MAX_ITEM_CHARS) item = `${item.slice(0, MAX_ITEM_CHARS - 1)}…`;
      if (item && !/^(?:none|n\/a|nothing)\.?$/i.test(item)) out[kind].push(item);
      current = null;
    };
    for (let i = from; i < to; i++) {
      if (mask[i]) continue;
      const line = lines[i]!;
      const bullet = /^[-*+]\s+(.*)$/.exec(line);
      if (bullet) {
        flush();
        current = [bullet[1]!];
      } else if (current && /^\s+\S/.test(line)) current.push(line.trim());
      else flush();
    }
    flush();
  }
  return out;
}

/** The knowledge file's phase sections: heading line index, phase number, end. */
function phaseSections(lines: string[]) {
  const all = headings(lines);
  return all
    .filter((h) => h.level === 2 && PHASE_HEADING.test(lines[h.index]!))
    .map((h) => ({ start: h.index, end: sectionRange(lines, h, all)[1], phase: PHASE_HEADING.exec(lines[h.index]!)![1]! }));
}

const knowledgeFile = (ctx: Ctx) => ctx.planningPath('LEARNINGS.md');

const learningsRecord: Handler = (inv, ctx) => {
  const info = phaseInfo(ctx, str(inv, '--phase')!);
  if (!info.dir) throw notFound(`phase ${info.number} has no directory under ${ctx.rel(ctx.planningPath('phases'))}`);
  const source = phaseFile(info.dir.dir, 'LEARNINGS');
  if (!source) throw refused(`${ctx.rel(path.join(info.dir.dir, `${info.padded}-LEARNINGS.md`))} is missing: write the phase's learnings there first`);
  const items = learningItems(readText(source), ctx.rel(source));
  const count = KINDS.reduce((n, k) => n + items[k].length, 0);
  if (count === 0) throw refused(`${ctx.rel(source)} has no bullets under ## ${KINDS.join(', ## ')}: nothing to record`);
  const title = `## Phase ${info.padded}${info.name ? `: ${info.name.replace(/\s+/g, ' ').trim()}` : ''}`;
  const section = [title, '', ...KINDS.filter((k) => items[k].length).flatMap((k) => [`### ${k}`, '', ...items[k].map((t) => `- ${t}`), '']), `Source: ${ctx.rel(source)}`, ''];
  return withPlanningLock(ctx, () => {
    const file = knowledgeFile(ctx);
    const before = readTextIfExists(file) ?? HEAD;
    const lines = before.replace(/\n*$/, '\n').split('\n');
    lines.pop();
    const sections = phaseSections(lines);
    const same = sections.find((x) => x.phase === info.padded);
    let replaced = false;
    if (same) {
      lines.splice(same.start, same.end - same.start, ...section);
      replaced = true;
    } else {
      const next = sections.find((x) => comparePhase(x.phase, info.padded) > 0);
      const at = next ? next.start : lines.length;
      const lead = at > 0 && lines[at - 1] !== '' ? [''] : [];
      lines.splice(at, 0, ...lead, ...section);
    }
    const after = `${lines.join('\n').replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '')}\n`;
    writeAtomic(file, after);
    const counts = Object.fromEntries(KINDS.map((k) => [k.toLowerCase(), items[k].length]));
    return { data: { recorded: true, replaced, phase: info.padded, counts, file: ctx.rel(file), source: ctx.rel(source) }, raw: ctx.rel(file) };
  });
};

const learningsList: Handler = (_inv, ctx) => {
  const file = knowledgeFile(ctx);
  const text = readTextIfExists(file);
  if (text === null) return { data: { exists: false, file: ctx.rel(file), phases: [] }, raw: '' };
  const lines = text.split('\n');
  const phases = phaseSections(lines).map((s) => ({
    phase: s.phase,
    title: lines[s.start]!.replace(/^## /, ''),
    items: lines.slice(s.start, s.end).filter((l) => /^- /.test(l)).length,
  }));
  return { data: { exists: true, file: ctx.rel(file), phases }, raw: phases.map((p) => p.phase).join('\n') };
};

export const handlers: Record<string, Handler> = {
  'learnings record': learningsRecord,
  'learnings list': learningsList,
};
