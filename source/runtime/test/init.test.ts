import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { WHEN_PREDICATES } from '../init/sections.ts';
import { INIT_TABLE } from '../commands/init.ts';
import { TABLE } from '../cli/table.ts';
import { isConfigKey } from '../config/config.ts';
import { REPO_ROOT } from '../build.ts';
import { project, run, standardProject, summary, tmpDir } from './helpers.ts';

const s = suite('runtime init');

function coreDir(manifest: unknown): string {
  const dir = tmpDir('gsd-core-');
  fs.mkdirSync(path.join(dir, 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'workflows', 'section-manifest.json'), typeof manifest === 'string' ? manifest : `${JSON.stringify(manifest, null, 2)}\n`);
  return dir;
}

const MANIFEST = {
  workflows: {
    'plan-phase': [
      { id: 'research-gate', when: 'flag:--research', read: 'gsd-core/workflows/plan-phase/steps/research-gate.md' },
      { id: 'prd-express-gate', when: 'flag:--prd', read: 'gsd-core/workflows/plan-phase/steps/prd-express-gate.md' },
      { id: 'chunked-planning-mode', when: 'state:chunked-mode', read: 'gsd-core/workflows/plan-phase/steps/chunked-planning-mode.md' },
    ],
    'execute-phase': [
      { id: 'partial-wave', when: 'flag:--wave', read: 'gsd-core/workflows/execute-phase/steps/partial-wave.md' },
      { id: 'gap-closure-artifacts', when: 'state:gap-closure-phase', read: 'gsd-core/workflows/execute-phase/steps/gap-closure-artifacts.md' },
      { id: 'regression-gate', when: 'state:has-prior-phases', read: 'gsd-core/workflows/execute-phase/steps/regression-gate.md' },
    ],
    'verify-work': [{ id: 'large-context', when: 'state:large-context-window', read: 'gsd-core/workflows/verify-work/steps/large-context.md' }],
  },
};

s('should have a predicate only for atoms of the frozen when= vocabulary', () => {
  const file = path.join(REPO_ROOT, 'compiler', 'data', 'when-vocabulary.json');
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { atoms?: { atom: string }[] } | { atom: string }[];
  const atoms = (Array.isArray(data) ? data : (data.atoms ?? [])).map((a) => a.atom).sort();
  assert.is(atoms.length, 30);
  assert.equal(Object.keys(WHEN_PREDICATES).filter((atom) => !atoms.includes(atom)), []);
});

s('should have a table row for every init workflow in the command table', () => {
  assert.equal(Object.keys(INIT_TABLE).sort(), Object.keys(TABLE.commands.init!.subcommands!).sort());
});

