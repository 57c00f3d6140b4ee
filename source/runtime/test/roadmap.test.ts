import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { parseRoadmap } from '../planning/roadmap.ts';
import { comparePhase, normalizePhase, scanPhase, slugify } from '../planning/phases.ts';
import { project, read, REQUIREMENTS_MD, ROADMAP_MD, run, standardProject, summary } from './helpers.ts';

const s = suite('runtime roadmap and phases');

const VERIFIED = '---\nphase: 01-foundation\nverified: 2025-01-03\nstatus: passed\nscore: 2/2 must-haves verified\n---\n# Verification\n';

s('should order and normalise phase numbers, decimal and lettered', () => {
  assert.is(normalizePhase('1'), '01');
  assert.is(normalizePhase('2.1'), '02.1');
  assert.is(normalizePhase('12A'), '12A');
  assert.is(normalizePhase('ABC-3'), '03');
  const sorted = ['10', '2.10', '2', '2A', '2.2', '1', '2.1'].sort(comparePhase);
  assert.equal(sorted, ['1', '2', '2.1', '2.2', '2.10', '2A', '10']);
  assert.is(slugify('Héllo, Wörld! — Auth & login'), 'hello-world-auth-login');
});

s('should pair plans with summaries across naming conventions and skip superseded plans', () => {
  const root = project({
    '.planning/phases/03-x/03-01-PLAN.md': '# a\n',
    '.planning/phases/03-x/03-01-SUMMARY.md': '# a\n',
    '.planning/phases/03-x/03-02-setup-PLAN.md': '# b\n',
    '.planning/phases/03-x/03-PLAN-03.md': '# c\n',
    '.planning/phases/03-x/03-SUMMARY-03.md': '# c\n',
    '.planning/phases/03-x/03-04-PLAN.md': '---\nstatus: Superseded\n---\n',
    '.planning/phases/03-x/03-05-PLAN-REVIEW.md': '# not a plan\n',
    '.planning/phases/03-x/03-06-OUTLINE.md': '# not a plan\n',
  });
  const scan = scanPhase(path.join(root, '.planning/phases/03-x'), '3');
  assert.equal(scan.plans.map((p) => p.id), ['03-01', '03-02', '03-03', '03-04']);
  assert.equal(scan.live.map((p) => [p.id, !!p.summary]), [['03-01', true], ['03-02', false], ['03-03', true]]);
});

s('should parse milestone windows and refuse malformed phase headings with file:line', () => {
  const text = `# Roadmap\n\n## Milestones\n\n<details><summary>✅ v1.0 MVP</summary>\n\n### Phase 1: Old\n\n</details>\n\n### 🚧 v1.1 Growth (In Progress)\n\n#### Phase 2: New\n\n**Goal**: grow\n\n#### Phase 3: Newer\n\n### 📋 v2.0 Later\n\n#### Phase 4: Future\n`;
  const rm = parseRoadmap(text, 'R.md', 'v1.1');
  assert.equal(rm.phases.map((p) => p.number), ['2', '3']);
  assert.is(rm.current?.version, 'v1.1');
  assert.is(rm.scope, 'complete');
  assert.throws(() => parseRoadmap('## Phases\n\n### Phase X: Bad\n', 'R.md'), /R\.md:3: phase heading has an invalid number "X"/);
  assert.throws(() => parseRoadmap('### Phase 1: A\n\n### Phase 01: B\n', 'R.md'), /R\.md:3: phase 01 appears twice \(first at line 1\)/);
});

s('should get one phase, or found:false with exit 0', async () => {
  const root = standardProject();
  let r = await run(['roadmap', 'get-phase', '01'], { cwd: root });
  assert.is(r.json.phase_name, 'Foundation');
  assert.equal(r.json.success_criteria, ['It builds', 'It runs']);
  assert.equal(r.json.requirements, ['CORE-01', 'CORE-02']);
  assert.is(r.json.line, 15);
  r = await run(['roadmap', 'get-phase', '2', '--pick', 'mode'], { cwd: root });
  assert.is(r.stdout, 'mvp');
  r = await run(['roadmap', 'get-phase', '9'], { cwd: root });
  assert.is(r.code, 0);
  assert.equal(r.json, { found: false, phase_number: '9' });
});

