import { suite, assert } from '../../../compiler/test/harness.ts';
import { diagnoseGap, gapId, parseUat, reconcileGaps, recordResult } from '../planning/uat.ts';
import { evolveProject, phaseDecisions, requirementTexts } from '../planning/project.ts';
import { editPhaseFields } from '../planning/roadmap-edit.ts';
import { project, read, ROADMAP_MD, run, standardProject } from './helpers.ts';

const s = suite('runtime gap closure, quick tasks and phase edits');
const NOW = '2025-03-04T05:06:07.000Z';

const UAT = `---
status: testing
phase: 03-auth
updated: 2025-03-01T00:00:00.000Z
---

# Phase 3: Auth — Acceptance Tests

## Current Test

number: 1
awaiting: user response

## Tests

### 1. Sign in
expected: The dashboard shows your name
result: pending

### 2. Sign out
expected: You land on the login page
result: pending

## Summary

total: 2
passed: 0
issues: 0
pending: 2
skipped: 0
blocked: 0

## Gaps

None yet.
`;

s('should record answers, keep the counts and open one gap with a stable id per issue', () => {
  let r = recordResult(UAT, 'UAT.md', '03', 1, { result: 'pass' }, NOW);
  assert.equal([r.gap, r.next?.number, r.counts.passed, r.counts.pending], [null, 2, 1, 1]);
  r = recordResult(r.text, 'UAT.md', '03', 2, { result: 'issue', reported: 'still "signed in": header shows me', severity: 'blocker' }, NOW);
  assert.is(r.gap?.id, 'G-03-2');
  assert.equal(r.counts, { total: 2, passed: 1, issues: 1, pending: 0, skipped: 0, blocked: 0 });
  assert.match(r.text, /^reported: "still \\"signed in\\": header shows me"$/m);
  assert.match(r.text, /^## Current Test\n\n\[testing complete\]\n\n## Tests$/m);
  const u = parseUat(r.text, 'UAT.md');
  assert.equal(u.gaps.map((g) => [g.id, g.test, g.truth, g.severity, g.status]), [['G-03-2', 2, 'You land on the login page', 'blocker', 'failed']]);
  assert.is(u.fm.updated, NOW);
  assert.not.match(r.text, /None yet\./);
});

s('should refuse an issue without the user words, an unknown severity and a missing test, naming what was expected', () => {
  assert.throws(() => recordResult(UAT, 'UAT.md', '03', 1, { result: 'issue' }, NOW), /needs --reported/);
  assert.throws(() => recordResult(UAT, 'UAT.md', '03', 1, { result: 'issue', reported: 'x', severity: 'huge' }, NOW), /one of blocker, major, minor, cosmetic, found "huge"/);
  assert.throws(() => recordResult(UAT, 'UAT.md', '03', 9, { result: 'pass' }, NOW), /no test 9 .* expected one of 1, 2/);
  assert.throws(() => parseUat(UAT.replace('None yet.', '- test: 2\n  truth: x'), 'UAT.md'), /gap 1 under ## Gaps has no id/);
});

s('should give a fresh id to a failure after an earlier gap of the same test was resolved', () => {
  assert.is(gapId('03', 2, []), 'G-03-2');
  assert.is(gapId('03', 2, ['G-03-2']), 'G-03-2-r2');
  assert.is(gapId('03', 2, ['G-03-2', 'G-03-2-r2']), 'G-03-2-r3');
});

s('should write a diagnosis into its gap and mark the file diagnosed once none is left without a cause', () => {
  let text = recordResult(UAT, 'UAT.md', '03', 1, { result: 'issue', reported: 'no name' }, NOW).text;
  text = recordResult(text, 'UAT.md', '03', 2, { result: 'issue', reported: 'stays signed in' }, NOW).text;
  const one = diagnoseGap(text, 'UAT.md', 'G-03-1', { root_cause: 'name read before the session loads', files: ['src/header.ts'], session: '.planning/debug/x.md' }, NOW);
  assert.equal(one.undiagnosed, ['G-03-2']);
  assert.is(parseUat(one.text, 'UAT.md').fm.status, 'testing');
  const two = diagnoseGap(one.text, 'UAT.md', 'G-03-2', { root_cause: 'cookie not cleared', fix: 'clear it on /logout' }, NOW);
  assert.equal(two.undiagnosed, []);
  const u = parseUat(two.text, 'UAT.md');
  assert.is(u.fm.status, 'diagnosed');
  assert.equal(u.gaps.map((g) => [g.status, g.root_cause]), [['diagnosed', 'name read before the session loads'], ['diagnosed', 'cookie not cleared']]);
  assert.match(two.text, /^  files:\n    - src\/header\.ts\n  debug_session: \.planning\/debug\/x\.md$/m);
  assert.throws(() => diagnoseGap(two.text, 'UAT.md', 'G-09-1', { root_cause: 'x' }, NOW), /no gap "G-09-1" .* expected one of G-03-1, G-03-2/);
});

s('should resolve only gaps whose every gap plan has a summary, and send their tests back for a re-test', () => {
  let text = recordResult(UAT, 'UAT.md', '03', 1, { result: 'issue', reported: 'no name' }, NOW).text;
  text = recordResult(text, 'UAT.md', '03', 2, { result: 'issue', reported: 'stays signed in' }, NOW).text;
  const plans = [
    { id: '03-04', gap_ids: ['G-03-1'], has_summary: true },
    { id: '03-05', gap_ids: ['G-03-2'], has_summary: true },
    { id: '03-06', gap_ids: ['G-03-2'], has_summary: false },
  ];
  const r = reconcileGaps(text, 'UAT.md', plans, NOW);
  assert.equal([r.resolved, r.open, r.retest], [['G-03-1'], ['G-03-2'], [1]]);
  const u = parseUat(r.text, 'UAT.md');
  assert.equal(u.tests.map((t) => t.result), ['pending', 'issue']);
  assert.is(u.fm.status, 'testing');
  assert.match(r.text, /^number: 1\nname: Sign in\nawaiting: user response$/m);
  assert.not.match(r.text.split('### 2.')[0]!, /reported:/, 'the re-test starts clean');
  const again = reconcileGaps(r.text, 'UAT.md', plans, NOW);
  assert.is(again.text, r.text, 'nothing changes twice');
  assert.throws(() => diagnoseGap(r.text, 'UAT.md', 'G-03-1', { root_cause: 'x' }, NOW), /G-03-1 is resolved .* a new gap/);
});

s('should evolve PROJECT.md at a phase transition once: validated requirements and the phase decisions', () => {
  const projectMd = '# App\n\n## Requirements\n\n### Validated\n\n[Requirements proven by shipped work; empty for a new project.]\n\n### Active\n\n- Sign in\n\n## Key Decisions\n\n| Decision | Rationale | Date |\n|----------|-----------|------|\n\n---\n*Last updated: 2025-01-01*\n';
  const reqs = requirementTexts('- [x] **AUTH-01**: User can sign in\n- [ ] **AUTH-02**: User can sign out\n', ['AUTH-01', 'AUTH-09']);
  assert.equal(reqs, [{ id: 'AUTH-01', text: 'User can sign in' }, { id: 'AUTH-09', text: '' }]);
  const decisions = phaseDecisions('### Decisions\n\n- [Phase 3]: JWT in an httpOnly cookie — no token in JS\n- [Phase 2]: other\n', '3');
  assert.equal(decisions, ['JWT in an httpOnly cookie — no token in JS']);
  const r = evolveProject(projectMd, { phase: '3', date: '2025-03-04', requirements: reqs, decisions });
  assert.equal([r.validated, r.decisions], [['AUTH-01', 'AUTH-09'], decisions]);
  assert.match(r.text, /### Validated\n\n- ✓ \*\*AUTH-01\*\*: User can sign in — Phase 3\n- ✓ \*\*AUTH-09\*\* — Phase 3\n\n### Active/);
  assert.match(r.text, /\|------\|\n\| JWT in an httpOnly cookie \| no token in JS \| 2025-03-04 \|\n/);
  assert.match(r.text, /^\*Last updated: 2025-03-04 after phase 3\*$/m);
  const again = evolveProject(r.text, { phase: '3', date: '2025-03-05', requirements: reqs, decisions });
  assert.equal([again.text, again.validated, again.decisions], [r.text, [], []]);
});

const ROADMAP = '# Roadmap\n\n## Phases\n\n- [ ] **Phase 1: Auth**\n- [x] **Phase 2: Done**\n\n## Phase Details\n\n### Phase 1: Auth\n\n**Goal**: [To be planned]\n**Requirements**: TBD\n\n### Phase 2: Done\n\n**Goal**: shipped\n';

s('should edit a phase goal, add a missing field in order, and leave other phases alone', () => {
  const r = editPhaseFields(ROADMAP, 'ROADMAP.md', '1', { Goal: 'Users sign in with email', 'Depends on': 'Nothing', Requirements: 'AUTH-01, AUTH-02' });
  assert.equal(r.changed, ['Goal', 'Depends on', 'Requirements']);
  assert.match(r.text, /### Phase 1: Auth\n\n\*\*Goal\*\*: Users sign in with email\n\*\*Depends on\*\*: Nothing\n\*\*Requirements\*\*: AUTH-01, AUTH-02\n\n### Phase 2/);
  assert.match(r.text, /\*\*Goal\*\*: shipped/);
  assert.throws(() => editPhaseFields(ROADMAP, 'ROADMAP.md', '7', { Goal: 'x' }), /phase 7 has no section/);
});

s('should run phase edit, plan-index --gaps-only, uat verbs and quick list|status through the CLI', async () => {
  const root = project({
    '.planning/ROADMAP.md': ROADMAP,
    '.planning/phases/01-auth/01-UAT.md': UAT.replace('phase: 03-auth', 'phase: 01-auth'),
    '.planning/phases/01-auth/01-01-PLAN.md': '---\nphase: 01-auth\nplan: "01"\nwave: 1\n---\n',
    '.planning/phases/01-auth/01-01-SUMMARY.md': '# s\n',
    '.planning/phases/01-auth/01-02-PLAN.md': '---\nphase: 01-auth\nplan: "02"\nwave: 1\ngap_closure: true\ngap_ids: [G-01-2]\ndepends_on: ["01"]\n---\n',
    '.planning/quick/001-fix-typo/001-PLAN.md': '# p\n',
    '.planning/quick/001-fix-typo/001-SUMMARY.md': '---\nplan: "001"\n---\n\n**Typo fixed.**\n',
    '.planning/quick/002-bump-deps/002-PLAN.md': '# p\n',
    '.planning/quick/003-empty/.keep': '',
  });
  let r = await run(['phase', 'edit', '1', '--goal', 'Users sign in'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.changed, r.json.goal], [['Goal'], 'Users sign in']);
  r = await run(['phase', 'edit', '2', '--goal', 'x'], { cwd: root });
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /phase 2 is complete; pass --force/);
  r = await run(['phase', 'edit', '1'], { cwd: root });
  assert.match(r.stderr, /give at least one of --goal, --mode, --depends-on, --requirements/);

  r = await run(['phase', 'plan-index', '1', '--gaps-only'], { cwd: root });
  assert.equal([r.json.waves, r.json.runnable, r.json.plans[0].gap_ids], [{ '1': ['01-02'] }, ['01-02'], ['G-01-2']]);
  r = await run(['init', 'execute-phase', '1', '--gaps-only'], { cwd: root });
  assert.equal([r.json.plan_count, r.json.incomplete_plans, r.json.gaps_only], [1, ['01-02'], true]);

  r = await run(['uat', 'record', '1', '2', '--result', 'issue', '--reported', 'stays signed in'], { cwd: root });
  assert.is(r.json.gap_id, 'G-01-2', r.stderr);
  r = await run(['uat', 'gaps', '1'], { cwd: root });
  assert.equal([r.json.open, r.json.unplanned, r.json.gaps[0].plans, r.json.gaps[0].executed, r.json.next_plan], [['G-01-2'], [], ['01-02'], false, '03']);
  r = await run(['uat', 'reconcile', '1'], { cwd: root });
  assert.equal([r.json.resolved, r.json.updated], [[], false], 'a gap plan without a summary resolves nothing');
  r = await run(['uat', 'diagnose', '1', 'G-01-2'], { cwd: root });
  assert.is.not(r.code, 0);
  assert.match(r.stderr, /--root-cause/);
  r = await run(['uat', 'record', '9', '1', '--result', 'pass'], { cwd: root });
  assert.match(r.stderr, /phase 9 has no UAT\.md/);
  assert.match(read(root, '.planning/phases/01-auth/01-UAT.md'), /^- id: G-01-2$/m);

  r = await run(['quick', 'list'], { cwd: root });
  assert.equal(r.json.tasks.map((t: { id: string; status: string; next_step: string }) => [t.id, t.status, t.next_step]), [['001', 'done', 'none'], ['002', 'planned', 'execute'], ['003', 'started', 'plan']]);
  assert.equal([r.json.open, r.json.tasks[0].one_liner], [['002', '003'], 'Typo fixed.']);
  r = await run(['quick', 'status', '2', '--raw'], { cwd: root });
  assert.is(r.stdout.trim(), 'planned');
  r = await run(['quick', 'status', 'nope'], { cwd: root });
  assert.match(r.stderr, /no quick task "nope" .* one of: 001-fix-typo, 002-bump-deps, 003-empty/);
});


s('should set a phase\'s requirements and dependencies with --requirements and --depends-on, and refuse a dependency on a phase that does not exist', async () => {
  const root = standardProject();
  let r = await run(['phase', 'edit', '3', '--requirements', 'FEAT-01, CORE-02', '--depends-on', 'Phase 1, Phase 2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { phase: '3', changed: ['Depends on', 'Requirements'], goal: 'Shine', mode: null, depends_on: 'Phase 1, Phase 2', requirements: ['FEAT-01', 'CORE-02'] });
  const text = read(root, '.planning/ROADMAP.md');
  assert.match(text, /### Phase 3: Polish\n\n\*\*Goal\*\*: Shine\n\*\*Depends on\*\*: Phase 1, Phase 2\n\*\*Requirements\*\*: FEAT-01, CORE-02\n\*\*Plans\*\*: TBD\n/);
  r = await run(['roadmap', 'get-phase', '3'], { cwd: root });
  assert.equal([r.json.depends_on, r.json.requirements], ['Phase 1, Phase 2', ['FEAT-01', 'CORE-02']]);
  // Unknown phases, one or several, and an empty value: usage errors that write nothing.
  const refusals: [string[], string][] = [
    [['--depends-on', 'Phase 2, Phase 9'], 'phase edit: --depends-on names phase 9, which is not in the roadmap, on disk or in an archived milestone'],
    [['--requirements', 'FEAT-01', '--depends-on', 'Phase 8 and 9'], 'phase edit: --depends-on names phases 8, 9, which are not in the roadmap, on disk or in an archived milestone'],
    [['--requirements', ''], 'phase edit: --requirements is empty; expected the new text'],
    [['--depends-on', ' '], 'phase edit: --depends-on is empty; expected the new text'],
  ];
  for (const [flags, message] of refusals) {
    r = await run(['phase', 'edit', '3', ...flags], { cwd: root });
    assert.is(r.code, 2, flags.join(' '));
    assert.is(r.stderr, `Error: ${message}\n`);
  }
  assert.is(read(root, '.planning/ROADMAP.md'), text, 'refused edits write nothing');
  r = await run(['phase', 'edit', '3', '--depends-on', 'Nothing'], { cwd: root });
  assert.equal([r.code, r.json.depends_on], [0, 'Nothing'], 'no phase named, nothing to check');
});

s('should accept a dependency on a phase of an archived milestone', async () => {
  const next = '# Roadmap: Demo\n\n## Milestones\n\n<details>\n<summary>✅ v1.0 MVP</summary>\n\n- [x] Phase 1: Foundation\n- [x] Phase 2: Features\n- [x] Phase 3: Polish\n\n</details>\n\n## 🚧 v1.1 Growth\n\n### Phase 4: Sharing\n\n**Goal**: Share\n**Depends on**: Nothing\n**Requirements**: TBD\n';
  const root = project({ '.planning/ROADMAP.md': next, '.planning/milestones/v1.0-ROADMAP.md': ROADMAP_MD });
  let r = await run(['phase', 'edit', '4', '--depends-on', 'Phase 3'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.match(read(root, '.planning/ROADMAP.md'), /^\*\*Depends on\*\*: Phase 3$/m);
  r = await run(['phase', 'edit', '4', '--depends-on', 'Phase 5'], { cwd: root });
  assert.is(r.stderr, 'Error: phase edit: --depends-on names phase 5, which is not in the roadmap, on disk or in an archived milestone\n');
});

s.run();