s('should select sections from flags, config and disk state', async () => {
  const root = standardProject({ '.planning/config.json': '{"context_window": 1000000, "workflow": {"plan_chunked": true}}' });
  const env = { GSD_CORE_DIR: coreDir(MANIFEST) };
  let r = await run(['init', 'plan-phase', '1', '--research'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.section_manifest, {
    workflow: 'plan-phase',
    included: ['research-gate', 'chunked-planning-mode'],
    excluded: ['prd-express-gate'],
    read: ['gsd-core/workflows/plan-phase/steps/research-gate.md', 'gsd-core/workflows/plan-phase/steps/chunked-planning-mode.md'],
  });
  r = await run(['init', 'execute-phase', '2', '--wave', '1', '--pick', 'section_manifest.included'], { cwd: root, env });
  assert.is(r.stdout, '["partial-wave"]');
  fs.mkdirSync(path.join(root, '.planning/phases/02-features'));
  fs.writeFileSync(path.join(root, '.planning/phases/01-foundation/01-01-SUMMARY.md'), summary('01', '01'));
  r = await run(['init', 'execute-phase', '2.1', '--pick', 'section_manifest.included'], { cwd: root, env });
  assert.is(r.stdout, '["gap-closure-artifacts","regression-gate"]');
  r = await run(['init', 'verify-work', '2', '--pick', 'section_manifest.included'], { cwd: root, env });
  assert.is(r.stdout, '["large-context"]', 'context_window 1000000 is at least 500000');
  const lean = standardProject({ '.planning/config.json': '{"context_window": 499999}' });
  r = await run(['init', 'verify-work', '2', '--pick', 'section_manifest.included'], { cwd: lean, env });
  assert.is(r.stdout, '[]', 'below 500000 the lean prompts stay');
  r = await run(['init', 'progress', '--pick', 'section_manifest'], { cwd: root, env });
  assert.is(r.stdout, '', 'a workflow the manifest does not list gets null: read everything');
});

s('should read compact variants of steps and agents only with workflow.compact_content on and the variant shipped', async () => {
  const manifest = {
    workflows: {
      'plan-phase': [
        { id: 'research-gate', when: 'flag:--research', read: 'gsd-core/workflows/plan-phase/steps/research-gate.md', compact: 'gsd-core/workflows/plan-phase/steps/research-gate.compact.md' },
        { id: 'prd-express-gate', when: 'always', read: 'gsd-core/workflows/plan-phase/steps/prd-express-gate.md' },
      ],
    },
    compact: {
      'gsd-core/workflows/plan-phase/steps/research-gate.md': 'gsd-core/workflows/plan-phase/steps/research-gate.compact.md',
      'gsd-core/workflows/plan-phase/steps/revision-loop.md': 'gsd-core/workflows/plan-phase/steps/revision-loop.compact.md',
    },
  };
  const dir = coreDir(manifest);
  fs.mkdirSync(path.join(dir, 'agents'));
  fs.writeFileSync(path.join(dir, 'agents', 'gsd-planner.compact.md'), '# planner, compact\n');
  const env = { GSD_CORE_DIR: dir };
  const off = standardProject();
  let r = await run(['init', 'plan-phase', '1', '--research'], { cwd: off, env });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.compact_content, false, 'the default is off');
  assert.equal(r.json.section_manifest.read, ['gsd-core/workflows/plan-phase/steps/research-gate.md', 'gsd-core/workflows/plan-phase/steps/prd-express-gate.md']);
  assert.is(r.json.planner_prompt, null);
  assert.is(r.json.checker_prompt, null);
  assert.equal(r.json.read_instead, {});
  const on = standardProject({ '.planning/config.json': '{"workflow": {"compact_content": true}}' });
  r = await run(['init', 'plan-phase', '1', '--research'], { cwd: on, env });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.compact_content, true);
  // The compact sibling where one is shipped, the canonical file where none is.
  assert.equal(r.json.section_manifest.read, ['gsd-core/workflows/plan-phase/steps/research-gate.compact.md', 'gsd-core/workflows/plan-phase/steps/prd-express-gate.md']);
  assert.is(r.json.planner_prompt, path.join(dir, 'agents', 'gsd-planner.compact.md'));
  assert.is(r.json.checker_prompt, null, 'no gsd-plan-checker.compact.md in the bundle: the agent keeps its own prompt');
  assert.equal(r.json.read_instead, manifest.compact, 'steps no section gates are swapped too');
  // A manifest whose compact entry is not a .compact.md path fails closed.
  const bad = coreDir({ workflows: { 'plan-phase': [{ id: 'x', when: 'always', read: 'a.md', compact: '../../etc/passwd' }] } });
  r = await run(['init', 'plan-phase', '1'], { cwd: on, env: { GSD_CORE_DIR: bad } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /section-manifest\.json:\d+: workflow "plan-phase": a section's compact must be the \.compact\.md sibling of its read file/);
  const sideways = coreDir({ workflows: { 'plan-phase': [{ id: 'x', when: 'always', read: 'gsd-core/workflows/a/steps/x.md', compact: 'gsd-core/workflows/b/steps/x.compact.md' }] } });
  r = await run(['init', 'plan-phase', '1'], { cwd: on, env: { GSD_CORE_DIR: sideways } });
  assert.is(r.code, 1, "a .compact.md that is not the read file's sibling");
  // A compact map that sends a read anywhere but the canonical file's own sibling fails closed too.
  const elsewhere = coreDir({ workflows: {}, compact: { 'gsd-core/workflows/a/steps/x.md': 'gsd-core/workflows/b/steps/x.compact.md' } });
  r = await run(['init', 'plan-phase', '1'], { cwd: on, env: { GSD_CORE_DIR: elsewhere } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /section-manifest\.json:\d+: expected "compact" to map each canonical \.md path to its \.compact\.md sibling/);
});

s('should fail closed on an unknown when atom, naming the manifest line', async () => {
  const text = JSON.stringify({ workflows: { 'plan-phase': [{ id: 'x', when: 'flag:--research', read: 'a.md' }, { id: 'y', when: 'state:made-up', read: 'b.md' }] } }, null, 2);
  const env = { GSD_CORE_DIR: coreDir(text) };
  const root = standardProject();
  let r = await run(['init', 'plan-phase', '1'], { cwd: root, env });
  assert.is(r.code, 1);
  assert.match(r.stderr, /section-manifest\.json:11: unknown when atom "state:made-up" in workflow plan-phase, section y/);
  r = await run(['init', 'plan-phase', '1'], { cwd: root, env: { GSD_CORE_DIR: coreDir('{"sections": []}') } });
  assert.match(r.stderr, /section-manifest\.json:1: expected \{"workflows"/);
  r = await run(['init', 'plan-phase', '1'], { cwd: root, env: { GSD_CORE_DIR: coreDir('{"workflows": {"plan-phase": [}') } });
  assert.match(r.stderr, /section-manifest\.json:1:\d+: invalid JSON/);
});

s('should return phase, models, settings and paths for plan-phase', async () => {
  const root = standardProject({ '.planning/config.json': '{"model_profile": "budget", "workflow": {"research": false}}', '.planning/phases/01-foundation/01-CONTEXT.md': 'ctx\n' });
  const r = await run(['init', 'plan-phase', '1', '--tdd'], { cwd: root, env: { GSD_CORE_DIR: coreDir(MANIFEST) } });
  const j = r.json;
  assert.is(j.planner_model, 'sonnet');
  assert.is(j.researcher_model, 'haiku');
  assert.is(j.research_enabled, false);
  assert.is(j.tdd_mode, true);
  assert.is(j.phase_found, true);
  assert.is(j.phase_dir, '.planning/phases/01-foundation');
  assert.is(j.phase_number, '01');
  assert.is(j.phase_name, 'Foundation');
  assert.is(j.phase_req_ids, 'CORE-01, CORE-02');
  assert.is(j.has_context, true);
  assert.is(j.context_path, '.planning/phases/01-foundation/01-CONTEXT.md');
  assert.is(j.plan_count, 2);
  assert.is(j.ui_phase, true, 'workflow.ui_phase defaults to true, so plan-phase can offer /gsd-ui-phase');
  assert.is(j.nyquist_validation_enabled, true);
  assert.is(j.project_title, 'Demo Project');
  assert.is(j.project_root, root);
  assert.equal(j.flags, ['--tdd']);
  assert.is(j.agents_installed, false);
  assert.equal(j.missing_agents, ['gsd-phase-researcher', 'gsd-planner', 'gsd-plan-checker', 'gsd-pattern-mapper']);
  const unknown = await run(['init', 'plan-phase', '7'], { cwd: root });
  assert.is(unknown.json.phase_found, false);
  assert.is(unknown.json.expected_phase_dir, '.planning/phases/07');
});

s('should list plans, waves and a branch name for execute-phase', async () => {
  const root = standardProject({ '.planning/config.json': '{"git": {"branching_strategy": "phase"}}', '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  const r = await run(['init', 'execute-phase', '1'], { cwd: root });
  assert.equal(r.json.plans, ['01-01-PLAN.md', '01-02-PLAN.md']);
  assert.equal(r.json.incomplete_plans, ['01-02']);
  assert.equal(r.json.runnable_plans, ['01-02']);
  assert.is(r.json.branch_name, 'gsd/phase-01-foundation');
  assert.is(r.json.executor_model, 'sonnet');
  assert.is(r.json.milestone_version, 'v1.0');
});

s('should run every init workflow on a project and on an empty directory', async () => {
  const root = standardProject();
  const empty = tmpDir();
  for (const [wf, spec] of Object.entries(TABLE.commands.init!.subcommands!)) {
    const needsPhase = spec.args?.some((a) => a.name === 'phase' && a.required);
    const args = ['init', wf, ...(needsPhase ? ['1'] : [])];
    const a = await run(args, { cwd: root });
    assert.is(a.code, 0, `${wf}: ${a.stderr}`);
    assert.is(a.json.workflow, wf);
    const b = await run(args, { cwd: empty });
    assert.is(b.code, 0, `${wf} (no project): ${b.stderr}`);
    assert.is(b.json.planning_exists, false);
  }
});

s('should give the review, audit and UI workflows their models and phase documents', async () => {
  const root = standardProject({
    '.planning/phases/01-foundation/01-UI-REVIEW.md': '# ui review\n',
    '.planning/phases/01-foundation/01-SECURITY.md': '# security\n',
    '.planning/phases/01-foundation/01-VALIDATION.md': '# validation\n',
  });
  const models: Record<string, string[]> = {
    'secure-phase': ['auditor_model'],
    'ui-phase': ['researcher_model', 'checker_model'],
    'ui-review': ['auditor_model'],
    'validate-phase': ['auditor_model'],
    'add-tests': ['executor_model'],
    ship: ['reviewer_model', 'writer_model'],
    'code-review': ['reviewer_model', 'fixer_model'],
  };
  for (const [wf, keys] of Object.entries(models)) {
    const r = await run(['init', wf, '1'], { cwd: root });
    assert.is(r.code, 0, `${wf}: ${r.stderr}`);
    for (const k of keys) assert.type(r.json[k], 'string', `${wf} ${k}`);
    assert.is(r.json.ui_review_path, '.planning/phases/01-foundation/01-UI-REVIEW.md', wf);
    // 01-UI-REVIEW.md ends in -REVIEW.md but is not the code review.
    assert.is(r.json.review_path, null, `${wf}: the UI review is not the code review`);
    assert.is(r.json.security_path, '.planning/phases/01-foundation/01-SECURITY.md');
    assert.is(r.json.validation_path, '.planning/phases/01-foundation/01-VALIDATION.md');
  }
  let review = await run(['init', 'code-review', '1'], { cwd: root });
  assert.is(review.json.review_depth, 'standard', 'the schema default');
  review = await run(['init', 'code-review', '1', '--depth', 'deep', '--auto'], { cwd: root });
  assert.is(review.json.review_depth, 'deep');
  const ship = await run(['init', 'ship', '1'], { cwd: root });
  assert.equal([ship.json.current_branch, ship.json.has_remote, ship.json.working_tree_clean], [null, false, null], 'no git: branch facts are empty');
  const audit = await run(['init', 'audit-milestone'], { cwd: root });
  assert.type(audit.json.checker_model, 'string');
  assert.ok(Array.isArray(audit.json.phases));
});

s('should answer the config settings each row declares, with defaults, under their last key segment', async () => {
  for (const [wf, spec] of Object.entries(INIT_TABLE)) for (const key of spec.settings ?? []) assert.ok(isConfigKey(key), `${wf}: ${key} is not a config key`);
  const root = standardProject({ '.planning/config.json': '{"workflow": {"security_block_on": "critical"}}' });
  const r = await run(['init', 'secure-phase', '1'], { cwd: root });
  assert.equal([r.json.security_block_on, r.json.security_asvs_level], ['critical', 1], 'the file value, then the schema default');
});

s('should tell update which bundle is installed where gsd-tools runs', async () => {
  const root = standardProject();
  const r = await run(['init', 'update'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.installed, false, 'the test bundle was never installed');
  assert.is(r.json.installed_version, null);
  assert.type(r.json.install_root, 'string');
});

s('should report progress with per-phase next actions', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  const r = await run(['init', 'progress'], { cwd: root });
  assert.is(r.json.phase_count, 3);
  assert.is(r.json.current_phase.number, '1');
  assert.is(r.json.current_phase.next_action, 'execute-phase');
  assert.is(r.json.current_phase.next_command, '/gsd-execute-phase 1');
  assert.is(r.json.phases[1].next_action, 'discuss-phase');
});

s('should start the autonomous queue at the phase --from names, and refuse a phase the milestone does not have', async () => {
  const root = standardProject();
  fs.writeFileSync(path.join(root, '.planning/ROADMAP.md'), fs.readFileSync(path.join(root, '.planning/ROADMAP.md'), 'utf8').replace('- [ ] **Phase 1: Foundation**', '- [x] **Phase 1: Foundation**'));
  assert.is((await run(['phase', 'insert', '2', 'Cart fixes'], { cwd: root })).code, 0);
  let r = await run(['init', 'autonomous'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.from_phase, r.json.queue], [null, ['2', '2.1', '3']], 'every open phase, complete phase 1 left out');
  const queues: [string, string, string[]][] = [
    ['2.1', '2.1', ['2.1', '3']],
    ['03', '3', ['3']],
    ['1', '1', ['2', '2.1', '3']],
  ];
  for (const [from, shown, queue] of queues) {
    r = await run(['init', 'autonomous', '--from', from], { cwd: root });
    assert.is(r.code, 0, r.stderr);
    assert.equal([r.json.from_phase, r.json.queue], [shown, queue], `--from ${from}`);
    assert.equal([r.json.phase_count, r.json.completed_count, r.json.phases.length], [4, 1, 4], 'the counts still cover the whole milestone');
  }
  r = await run(['init', 'autonomous', '--from', '9'], { cwd: root });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'Error: init autonomous: --from 9: the milestone has no phase 9 (its phases: 1, 2, 2.1, 3)\n');
  r = await run(['init', 'autonomous', '--from', 'next'], { cwd: root });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'Error: init autonomous: --from must be a phase number like 3, 03, 12A or 2.1, found "next"\n');
  // Without a roadmap there is nothing to check --from against: the workflow stops on roadmap_exists.
  r = await run(['init', 'autonomous', '--from', '2'], { cwd: tmpDir() });
  assert.equal([r.code, r.json.roadmap_exists, r.json.queue], [0, false, []]);
});

s('should list --draft in the flags of init ship only when it is given', async () => {
  const root = standardProject();
  let r = await run(['init', 'ship', '1', '--draft'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.flags, r.json.phase_number], [['--draft'], '01']);
  r = await run(['init', 'ship', '--draft'], { cwd: root });
  assert.equal([r.json.flags, r.json.phase_number], [['--draft'], null], 'without a phase too');
  r = await run(['init', 'ship', '1'], { cwd: root });
  assert.equal(r.json.flags, []);
  r = await run(['init', 'ship', '1', '--draft=false'], { cwd: root });
  assert.equal(r.json.flags, [], 'a switch turned off is not given');
  r = await run(['init', 'ship', '1', '--draft=maybe'], { cwd: root });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'Error: init ship: --draft is a switch; found "=maybe"\n');
});

s('should give forensics a fresh UTC-stamped report path and only the earlier reports, inside a workstream too', async () => {
  const root = standardProject({
    '.planning/forensics/report-20250101T000000Z.md': '# old\n',
    '.planning/forensics/notes.md': 'not a report\n',
    '.planning/forensics/report-..-x.md': 'not a stamp\n',
  });
  const r = await run(['init', 'forensics'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.report_path, '.planning/forensics/report-20250304T050607Z.md');
  assert.equal(r.json.earlier_reports, ['.planning/forensics/report-20250101T000000Z.md']);
  assert.is(r.json.current_phase.number, '1');
  assert.is((await run(['workstreams', 'create', 'mobile'], { cwd: root })).code, 0);
  const ws = await run(['init', 'forensics', '--ws', 'mobile'], { cwd: root });
  assert.is(ws.code, 0, ws.stderr);
  assert.is(ws.json.forensics_dir, '.planning/workstreams/mobile/forensics');
  assert.equal(ws.json.earlier_reports, [], 'a workstream keeps its own reports');
  assert.not.ok(fs.existsSync(path.join(root, '.planning/workstreams/mobile/forensics')), 'init writes nothing');
});

s('should detect brownfield code for new-project', async () => {
  const root = project({ 'package.json': '{"workspaces": ["a"]}', 'src/index.ts': 'export {}\n' });
  fs.rmSync(path.join(root, '.planning'), { recursive: true });
  const r = await run(['init', 'new-project'], { cwd: root });
  assert.is(r.json.is_brownfield, true);
  assert.is(r.json.needs_codebase_map, true);
  assert.is(r.json.is_monorepo, true);
  assert.is(r.json.has_existing_code, true);
});

s.run();