s('should analyze the roadmap with disk status', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  const r = await run(['roadmap', 'analyze'], { cwd: root });
  assert.is(r.json.phase_count, 3);
  assert.is(r.json.phases[0].disk_status, 'partial');
  assert.is(r.json.phases[0].summary_count, 1);
  assert.is(r.json.phases[1].disk_status, 'no_directory');
  assert.is(r.json.current_phase, '1');
  assert.is(r.json.next_phase, '2');
  assert.is(r.json.scope, 'complete');
  assert.is(r.json.total_plans, 2);
});

s('should update the progress row and tick finished plans', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  let r = await run(['roadmap', 'update-plan-progress', '1'], { cwd: root });
  assert.equal(r.json, { updated: true, phase: '1', plan_count: 2, summary_count: 1, status: 'In progress', complete: false });
  let text = read(root, '.planning/ROADMAP.md');
  assert.match(text, /^\| 1\. Foundation \| 1\/2 \| In progress \| - \|$/m);
  assert.match(text, /^- \[x\] 01-01: Scaffold$/m);
  assert.match(text, /^- \[ \] 01-02: CI$/m);
  r = await run(['roadmap', 'update-plan-progress', '1'], { cwd: root });
  assert.is(r.json.updated, false, 'a second run changes nothing');
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-02-SUMMARY.md'), summary('01', '02'));
  r = await run(['roadmap', 'update-plan-progress', '1'], { cwd: root });
  assert.is(r.json.complete, true);
  text = read(root, '.planning/ROADMAP.md');
  assert.match(text, /^\| 1\. Foundation \| 2\/2 \| Complete \| 2025-03-04 \|$/m);
});

s('should untick a plan whose summary is gone, and the phase with it (undo)', async () => {
  const root = standardProject({
    '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01'),
    '.planning/phases/01-foundation/01-02-SUMMARY.md': summary('01', '02'),
  });
  fs.writeFileSync(path.join(root, '.planning/ROADMAP.md'), read(root, '.planning/ROADMAP.md').replace('- [ ] **Phase 1: Foundation**', '- [x] **Phase 1: Foundation**'));
  let r = await run(['roadmap', 'update-plan-progress', '1'], { cwd: root });
  assert.is(r.json.complete, true);
  assert.match(read(root, '.planning/ROADMAP.md'), /^- \[x\] 01-02: CI$/m);
  fs.rmSync(path.join(root, '.planning/phases/01-foundation/01-02-SUMMARY.md'));
  r = await run(['roadmap', 'update-plan-progress', '1'], { cwd: root });
  assert.equal([r.json.updated, r.json.summary_count, r.json.complete], [true, 1, false]);
  const text = read(root, '.planning/ROADMAP.md');
  assert.match(text, /^- \[x\] 01-01: Scaffold$/m);
  assert.match(text, /^- \[ \] 01-02: CI$/m, 'the reverted plan is unticked');
  assert.match(text, /^- \[ \] \*\*Phase 1: Foundation\*\*/m, 'an unfinished phase is not checked off');
  assert.match(text, /^\| 1\. Foundation \| 1\/2 \| In progress \| - \|$/m);
});

