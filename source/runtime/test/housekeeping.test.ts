// Milestone housekeeping through the bundled CLI: notes and the backlog,
// the UAT audit across phases, milestone summary and cleanup, the phase
// dashboard, and a review branch without .planning/ commits.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { cliPath, codeCacheHome, FIXED_NOW, plan, project, read, ROADMAP_MD, run, standardProject, STATE_MD, summary } from './helpers.ts';

const s = suite('runtime housekeeping');

s('should write and list notes and keep backlog numbers through add, drop and promote', async () => {
  const root = standardProject();
  let r = await run(['note', 'add', 'Search', 'is', 'slow', 'on', 'big', 'notebooks', '--body', 'Seen with 5k notes.'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.path, '.planning/notes/2025-03-04-search-is-slow-on-big-notebooks.md');
  assert.match(read(root, r.json.path), /^title: Search is slow on big notebooks$/m);
  r = await run(['note', 'list'], { cwd: root });
  assert.is(r.json.count, 1);

  r = await run(['backlog', 'add', 'Export', 'to', 'PDF'], { cwd: root });
  assert.is(r.json.id, 'BL-001');
  r = await run(['backlog', 'add', 'Dark mode', '--body', 'Asked twice.'], { cwd: root });
  assert.is(r.json.id, 'BL-002');
  r = await run(['backlog', 'drop', 'BL-001', '--reason', 'nobody asked again'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.path, '.planning/backlog/dropped/BL-001-export-to-pdf.md');
  assert.match(read(root, r.json.path), /^reason: nobody asked again$/m);
  r = await run(['backlog', 'add', 'Sync'], { cwd: root });
  assert.is(r.json.id, 'BL-003', 'a dropped item keeps its number');

  r = await run(['backlog', 'promote', 'BL-002'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.phase_number, '4');
  assert.is(r.json.directory, '.planning/phases/04-dark-mode');
  assert.match(read(root, '.planning/ROADMAP.md'), /^### Phase 4: Dark mode$/m);
  assert.match(read(root, '.planning/backlog/promoted/BL-002-dark-mode.md'), /^phase: "?4"?$/m);
  r = await run(['backlog', 'list'], { cwd: root });
  assert.equal(r.json.items.map((i: { id: string }) => i.id), ['BL-003']);
  r = await run(['backlog', 'list', 'promoted'], { cwd: root });
  assert.equal(r.json.items.map((i: { id: string; phase: string }) => `${i.id}:${i.phase}`), ['BL-002:4']);
  r = await run(['backlog', 'list', 'someday'], { cwd: root });
  assert.is(r.code, 2);
  r = await run(['backlog', 'drop', 'BL-003', '--reason', ' '], { cwd: root });
  assert.is(r.code, 2, 'an empty reason is refused');
  assert.ok(fs.existsSync(path.join(root, '.planning/backlog/BL-003-sync.md')), 'and the item stays open');
});

s('should finish a promotion cut short without adding the phase twice', async () => {
  const root = standardProject({ '.planning/backlog/BL-001-sync.md': '---\nid: BL-001\ntitle: Sync\nstatus: promoting\nphase: "4"\n---\n\n# Sync\n' });
  // The run that was cut short had already added phase 4 to the roadmap.
  fs.writeFileSync(path.join(root, '.planning/ROADMAP.md'), ROADMAP_MD.replace('## Progress', '### Phase 4: Sync\n\n**Goal**: TBD\n**Depends on**: Phase 3\n\n## Progress'));
  let r = await run(['backlog', 'drop', 'BL-001', '--reason', 'x'], { cwd: root });
  assert.is(r.code, 1, 'a half-promoted item is not dropped');
  r = await run(['backlog', 'promote', 'sync'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.resumed, true);
  assert.is(r.json.phase_number, '4');
  assert.is(read(root, '.planning/ROADMAP.md').match(/^### Phase 4:/gm)!.length, 1);
  assert.not.ok(fs.existsSync(path.join(root, '.planning/phases/05-sync')));
  assert.ok(fs.existsSync(path.join(root, '.planning/backlog/promoted/BL-001-sync.md')));
});

s('should give backlog items added at the same time distinct numbers and lose none', async () => {
  const root = standardProject();
  const cli = await cliPath();
  const env = { PATH: process.env.PATH ?? '', HOME: root, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW };
  const codes = await Promise.all(
    Array.from({ length: 6 }, (_, i) => new Promise<number>((resolve) => spawn(process.execPath, [cli, 'backlog', 'add', `Item ${i}`], { cwd: root, env, stdio: 'ignore' }).on('exit', (code) => resolve(code ?? -1)))),
  );
  assert.equal(codes, [0, 0, 0, 0, 0, 0]);
  const r = await run(['backlog', 'list'], { cwd: root });
  assert.equal(r.json.items.map((i: { id: string }) => i.id).sort(), ['BL-001', 'BL-002', 'BL-003', 'BL-004', 'BL-005', 'BL-006']);
  assert.equal(r.json.items.map((i: { title: string }) => i.title).sort(), ['Item 0', 'Item 1', 'Item 2', 'Item 3', 'Item 4', 'Item 5']);
});

s('should refuse a promotion in progress whose phase is not a phase number, changing nothing', async () => {
  const root = standardProject({ '.planning/backlog/BL-001-x.md': '---\nid: BL-001\ntitle: X\nstatus: promoting\nphase: "../../etc"\n---\n\n# X\n' });
  const r = await run(['backlog', 'promote', 'BL-001'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /phase "\.\.\/\.\.\/etc" of a promotion in progress is not a phase number/);
  assert.is(read(root, '.planning/ROADMAP.md'), ROADMAP_MD);
});

const UAT = (tests: string, gaps = 'None yet.') => `---\nstatus: testing\nphase: 01-foundation\n---\n\n# Phase 1 — Acceptance Tests\n\n## Tests\n\n${tests}\n## Gaps\n\n${gaps}\n`;

s('should audit outstanding acceptance items across live and archived phases and never call an unreadable file clear', async () => {
  const root = standardProject({
    '.planning/phases/01-foundation/01-UAT.md': UAT('### 1. Open the app\nexpected: it opens\nresult: pass\n\n### 2. Save a note\nexpected: it is listed\nresult: issue\n\n### 3. Print\nexpected: a page\nresult: blocked\nreason: no printer\n\n### 4. Search\nexpected: hits\nresult: pending\n', '- id: G-01-2\n  test: 2\n  truth: the note is listed after saving\n  severity: major\n  status: failed\n'),
    '.planning/phases/02-features/02-VERIFICATION.md': '---\nstatus: human_needed\nhuman_checks:\n  - check: drag a note onto a folder\n    expected: it moves\n---\n\n# V\n',
    '.planning/milestones/v0.9-phases/01-old/01-UAT.md': UAT('### 1. Old flow\nexpected: fine\nresult: skipped\n'),
    '.planning/phases/03-polish/03-VERIFICATION.md': '---\nstatus: gaps_found\ngaps:\n  - truth: the page is styled\n    reason: no CSS\n---\n',
  });
  let r = await run(['uat', 'audit'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.items.map((i: { kind: string; id: string; status: string }) => `${i.kind}:${i.id}:${i.status}`), ['test:3:blocked', 'test:4:pending', 'gap:G-01-2:failed', 'human-check:H-02-1:human_needed', 'gap:V-03-1:failed']);
  assert.is(r.json.items[0].detail, 'no printer');
  assert.is(r.json.items[3].detail, 'it moves');
  assert.is(r.json.all_clear, false);
  r = await run(['uat', 'audit', '--archived'], { cwd: root });
  assert.is(r.json.items[0].milestone, 'v0.9');
  assert.is(r.json.counts.total, 6);

  const clean = standardProject({ '.planning/phases/01-foundation/01-UAT.md': '---\nstatus: [broken\n---\n' });
  r = await run(['uat', 'audit'], { cwd: clean });
  assert.is(r.json.counts.total, 0);
  assert.is(r.json.unreadable.length, 1);
  assert.is(r.json.all_clear, false, 'a file that could not be read may hide open items');
});

const P1_DONE = { '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01-foundation', '01'), '.planning/phases/01-foundation/01-02-SUMMARY.md': summary('01-foundation', '02') };

s('should locate a milestone summary\'s artifacts for the current and an archived milestone', async () => {
  const root = standardProject({ ...P1_DONE, '.planning/phases/01-foundation/01-VERIFICATION.md': '---\nstatus: passed\n---\n' });
  let r = await run(['milestone', 'summary'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.version, 'v1.0');
  assert.is(r.json.archived, false);
  assert.is(r.json.output, '.planning/reports/MILESTONE_SUMMARY-v1.0.md');
  assert.equal(r.json.phases.map((p: { number: string; disk_status: string }) => `${p.number}:${p.disk_status}`), ['1:complete', '2:no_directory', '3:no_directory']);
  assert.equal(r.json.phases[0].summaries, ['.planning/phases/01-foundation/01-01-SUMMARY.md', '.planning/phases/01-foundation/01-02-SUMMARY.md']);
  assert.is(r.json.phases[0].verification_status, 'passed');
  r = await run(['milestone', 'summary', 'v0.5'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /milestone v0\.5 is neither the current one \(v1\.0\) nor archived/);
  r = await run(['milestone', 'summary', '1.0'], { cwd: root });
  assert.is(r.code, 2);

  fs.mkdirSync(path.join(root, '.planning/milestones/v1.0-phases'), { recursive: true });
  fs.copyFileSync(path.join(root, '.planning/ROADMAP.md'), path.join(root, '.planning/milestones/v1.0-ROADMAP.md'));
  fs.renameSync(path.join(root, '.planning/phases/01-foundation'), path.join(root, '.planning/milestones/v1.0-phases/01-foundation'));
  r = await run(['milestone', 'summary', 'v1.0'], { cwd: root });
  assert.is(r.json.archived, true);
  assert.is(r.json.roadmap, '.planning/milestones/v1.0-ROADMAP.md');
  assert.is(r.json.phases[0].directory, '.planning/milestones/v1.0-phases/01-foundation');
});

/** A project whose v1.0 was archived without moving its phase folders, now on v1.1 (phases 4-5). */
function archivedProject(extra: Record<string, string> = {}): string {
  const v11 = ROADMAP_MD.replace(/- \[ \] \*\*Phase 1[\s\S]*?(?=\n## Phase Details)/, '- [ ] **Phase 4: Sharing** - share\n- [ ] **Phase 5: Teams** - teams\n').replace(/### Phase 1[\s\S]*?(?=\n## Progress)/, '### Phase 4: Sharing\n\n**Goal**: Share\n**Depends on**: Nothing\n\n### Phase 5: Teams\n\n**Goal**: Teams\n**Depends on**: Phase 4\n');
  return project({
    '.planning/STATE.md': STATE_MD.replace('milestone: v1.0', 'milestone: v1.1'),
    '.planning/ROADMAP.md': v11,
    '.planning/milestones/v1.0-ROADMAP.md': ROADMAP_MD,
    '.planning/phases/01-foundation/01-01-PLAN.md': plan('01-foundation', '01'),
    ...P1_DONE,
    '.planning/phases/02-features/02-01-PLAN.md': plan('02-features', '01'),
    '.planning/phases/02-features/02-01-SUMMARY.md': summary('02-features', '01'),
    '.planning/phases/03-polish/03-01-PLAN.md': plan('03-polish', '01'),
    '.planning/phases/04-sharing/04-01-PLAN.md': plan('04-sharing', '01'),
    ...extra,
  });
}

s('should archive only finished phases of archived milestones, with a dry run that moves nothing', async () => {
  const root = archivedProject({ '.planning/phases/01-foundation/01-02-PLAN.md': plan('01-foundation', '02') });
  let r = await run(['milestone', 'cleanup', '--dry-run'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.moves.map((m: { from: string; to: string }) => `${m.from} -> ${m.to}`), ['.planning/phases/01-foundation -> .planning/milestones/v1.0-phases/01-foundation', '.planning/phases/02-features -> .planning/milestones/v1.0-phases/02-features']);
  assert.equal(r.json.kept.map((k: { phase: string; reason: string }) => `${k.phase}: ${k.reason}`), ['03: unfinished: 0 of 1 plans have a summary']);
  assert.ok(fs.existsSync(path.join(root, '.planning/phases/01-foundation')), 'a dry run moves nothing');
  r = await run(['milestone', 'cleanup'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.moved, 2);
  assert.equal(fs.readdirSync(path.join(root, '.planning/phases')).sort(), ['03-polish', '04-sharing'], 'the unfinished phase and the current milestone stay');
  assert.ok(fs.existsSync(path.join(root, '.planning/milestones/v1.0-phases/02-features/02-01-SUMMARY.md')));
  assert.not.ok(fs.existsSync(path.join(root, '.planning/milestones/.cleanup-journal.json')));
  assert.equal(r.json.files, ['.planning/phases/01-foundation', '.planning/milestones/v1.0-phases/01-foundation', '.planning/phases/02-features', '.planning/milestones/v1.0-phases/02-features']);
  r = await run(['milestone', 'cleanup'], { cwd: root });
  assert.is(r.json.moved, 0, 'a second run has nothing to do');
});

s('should finish an interrupted cleanup from its journal and refuse a journal it did not write', async () => {
  const root = archivedProject();
  // Cut short after the first of two moves.
  fs.mkdirSync(path.join(root, '.planning/milestones/v1.0-phases'), { recursive: true });
  fs.renameSync(path.join(root, '.planning/phases/01-foundation'), path.join(root, '.planning/milestones/v1.0-phases/01-foundation'));
  const journal = path.join(root, '.planning/milestones/.cleanup-journal.json');
  fs.writeFileSync(journal, JSON.stringify({ moves: [{ from: '.planning/phases/01-foundation', to: '.planning/milestones/v1.0-phases/01-foundation' }, { from: '.planning/phases/02-features', to: '.planning/milestones/v1.0-phases/02-features' }] }));
  let r = await run(['milestone', 'cleanup'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.resumed, true);
  assert.is(r.json.moved, 1);
  assert.ok(fs.existsSync(path.join(root, '.planning/milestones/v1.0-phases/02-features')));
  assert.not.ok(fs.existsSync(journal));

  for (const move of [
    { from: '.planning/phases/03-polish', to: '../../outside' },
    { from: '.planning/phases/03-polish', to: '.planning/milestones/v1.0-phases/../../../outside' },
    { from: '.planning/PROJECT.md', to: '.planning/milestones/v1.0-phases/PROJECT.md' },
    { from: '.planning/phases/03-polish', to: '.planning/milestones/v1.0-phases/renamed' },
  ]) {
    fs.writeFileSync(journal, JSON.stringify({ moves: [move] }));
    r = await run(['milestone', 'cleanup'], { cwd: root });
    assert.is(r.code, 1, JSON.stringify(move));
    assert.match(r.stderr, /is not a cleanup journal/);
  }
  assert.ok(fs.existsSync(path.join(root, '.planning/phases/03-polish')), 'nothing moved');
});

s('should show each phase with what it waits on and its next step', async () => {
  const root = standardProject({ ...P1_DONE, '.planning/phases/02-features/02-CONTEXT.md': '# ctx\n' });
  fs.writeFileSync(path.join(root, '.planning/ROADMAP.md'), ROADMAP_MD.replace('**Depends on**: Phase 2\n', '**Depends on**: Phase 2, Phase 9\n'));
  const r = await run(['roadmap', 'dashboard'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.phases.map((p: { number: string; next: string; waiting_on: string[] }) => `${p.number}:${p.next}:${p.waiting_on.join('+')}`), ['1:done:', '2:plan:', '3:wait:2']);
  assert.equal(r.json.phases[2].unknown_deps, ['9']);
  assert.equal(r.json.ready, [{ number: '2', next: 'plan' }]);
  assert.is(r.json.all_complete, false);
});

function gitIn(root: string, args: string[]): string {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: root, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.invalid' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function commitFiles(root: string, message: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  gitIn(root, ['add', '-A']);
  gitIn(root, ['commit', '-q', '-m', message]);
}

s('should make a review branch with every code change and no .planning/, leaving the current branch alone', async () => {
  const root = project({});
  fs.rmSync(path.join(root, '.planning'), { recursive: true });
  gitIn(root, ['init', '-q', '-b', 'main']);
  commitFiles(root, 'init', { 'README.md': '# app\n' });
  gitIn(root, ['checkout', '-q', '-b', 'feature']);
  commitFiles(root, 'docs: plan phase 1', { '.planning/ROADMAP.md': '# r\n', '.planning/phases/01-x/01-01-PLAN.md': 'p\n' });
  commitFiles(root, 'feat: add a', { 'src/a.ts': 'export const a = 1;\n', '.planning/STATE.md': 's\n' });
  commitFiles(root, 'feat: add b', { 'src/b.ts': 'export const b = 2;\n' });
  commitFiles(root, 'docs: summary', { '.planning/phases/01-x/01-01-SUMMARY.md': 's\n' });
  fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 99; // uncommitted\n');
  const headBefore = gitIn(root, ['rev-parse', 'HEAD']);
  const statusBefore = gitIn(root, ['status', '--porcelain']);

  let r = await run(['pr-branch', 'feature-pr', '--dry-run'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.commits.map((c: { subject: string; kind: string }) => `${c.kind}:${c.subject}`), ['planning:docs: plan phase 1', 'mixed:feat: add a', 'code:feat: add b', 'planning:docs: summary']);
  assert.is(r.json.base, 'main');
  assert.is(gitIn(root, ['branch', '--list', 'feature-pr']), '', 'a dry run creates no branch');

  r = await run(['pr-branch', 'feature-pr'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.included, 2);
  assert.equal(gitIn(root, ['ls-tree', '-r', '--name-only', 'feature-pr']).trim().split('\n'), ['README.md', 'src/a.ts', 'src/b.ts']);
  assert.is(gitIn(root, ['diff', 'feature', 'feature-pr', '--name-only', '--', '.', ':(exclude).planning']), '', 'every code change is on the review branch');
  assert.equal(gitIn(root, ['log', '--format=%s', 'main..feature-pr']).trim().split('\n'), ['feat: add b', 'feat: add a']);
  assert.is(gitIn(root, ['rev-parse', 'HEAD']), headBefore, 'HEAD is untouched');
  assert.is(gitIn(root, ['symbolic-ref', '--short', 'HEAD']).trim(), 'feature');
  assert.is(gitIn(root, ['status', '--porcelain']), statusBefore, 'the working tree and index are untouched');

  r = await run(['pr-branch', 'feature-pr'], { cwd: root });
  assert.is(r.code, 1, 'an existing branch is never overwritten');
  r = await run(['pr-branch', 'bad..name'], { cwd: root });
  assert.is(r.code, 2);
  r = await run(['pr-branch', 'other-pr', '--base', '--output=/tmp/x'], { cwd: root });
  assert.is(r.code, 2, 'a base that looks like an option is not a commit');
  gitIn(root, ['checkout', '-q', '--', 'src/a.ts']);
  gitIn(root, ['checkout', '-q', '-b', 'only-plans', 'main']);
  commitFiles(root, 'docs: notes', { '.planning/notes/a.md': 'n\n' });
  r = await run(['pr-branch', 'plans-pr'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no code changes between main and HEAD/);
  assert.is(gitIn(root, ['branch', '--list', 'plans-pr']), '');
});

s('should keep the base branch\'s .planning/ on the review branch, so the review shows no planning change', async () => {
  const root = project({});
  fs.rmSync(path.join(root, '.planning'), { recursive: true });
  gitIn(root, ['init', '-q', '-b', 'main']);
  commitFiles(root, 'init', { 'README.md': '# app\n', '.planning/PROJECT.md': '# P\n' });
  gitIn(root, ['checkout', '-q', '-b', 'feature']);
  commitFiles(root, 'feat: a with notes', { 'src/a.ts': 'a\n', '.planning/PROJECT.md': '# P changed\n', '.planning/STATE.md': 's\n' });
  const r = await run(['pr-branch', 'feature-pr'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.planning_kept_from_base, true);
  assert.is(gitIn(root, ['rev-parse', 'feature-pr:.planning']), gitIn(root, ['rev-parse', 'main:.planning']));
  assert.equal(gitIn(root, ['diff', '--name-only', 'main', 'feature-pr']).trim().split('\n'), ['src/a.ts']);
});

s.run();
