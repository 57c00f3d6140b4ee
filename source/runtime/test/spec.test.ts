// spec score | check and `phase edit --mode`: the ambiguity arithmetic of
// /gsd-spec-phase, the structure check of SPEC.md, AI-SPEC.md and
// EVAL-REVIEW.md, and the user-story guard of MVP phases, through the
// bundled CLI on scratch projects.
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { read, run, standardProject, tmpDir } from './helpers.ts';
import schema from '../planning/spec-docs.schema.json' with { type: 'json' };
import rules from '../planning/spec-docs.json' with { type: 'json' };
import AjvModule from 'ajv';

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('runtime spec');
const CORE = { GSD_CORE_DIR: path.resolve('source/gsd-core') };
const DIR = '.planning/phases/02-features';

const SPEC = (fm: string, report = '| Goal clarity | 0.9 | 0.75 | |\n') => `---
phase: 02-features
status: ready
${fm}
---

# Phase 2: Features - Specification

## Goal

Signed-in users export their contacts as CSV.

## Requirements

### R1: Export button

- Now: no export
- Target: a button on /contacts
- Check: clicking it downloads contacts.csv

### R2: Encoding

- Now: none
- Target: UTF-8 with a header row
- Check: the file opens in a spreadsheet with accents intact

## In Scope

- CSV export of the user's own contacts

## Out of Scope

- Excel files (why: nobody asked)

## Constraints

- 10,000 contacts in under 2 s

## Acceptance Criteria

- [ ] /contacts has an Export button that downloads contacts.csv
- [ ] contacts.csv is UTF-8 with a header row

## Ambiguity Report

| Dimension | Score | Minimum | Note |
|---|---|---|---|
${report}`;

const GOOD_FM = 'ambiguity: 0.185\nscores:\n  goal: 0.9\n  boundary: 0.8\n  constraints: 0.7\n  acceptance: 0.8';

s('should validate spec-docs.json against its schema, with weights that sum to 1', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  assert.ok(validate(rules), JSON.stringify(validate.errors));
  const sum = rules.ambiguity.dimensions.reduce((a, d) => a + d.weight, 0);
  assert.ok(Math.abs(sum - 1) < 1e-9, `weights sum to ${sum}`);
});