s('should add, insert and remove phases, renumbering what follows', async () => {
  const root = standardProject();
  let r = await run(['phase', 'add', 'Launch', 'prep'], { cwd: root });
  assert.equal(r.json, { phase_number: '4', padded: '04', name: 'Launch prep', slug: 'launch-prep', directory: '.planning/phases/04-launch-prep', naming_mode: 'sequential' });
  r = await run(['phase', 'insert', '1', 'Hotfix auth'], { cwd: root });
  assert.is(r.json.phase_number, '1.1');
  r = await run(['phase', 'insert', '1', 'Second fix', '--raw'], { cwd: root });
  assert.is(r.stdout, '1.2');
  r = await run(['phase', 'next-decimal', '1', '--raw'], { cwd: root });
  assert.is(r.stdout, '01.3');
  let text = read(root, '.planning/ROADMAP.md');
  const headings = [...text.matchAll(/^### Phase (\S+):/gm)].map((m) => m[1]);
  assert.equal(headings, ['1', '1.1', '1.2', '2', '3', '4']);
  assert.match(text, /### Phase 1\.1: Hotfix auth \(INSERTED\)\n\n\*\*Goal\*\*: \[To be planned\]\n\*\*Depends on\*\*: Phase 1\n/);
  assert.ok(text.indexOf('| 4. Launch prep |') > text.indexOf('| 3. Polish |'));
  assert.ok(text.indexOf('### Phase 4: Launch prep') < text.indexOf('## Progress'), 'new phases go before the Progress table');
  assert.match(read(root, '.planning/STATE.md'), /^Phase: 1 of 6 \(Foundation\)$/m);
  // Remove 1.1: 1.2 becomes 1.1, directory and files included.
  fs.writeFileSync(path.join(root, '.planning/phases/01.2-second-fix/01.2-CONTEXT.md'), 'ctx\n');
  r = await run(['phase', 'remove', '1.1'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.renumbered, { '1.2': '1.1' });
  assert.equal(r.json.renamed_files, [{ from: '01.2-CONTEXT.md', to: '01.1-CONTEXT.md' }]);
  assert.ok(fs.existsSync(path.join(root, '.planning/phases/01.1-second-fix/01.1-CONTEXT.md')));
  // Remove 2: 3 → 2 and 4 → 3, and "Depends on: Phase 2" now points at what 2 depended on.
  r = await run(['phase', 'remove', '2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.renumbered, { '3': '2', '4': '3' });
  text = read(root, '.planning/ROADMAP.md');
  assert.equal([...text.matchAll(/^### Phase (\S+): (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`), ['1 Foundation', '1.1 Second fix (INSERTED)', '2 Polish', '3 Launch prep']);
  assert.match(text, /### Phase 2: Polish\n\n\*\*Goal\*\*: Shine\n\*\*Depends on\*\*: Phase 1\n/);
  assert.match(text, /^- \[ \] \*\*Phase 3: Launch prep\*\*$/m);
  assert.match(text, /^\| 3\. Launch prep \| 0\/0 \| Not started \| - \|$/m);
  assert.ok(fs.existsSync(path.join(root, '.planning/phases/03-launch-prep')));
  assert.match(read(root, '.planning/STATE.md'), /^Phase: 1 of 4 \(Foundation\)$/m);
});

s('should add a phase under the number --id gives, and refuse an --id the roadmap or the disk already has', async () => {
  const root = standardProject({ '.planning/phases/04-spike/.keep': '' });
  let r = await run(['phase', 'add', 'Launch', 'prep', '--id', '7'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { phase_number: '7', padded: '07', name: 'Launch prep', slug: 'launch-prep', directory: '.planning/phases/07-launch-prep', naming_mode: 'explicit' });
  assert.ok(fs.existsSync(path.join(root, '.planning/phases/07-launch-prep')));
  assert.not.ok(fs.existsSync(path.join(root, '.planning/phases/05-launch-prep')), 'not the next sequential number');
  let text = read(root, '.planning/ROADMAP.md');
  assert.match(text, /^- \[ \] \*\*Phase 7: Launch prep\*\*$/m);
  assert.match(text, /### Phase 7: Launch prep\n\n\*\*Goal\*\*: \[To be planned\]\n\*\*Depends on\*\*: Phase 3\n/);
  assert.match(text, /^\| 7\. Launch prep \| 0\/0 \| Not started \| - \|$/m);
  assert.match(read(root, '.planning/STATE.md'), /^Phase: 1 of 4 \(Foundation\)$/m);
  // A number below the last one goes in its place, and sequential numbering continues after the highest.
  r = await run(['phase', 'add', 'Beta', '--id', '5', '--raw'], { cwd: root });
  assert.is(r.stdout, '5', r.stderr);
  r = await run(['phase', 'add', 'Later', '--raw'], { cwd: root });
  assert.is(r.stdout, '8');
  text = read(root, '.planning/ROADMAP.md');
  assert.equal([...text.matchAll(/^### Phase (\S+):/gm)].map((m) => m[1]), ['1', '2', '3', '5', '7', '8']);
  // Taken numbers: in the roadmap (any spelling) or only on disk. Nothing is written.
  for (const [id, shown] of [['02', '2'], ['4', '4'], ['7', '7']] as const) {
    r = await run(['phase', 'add', 'Again', '--id', id], { cwd: root });
    assert.is(r.code, 1, id);
    assert.is(r.stderr, `Error: phase ${shown} already exists\n`);
  }
  r = await run(['phase', 'add', 'Again', '--id', 'seven'], { cwd: root });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'Error: phase add: --id must be a phase number like 3, 03, 12A or 2.1, found "seven"\n');
  assert.is(read(root, '.planning/ROADMAP.md'), text, 'refused adds write nothing');
  assert.not.ok(fs.readdirSync(path.join(root, '.planning/phases')).some((d) => d.endsWith('-again')), 'no directory made');
});

s('should refuse to remove a phase with work in it unless forced', async () => {
  const root = standardProject();
  const before = read(root, '.planning/ROADMAP.md');
  let r = await run(['phase', 'remove', '1'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /holds 2 files; pass --force/);
  assert.is(read(root, '.planning/ROADMAP.md'), before);
  r = await run(['phase', 'remove', '1', '--force'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/phases/01-foundation')));
});

s('should index plans by wave with dependencies and runnable plans', async () => {
  const dep = (id: string, wave: number, deps: string) => `---\nphase: 01\nplan: "${id}"\ntype: execute\nwave: ${wave}\ndepends_on: [${deps}]\nfiles_modified: []\nautonomous: true\n---\n<objective>\nPlan ${id}\n</objective>\n<tasks>\n<task type="checkpoint:human-verify"><name>x</name></task>\n</tasks>\n`;
  const root = project({
    '.planning/ROADMAP.md': ROADMAP_MD,
    '.planning/phases/01-foundation/01-01-PLAN.md': dep('01', 1, ''),
    '.planning/phases/01-foundation/01-02-PLAN.md': dep('02', 2, '"01-01"'),
    '.planning/phases/01-foundation/01-03-PLAN.md': dep('03', 1, ''),
    '.planning/phases/01-foundation/01-03-SUMMARY.md': summary('01', '03'),
  });
  const r = await run(['phase', 'plan-index', '1'], { cwd: root });
  assert.equal(r.json.waves, { 1: ['01-01', '01-03'], 2: ['01-02'] });
  assert.equal(r.json.incomplete, ['01-01', '01-02']);
  assert.equal(r.json.runnable, ['01-01']);
  assert.equal(r.json.blocked_by, { '01-02': ['01-01'] });
  assert.is(r.json.has_checkpoints, true);
  assert.is(r.json.plans[0].objective, 'Plan 01');
});

s('should leave superseded plans (status: superseded or superseded_by:) out of the plan index, init plans and phase find', async () => {
  const live = (id: string, extra = '') => `---\nphase: 01\nplan: "${id}"\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [src/${id}.ts]\nautonomous: true\n${extra}---\n<objective>\nPlan ${id}\n</objective>\n<tasks>\n<task type="auto"><name>x</name></task>\n</tasks>\n`;
  const root = project({
    '.planning/ROADMAP.md': ROADMAP_MD,
    '.planning/phases/01-foundation/01-01-PLAN.md': live('01', 'status: superseded\n'),
    '.planning/phases/01-foundation/01-02-PLAN.md': live('02', 'superseded_by: "01-03"\n'),
    '.planning/phases/01-foundation/01-03-PLAN.md': live('03'),
    '.planning/phases/01-foundation/01-04-PLAN.md': live('04', 'superseded_by: ""\n'),
  });
  let r = await run(['phase', 'plan-index', '1'], { cwd: root });
  assert.equal(r.json.plans.map((p: { id: string }) => p.id), ['01-03', '01-04'], 'an empty superseded_by does not supersede');
  assert.equal(r.json.waves, { 1: ['01-03', '01-04'] });
  assert.equal(r.json.runnable, ['01-03', '01-04']);
  r = await run(['init', 'execute-phase', '1'], { cwd: root });
  assert.equal(r.json.plans, ['01-03-PLAN.md', '01-04-PLAN.md']);
  assert.is(r.json.plan_count, 2);
  r = await run(['phase', 'find', '1'], { cwd: root });
  assert.equal([r.json.plans, r.json.plan_count, r.json.plan_count_all], [['01-03-PLAN.md', '01-04-PLAN.md'], 2, 4]);
  r = await run(['verify', 'phase-completeness', '1'], { cwd: root });
  assert.equal(r.json.superseded, ['01-01', '01-02']);
  assert.equal(r.json.missing_summaries, ['01-03', '01-04']);
});

s('should find a phase directory, or answer found:false', async () => {
  const root = standardProject();
  let r = await run(['find-phase', '1'], { cwd: root });
  assert.is(r.json.directory, '.planning/phases/01-foundation');
  assert.equal(r.json.plans, ['01-01-PLAN.md', '01-02-PLAN.md']);
  r = await run(['phase', 'find', '7'], { cwd: root });
  assert.is(r.code, 0);
  assert.is(r.json.found, false);
  assert.equal(r.json.searched_directories, ['.planning/phases/01-foundation']);
});

s('should complete a phase only when every plan has a summary and verification passed', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  const snapshot = () => ['ROADMAP.md', 'STATE.md', 'REQUIREMENTS.md'].map((f) => read(root, `.planning/${f}`));
  const before = snapshot();
  let r = await run(['phase', 'complete', '1', '--json-errors'], { cwd: root });
  assert.is(r.code, 1);
  const err = JSON.parse(r.stderr);
  assert.is(err.reason, 'refused');
  assert.equal(err.missing_summaries, ['01-02']);
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-02-SUMMARY.md'), summary('01', '02'));
  r = await run(['phase', 'complete', '1'], { cwd: root });
  assert.match(r.stderr, /verification is missing/);
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-VERIFICATION.md'), VERIFIED.replace('passed', 'gaps_found'));
  r = await run(['phase', 'complete', '1'], { cwd: root });
  assert.match(r.stderr, /verification is gaps_found/);
  assert.equal(snapshot(), before, 'refusals write nothing');
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-VERIFICATION.md'), VERIFIED);
  r = await run(['phase', 'complete', '1'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.next_phase, '2');
  assert.is(r.json.plans_executed, '2/2');
  assert.equal(r.json.requirements_marked, ['CORE-01', 'CORE-02']);
  const [roadmap, state, reqs] = snapshot();
  assert.match(roadmap!, /^- \[x\] \*\*Phase 1: Foundation\*\* - set up$/m);
  assert.match(roadmap!, /^\| 1\. Foundation \| 2\/2 \| Complete \| 2025-03-04 \|$/m);
  assert.match(state!, /^Phase: 2 of 3 \(Features\)$/m);
  assert.match(state!, /^Status: Ready to plan$/m);
  assert.match(state!, /^Progress: \[███░░░░░░░\] 33%$/m, 'one of three phases');
  assert.match(reqs!, /^- \[x\] \*\*CORE-01\*\*/m);
  assert.match(reqs!, /^\| CORE-02 \| Phase 1 \| Complete \|$/m);
});

s('should report a phase\'s verification status and next step', async () => {
  const root = standardProject();
  let r = await run(['verification', 'status', '1'], { cwd: root });
  assert.equal(r.json, { phase: '1', status: 'missing', path: null, next_action: 'verify', next_command: '/gsd-verify-work 1' });
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-VERIFICATION.md'), VERIFIED.replace('passed', 'gaps_found'));
  r = await run(['verify', 'status', '1', '--raw'], { cwd: root });
  assert.is(r.stdout, 'gaps_found');
});

s('should recompute the body progress bar', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  let r = await run(['state', 'update-progress'], { cwd: root });
  assert.is(r.json.bar, '[░░░░░░░░░░] 0%', 'min(plans 50%, phases 0%)');
  assert.equal(r.json.updated, [], 'the bar already said 0%');
  assert.is(r.json.total_plans, 2);
  assert.is(r.json.completed_plans, 1);
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-02-SUMMARY.md'), summary('01', '02'));
  r = await run(['state', 'update-progress', '--raw'], { cwd: root });
  assert.is(r.stdout, '[███░░░░░░░] 33%');
  assert.match(read(root, '.planning/STATE.md'), /^Progress: \[███░░░░░░░\] 33%$/m);
});

s('should mark requirements complete on both surfaces and report the rest', async () => {
  const root = project({ '.planning/REQUIREMENTS.md': REQUIREMENTS_MD });
  let r = await run(['requirements', 'mark-complete', '[CORE-01,', 'FEAT-01]', 'NOPE-9'], { cwd: root });
  assert.equal(r.json.marked_complete, ['CORE-01', 'FEAT-01']);
  assert.equal(r.json.not_found, ['NOPE-9']);
  assert.is(r.json.write_set.length, 4);
  r = await run(['requirements', 'mark-complete', 'CORE-01'], { cwd: root });
  assert.equal(r.json.already_complete, ['CORE-01']);
  assert.is(r.json.updated, false);
  r = await run(['requirements', 'mark-complete', 'not an id'], { cwd: root });
  assert.is(r.code, 2);
});

s('should reopen requirements on both surfaces', async () => {
  const root = project({ '.planning/REQUIREMENTS.md': REQUIREMENTS_MD });
  await run(['requirements', 'mark-complete', 'CORE-01', 'FEAT-01'], { cwd: root });
  const done = read(root, '.planning/REQUIREMENTS.md');
  let r = await run(['requirements', 'mark-pending', 'CORE-01', 'CORE-02'], { cwd: root });
  assert.equal([r.json.marked_pending, r.json.already_pending], [['CORE-01'], ['CORE-02']]);
  const text = read(root, '.planning/REQUIREMENTS.md');
  assert.match(text, /^- \[ \] \*\*CORE-01\*\*/m);
  assert.match(text, /^- \[x\] \*\*FEAT-01\*\*/m, 'the other one stays complete');
  assert.match(text, /^\| CORE-01 \| [^|]+ \| Pending \|$/m);
  r = await run(['requirements', 'mark-complete', 'CORE-01'], { cwd: root });
  assert.is(read(root, '.planning/REQUIREMENTS.md'), done, 'completing it again gives the same bytes');
});

s('should leave ROADMAP.md byte-identical and name the line when it is malformed', async () => {
  const bad = ROADMAP_MD.replace('### Phase 3: Polish', '### Phase three: Polish');
  const root = standardProject({ '.planning/ROADMAP.md': bad });
  for (const args of [['phase', 'add', 'More'], ['roadmap', 'update-plan-progress', '1'], ['roadmap', 'analyze'], ['phase', 'insert', '1', 'x']]) {
    const r = await run(args, { cwd: root });
    assert.is(r.code, 1, args.join(' '));
    assert.match(r.stderr, /Error: \.planning\/ROADMAP\.md:37: phase heading has an invalid number "three"/);
    assert.is(read(root, '.planning/ROADMAP.md'), bad);
  }
  // State writes still work; progress is simply not recomputed, with a warning.
  const r = await run(['state', 'update', 'Status', 'Planning'], { cwd: root });
  assert.is(r.code, 0);
  assert.match(r.stderr, /warning: progress not recomputed: \.planning\/ROADMAP\.md:37/);
});

s('should archive a finished milestone and refuse an unfinished one', async () => {
  const root = standardProject();
  let r = await run(['milestone', 'complete', 'v1.0'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /phases not complete: 1, 2, 3/);
  r = await run(['milestone', 'complete', 'v1.0', '--force', '--dry-run'], { cwd: root });
  assert.is(r.json.dry_run, true);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/milestones')));
  r = await run(['milestone', 'complete', 'v1.0', '--force', '--name', 'MVP'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(root, '.planning/milestones/v1.0-ROADMAP.md')));
  assert.ok(fs.existsSync(path.join(root, '.planning/milestones/v1.0-REQUIREMENTS.md')));
  assert.ok(fs.existsSync(path.join(root, '.planning/milestones/v1.0-phases/01-foundation/01-01-PLAN.md')));
  assert.match(read(root, '.planning/MILESTONES.md'), /^## v1\.0 MVP \(Shipped: 2025-03-04\)$/m);
  assert.match(read(root, '.planning/STATE.md'), /^Status: Milestone v1\.0 complete$/m);
  r = await run(['milestone', 'complete', 'v1.0', '--force'], { cwd: root });
  assert.match(r.stderr, /already exists/);
});

s.run();
