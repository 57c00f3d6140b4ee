// spec score | check: the arithmetic and the structure of a phase's design
// documents, so no prompt computes a weighted score or eyeballs a template.
// `score` turns the four clarity scores of /gsd-spec-phase into an ambiguity
// figure and a gate verdict; `check` reads SPEC.md, AI-SPEC.md or
// EVAL-REVIEW.md and reports every section still missing or unfilled, the
// counts a workflow shows (requirements, evaluation dimensions) and, for an
// eval review, its score and verdict. Rules: planning/spec-docs.json.
import { str } from '../cli/parse.ts';
import { at, notFound, refused, usage } from '../core/errors.ts';
import { readText } from '../core/fs.ts';
import { phaseInfo } from '../planning/phase-info.ts';
import { phaseFile } from '../planning/phases.ts';
import { checkDoc, DOC_KINDS, DOC_RULES, parseScore, RUBRIC, scoreAmbiguity } from '../planning/spec-docs.ts';
import type { Handler } from '../cli/handler.ts';

const specScore: Handler = (inv) => {
  const scores: Record<string, number> = {};
  for (const d of RUBRIC.dimensions) {
    const text = str(inv, `--${d.id}`);
    if (text === undefined) throw usage(`--${d.id} is missing: give the ${d.label.toLowerCase()} score from 0 to 1`);
    const n = parseScore(text);
    if (n === null) throw usage(`--${d.id} "${text}": expected a score from 0 to 1 with at most three decimals, e.g. 0.8`);
    scores[d.id] = n;
  }
  const r = scoreAmbiguity(scores);
  return { data: r, raw: String(r.ambiguity) };
};

const specCheck: Handler = (inv, ctx) => {
  const kind = str(inv, '--kind') ?? 'spec';
  if (!DOC_KINDS.includes(kind)) throw usage(`--kind "${kind}" must be one of: ${DOC_KINDS.join(', ')}`);
  const rule = DOC_RULES[kind]!;
  const info = phaseInfo(ctx, inv.args.phase!);
  if (!info.roadmap && !info.dir) throw notFound(`phase ${info.number} is neither in the roadmap nor under ${ctx.rel(ctx.planningPath('phases'))}`);
  const file = info.dir ? phaseFile(info.dir.dir, rule.suffix) : null;
  if (!file) throw notFound(`phase ${info.number} has no ${rule.suffix}.md (expected ${ctx.rel(info.dir?.dir ?? info.expectedDir)}/${info.padded}-${rule.suffix}.md)`);
  const rel = ctx.rel(file);
  const r = checkDoc(kind, readText(file), rel);
  const data = {
    kind,
    path: rel,
    phase: info.number,
    ok: r.ok,
    problems: r.problems.map((p) => ({ ...p, at: at(rel, p.line, p.section) })),
    counts: r.counts,
    ...(kind === 'spec' ? { requirement_count: r.counts.requirements ?? 0, ambiguity: r.ambiguity } : {}),
    ...(rule.verdicts ? { score: r.frontmatter.score ?? null, verdict: r.frontmatter.verdict ?? null, critical_gaps: r.frontmatter.critical_gaps ?? null } : {}),
  };
  if (!r.ok) throw refused(`${rel} is not complete:\n${r.problems.map((p) => `${at(rel, p.line, `${p.section}: ${p.problem}`)}`).join('\n')}`, data);
  return { data, raw: rel };
};

export const handlers: Record<string, Handler> = {
  'spec score': specScore,
  'spec check': specCheck,
};