s('should score ambiguity from the four clarity scores and gate on the total and each minimum', async () => {
  const root = standardProject();
  let r = await run(['spec', 'score', '--goal', '0.9', '--boundary', '0.8', '--constraints', '0.7', '--acceptance', '0.8'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.ambiguity, 0.185, '1 - (0.35*0.9 + 0.25*0.8 + 0.2*0.7 + 0.2*0.8)');
  assert.is(r.json.passed, true);
  assert.equal(r.json.below_minimum, []);
  // Low overall clarity fails the gate even with no dimension under its minimum… 
  r = await run(['spec', 'score', '--goal', '0.75', '--boundary', '0.7', '--constraints', '0.65', '--acceptance', '0.7'], { cwd: root });
  assert.is(r.json.ambiguity, 0.293);
  assert.is(r.json.passed, false);
  // …and one dimension under its minimum fails it at a low total.
  r = await run(['spec', 'score', '--goal', '1', '--boundary', '1', '--constraints', '0.6', '--acceptance', '1', '--raw'], { cwd: root });
  assert.is(r.stdout.trim(), '0.08');
  r = await run(['spec', 'score', '--goal', '1', '--boundary', '1', '--constraints', '0.6', '--acceptance', '1'], { cwd: root });
  assert.is(r.json.passed, false);
  assert.equal(r.json.below_minimum, ['constraints']);
  for (const bad of ['1.5', '-0.1', '0.12345', 'abc', '', '0.5e0', '1.01']) {
    r = await run(['spec', 'score', '--goal', bad, '--boundary', '1', '--constraints', '1', '--acceptance', '1'], { cwd: root });
    assert.is(r.code, 2, `"${bad}" is refused`);
    assert.match(r.stderr, /--goal .*expected a score from 0 to 1/);
  }
});

s('should pass a filled SPEC.md, count its requirements, and name every unfilled or inconsistent part', async () => {
  const root = standardProject({ [`${DIR}/02-SPEC.md`]: SPEC(GOOD_FM), [`${DIR}/02-UI-SPEC.md`]: '# not the spec\n' });
  let r = await run(['spec', 'check', '2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.path, `${DIR}/02-SPEC.md`, 'UI-SPEC.md is not SPEC.md');
  assert.is(r.json.requirement_count, 2);
  assert.is(r.json.ambiguity.ambiguity, 0.185);

  // The shipped template, unfilled, fails on every section that still holds placeholders.
  fs.copyFileSync(path.resolve('source/gsd-core/templates/spec.md'), path.join(root, DIR, '02-SPEC.md'));
  r = await run(['spec', 'check', '2'], { cwd: root });
  assert.is(r.code, 1);
  for (const sec of ['Goal', 'Requirements', 'In Scope', 'Out of Scope', 'Acceptance Criteria']) assert.match(r.stderr, new RegExp(`02-SPEC\\.md:\\d+: ${sec}: `), sec);

  // A stated ambiguity that the scores do not give is refused.
  fs.writeFileSync(path.join(root, DIR, '02-SPEC.md'), SPEC(GOOD_FM.replace('0.185', '0.1')));
  r = await run(['spec', 'check', '2'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /ambiguity: the dimension scores give 0\.185, found 0\.1/);

  // A dimension under its minimum must be flagged in the report.
  const low = 'ambiguity: 0.205\nscores:\n  goal: 0.9\n  boundary: 0.8\n  constraints: 0.6\n  acceptance: 0.8';
  fs.writeFileSync(path.join(root, DIR, '02-SPEC.md'), SPEC(low));
  r = await run(['spec', 'check', '2'], { cwd: root });
  assert.match(r.stderr, /below their minimum \(constraints\)/);
  fs.writeFileSync(path.join(root, DIR, '02-SPEC.md'), SPEC(low, '| Constraint clarity | 0.6 | 0.65 | below minimum: the planner treats this as an assumption |\n'));
  r = await run(['spec', 'check', '2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.ambiguity.passed, false);

  r = await run(['spec', 'check', '2', '--kind', 'ai-spec'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /phase 2 has no AI-SPEC\.md \(expected \.planning\/phases\/02-features\/02-AI-SPEC\.md\)/);
  r = await run(['spec', 'check', '9'], { cwd: root });
  assert.is(r.code, 1, 'a phase that does not exist');
});

s('should create AI-SPEC.md from the template and pass it only once every section is written', async () => {
  const root = standardProject();
  const fields = JSON.stringify({ framework: 'LangGraph', system_type: 'agent', model_provider: 'Anthropic', alternative: 'plain SDK calls' });
  let r = await run(['template', 'fill', 'ai-spec', '--phase', '2', '--fields', fields], { cwd: root, env: CORE });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.path, `${DIR}/02-AI-SPEC.md`);
  r = await run(['spec', 'check', '2', '--kind', 'ai-spec'], { cwd: root });
  assert.is(r.code, 1, 'agent sections still hold placeholders');
  assert.match(r.stderr, /Framework: still holds the template placeholder \[the deciding reasons\]/);
  assert.match(read(root, `${DIR}/02-AI-SPEC.md`), /^- Chosen: LangGraph, because/m, 'template fields filled');
  assert.match(r.stderr, /Implementation Guidance: still holds the template placeholder \[Written by gsd-ai-researcher/);
  assert.match(r.stderr, /Evaluation Dimensions: /);
  let text = read(root, `${DIR}/02-AI-SPEC.md`);
  text = text
    .replace(/\[one paragraph\]/, 'Answers support tickets.')
    .replace(/\[Written by gsd-ai-researcher[^\]]*\]/, '```python\ngraph = StateGraph(State)\n```')
    .replace(/\[Written by gsd-domain-researcher[^\]]*\]/, 'Support leads judge tone and correctness.')
    .replace('- [rubric ingredient: good looks like … / bad looks like … / stakes …]', '- Good: cites the policy; bad: invents a refund')
    .replace(/\[Written by gsd-eval-planner[^\]]*\]/, '')
    .replace('| [dimension] | [behaviour] | [code check / LLM judge with rubric / human review] | [number] |', '| Faithfulness | no invented policy | LLM judge | 0.95 |')
    .replace(/\[Where the evaluation[^\]]*\]/, '50 tickets labelled by support.')
    .replace(/- \[a check that runs[^\]]*\]/, '- PII filter on every answer')
    .replace(/\[The tracing tool[^\]]*\]/, 'Phoenix, every call.')
    .replace(/\[the deciding reasons\]/, 'graph state').replace(/\[reason\]/, 'no state').replace(/\[exact version to pin\]/, '0.2.1');
  fs.writeFileSync(path.join(root, DIR, '02-AI-SPEC.md'), text);
  r = await run(['spec', 'check', '2', '--kind', 'ai-spec'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.counts.evaluation_dimensions, 1, 'the header row is not a dimension');
});

s('should compute an EVAL-REVIEW.md score from its tables and hold its verdict to the score band', async () => {
  const review = (fm: string, infra = ['present', 'present', 'partial', 'missing'], dim = 'covered') => `---\n${fm}\n---\n\n# Review\n\n## Dimension Coverage\n\n| Dimension | Planned | Found in code | Status | Evidence |\n|---|---|---|---|---|\n| Faithfulness | judge 0.95 | evals/faith.py:12 | ${dim} | ran it |\n\n## Infrastructure\n\n| Item | Status | Evidence |\n|---|---|---|\n${infra.map((st, i) => `| item ${i} | ${st} | x |`).join('\n')}\n\n## Gaps\n\n- minor: no latency budget\n\n## Remediation\n\n1. Add a latency check\n`;
  const file = path.join(DIR, '02-EVAL-REVIEW.md');
  // 70 x 1 (one dimension covered) + 30 x (1 + 1 + 0.5 + 0) / 4 = 88.75, rounded to 89.
  const root = standardProject({ [file]: review('score: 89\nverdict: ready') });
  const check = () => run(['spec', 'check', '02', '--kind', 'eval-review'], { cwd: root });
  let r = await check();
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.score, r.json.verdict, r.json.critical_gaps], [89, 'ready', null]);
  const cases: [string, RegExp | null, string[]?, string?][] = [
    ['score: 120\nverdict: PRODUCTION READY', /verdict: expected one of ready, needs-work, significant-gaps, not-implemented[^]*score: expected a whole number from 0 to 100, found 120/],
    ['score: 95\nverdict: ready', /score: the Dimension Coverage and Infrastructure tables give 89, found 95/],
    ['score: 89\nverdict: needs-work', /verdict: score 89 gives ready, found needs-work/],
    ['score: 89\nverdict: ready\ncritical_gaps: 1', /verdict: score 89 with 1 critical gap\(s\) gives needs-work, found ready/],
    ['score: 89\nverdict: needs-work\ncritical_gaps: 1', null],
    ['score: 0\nverdict: not-implemented', null, ['missing', 'missing', 'missing', 'missing'], 'missing'],
    ['score: 0\nverdict: not-implemented', /02-EVAL-REVIEW\.md:\d+: Infrastructure: Status "done": expected one of covered, present, partial, missing/, ['done', 'missing', 'missing', 'missing'], 'missing'],
  ];
  for (const [fm, problem, infra, dim] of cases) {
    fs.writeFileSync(path.join(root, file), review(fm, infra, dim));
    r = await check();
    if (problem === null) assert.is(r.code, 0, `${fm}: ${r.stderr}`);
    else {
      assert.is(r.code, 1, fm);
      assert.match(r.stderr, problem);
    }
  }
});

s('should fail with file and line on a broken frontmatter, and stay fast on hostile text', async () => {
  const root = standardProject({ [`${DIR}/02-SPEC.md`]: '---\nscores: {goal: [\n---\n\n## Goal\n\nx\n' });
  let r = await run(['spec', 'check', '2'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /02-SPEC\.md:2: /);
  // 200 KB of unclosed brackets and headings: no backtracking blow-up.
  const hostile = SPEC(GOOD_FM).replace('## Goal\n\n', `## Goal\n\n${'[a'.repeat(50_000)}\n${'[ab '.repeat(12_500)}]\n`);
  fs.writeFileSync(path.join(root, DIR, '02-SPEC.md'), hostile);
  const started = Date.now();
  r = await run(['spec', 'check', '2'], { cwd: root });
  assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  assert.is(r.code, 1, 'a placeholder-looking run of text is still reported');
  assert.match(r.stderr, /02-SPEC\.md:16: Goal: still holds the template placeholder \[ab \[ab /);
});

s('should set a phase to MVP mode only with a user-story goal, leaving the roadmap alone when refused', async () => {
  const root = standardProject();
  const before = read(root, '.planning/ROADMAP.md');
  let r = await run(['phase', 'edit', '3', '--mode', 'mvp'], { cwd: root });
  assert.is(r.code, 1, 'goal "Shine" is no user story');
  assert.match(r.stderr, /an MVP phase's goal must be a user story/);
  for (const bad of ['As a user, I want to export.', 'As a , I want to export, so that I can.', 'As a user I want to export, so that I can back up.', 'As a user, I want to export, so that I can back up']) {
    r = await run(['phase', 'edit', '3', '--mode', 'mvp', '--goal', bad], { cwd: root });
    assert.is(r.code, 1, bad);
  }
  assert.is(read(root, '.planning/ROADMAP.md'), before, 'refused edits write nothing');
  const story = 'As a signed-in user, I want to export my contacts, so that I can back them up.';
  r = await run(['phase', 'edit', '3', '--mode', 'mvp', '--goal', story], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.changed, ['Goal', 'Mode']);
  assert.is(r.json.mode, 'mvp');
  assert.match(read(root, '.planning/ROADMAP.md'), /\*\*Goal\*\*: As a signed-in user, I want to export my contacts, so that I can back them up\.\n\*\*Mode\*\*: mvp\n\*\*Depends on\*\*: Phase 2/);
  r = await run(['init', 'mvp-phase', '3'], { cwd: root });
  assert.is(r.json.phase_mode, 'mvp');
  assert.is(r.json.phase_goal, story);
  // The goal of an MVP phase stays a story.
  r = await run(['phase', 'edit', '3', '--goal', 'Shine again'], { cwd: root });
  assert.is(r.code, 1);
  r = await run(['phase', 'edit', '3', '--mode', 'standard', '--goal', 'Shine again'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
});

s('should give spec-phase, ai-integration-phase and eval-review the paths of their documents', async () => {
  const root = standardProject({ [`${DIR}/02-SPEC.md`]: SPEC(GOOD_FM), [`${DIR}/02-AI-SPEC.md`]: '# x\n' });
  let r = await run(['init', 'spec-phase', '2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.has_spec, true);
  assert.is(r.json.spec_path, `${DIR}/02-SPEC.md`);
  assert.is(r.json.text_mode, false);
  r = await run(['init', 'ai-integration-phase', '2'], { cwd: root });
  assert.is(r.json.ai_spec_path, `${DIR}/02-AI-SPEC.md`);
  assert.ok('selector_model' in r.json && 'eval_planner_model' in r.json && 'domain_researcher_model' in r.json && 'ai_researcher_model' in r.json, Object.keys(r.json).join(' '));
  r = await run(['init', 'eval-review', '2'], { cwd: root });
  assert.is(r.json.eval_review_path, null);
  assert.ok('auditor_model' in r.json);
  r = await run(['init', 'plan-phase', '1'], { cwd: root });
  assert.is(r.json.spec_path, null);
});

s('should include plan-phase\'s mvp-mode section only for an MVP phase or --mvp', async () => {
  const core = tmpDir('gsd-core-');
  fs.mkdirSync(path.join(core, 'workflows'), { recursive: true });
  const manifest = { workflows: { 'plan-phase': [{ id: 'mvp-mode', when: 'state:phase-mvp-mode', read: 'gsd-core/workflows/plan-phase/steps/mvp-mode.md' }] } };
  fs.writeFileSync(path.join(core, 'workflows', 'section-manifest.json'), JSON.stringify(manifest));
  const root = standardProject();
  const env = { GSD_CORE_DIR: core };
  const included = async (...args: string[]) => (await run(['init', 'plan-phase', ...args, '--pick', 'section_manifest.included'], { cwd: root, env })).stdout;
  assert.is(await included('2'), '["mvp-mode"]', 'phase 2 of the fixture roadmap has **Mode:** mvp');
  assert.is(await included('1'), '[]');
  assert.is(await included('1', '--mvp'), '["mvp-mode"]');
});

s.run();
