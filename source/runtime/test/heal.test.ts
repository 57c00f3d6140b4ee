// "State that heals": a STATE.md frontmatter that does not parse is rebuilt
// from the body, a config value of the wrong type falls back to its default,
// health exits non-zero while problems remain and --repair repairs every
// class it can, template fill refuses blanks, statuses say what they mean.
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { FIXED_NOW, project, read, run, standardProject, STATE_MD, ROADMAP_MD } from './helpers.ts';
import { readFrontmatter } from '../md/frontmatter.ts';
import { normalizeStatus, STATUS_VOCABULARY } from '../planning/state.ts';
import statusSchema from '../planning/state-status.schema.json' with { type: 'json' };
import AjvModule from 'ajv';

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('runtime healing');

const BODY = STATE_MD.slice(STATE_MD.indexOf('# Project State'));
const KEPT = '.planning/STATE.md.broken-20250304T050607Z';

/** Broken frontmatters, the line each warning must name, and whether custom_key survives. */
const BROKEN: { name: string; text: string; line: number; custom: boolean; body?: string }[] = [
  { name: 'a line that is not key: value', text: `---\nmilestone: v1.0\ncustom_key: keep me\nthis is not yaml\nstatus: planning\n---\n${BODY}`, line: 4, custom: true },
  { name: 'a duplicate key', text: `---\ncustom_key: keep me\nstatus: a\nstatus: b\n---\n${BODY}`, line: 4, custom: true },
  { name: 'a forbidden key', text: `---\n__proto__: x\ncustom_key: keep me\n---\n${BODY}`, line: 2, custom: true },
  { name: 'a bad indentation', text: `---\ncustom_key: keep me\n   status: planning\n---\n${BODY}`, line: 3, custom: false },
  { name: 'a block never closed', text: `---\ncustom_key: keep me\nstatus: planning\n${BODY}`, line: 1, custom: true },
  { name: 'a block never closed, body fields first', text: `---\ncustom_key: keep me\n\nPhase: 1 of 3 (Foundation)\n${BODY.replace('Phase: 1 of 3 (Foundation)\n', '')}`, line: 1, custom: true, body: `\nPhase: 1 of 3 (Foundation)\n${BODY.replace('Phase: 1 of 3 (Foundation)\n', '')}` },
  { name: 'a second block', text: `---\ncustom_key: keep me\n---\n---\nstatus: planning\n---\n${BODY}`, line: 4, custom: true },
];

s('should read a STATE.md whose frontmatter does not parse as rebuilt from the body, warn with file:line:col and CODE, and leave it alone', async () => {
  for (const c of BROKEN) {
    const root = standardProject({ '.planning/STATE.md': c.text });
    for (const args of [['state', 'json'], ['state', 'get', 'Status'], ['state', 'load'], ['init', 'resume'], ['init', 'progress']]) {
      const r = await run(args, { cwd: root });
      assert.is(r.code, 0, `${c.name}: ${args.join(' ')}: ${r.stderr}`);
      if (args[1] !== 'load') assert.match(r.stderr, new RegExp(`^\\.planning/STATE\\.md:${c.line}:1: warning state-frontmatter-rebuilt frontmatter does not parse`, 'm'), `${c.name}: ${args.join(' ')}`);
    }
    const json = await run(['state', 'json'], { cwd: root });
    assert.is(json.json.current_phase, '1', c.name);
    assert.is(json.json.current_phase_name, 'Foundation', c.name);
    assert.is(json.json.status, 'ready_to_execute', `${c.name}: derived from "Status: Ready to execute"`);
    assert.is(json.json.custom_key === 'keep me', c.custom, `${c.name}: custom key salvaged`);
    const resume = await run(['init', 'resume'], { cwd: root });
    assert.is(resume.json.status, 'ready_to_execute', c.name);
    assert.is(resume.json.stopped_at, 'Roadmap created', c.name);
    assert.is(read(root, '.planning/STATE.md'), c.text, `${c.name}: reads never write`);
  }
});

s('should rebuild the frontmatter on any state write, keeping the old bytes beside it', async () => {
  for (const c of BROKEN) {
    const root = standardProject({ '.planning/STATE.md': c.text });
    const r = await run(['state', 'add-blocker', '--text', 'Waiting on keys'], { cwd: root });
    assert.is(r.code, 0, `${c.name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`\\.planning/STATE\\.md:${c.line}:1: warning state-frontmatter-rebuilt .*kept in ${KEPT.replace(/\./g, '\\.')}`), c.name);
    assert.is(read(root, KEPT), c.text, `${c.name}: old bytes kept`);
    const text = read(root, '.planning/STATE.md');
    const fm = readFrontmatter(text, 'STATE.md').data;
    assert.is(fm.status, 'ready_to_execute', c.name);
    assert.is(fm.current_phase, '1');
    assert.is(fm.last_updated, FIXED_NOW);
    assert.match(text, /- Waiting on keys/);
    assert.ok(text.endsWith((c.body ?? BODY).replace('### Blockers/Concerns\n\nNone yet.', '### Blockers/Concerns\n\n- Waiting on keys')), `${c.name}: body kept as it was, plus the change`);
    assert.not.match(text.slice(0, text.indexOf('\n---\n')), /Phase:/, `${c.name}: no body field taken into the frontmatter`);
    // Healed: the next write is ordinary and keeps no second copy.
    const again = await run(['state', 'update', 'Status', 'In progress'], { cwd: root });
    assert.is(again.code, 0, again.stderr);
    assert.not.match(again.stderr, /state-frontmatter-rebuilt/);
    assert.equal(fs.readdirSync(path.join(root, '.planning')).filter((n) => n.includes('.broken-')), ['STATE.md.broken-20250304T050607Z']);
  }
});

s('should rebuild even when the write changes nothing in the body, and health then reports healthy', async () => {
  const root = standardProject({ '.planning/STATE.md': BROKEN[0]!.text });
  const r = await run(['state', 'update', 'Status', 'Ready to execute'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(root, KEPT)));
  readFrontmatter(read(root, '.planning/STATE.md'), 'STATE.md');
  const h = await run(['health'], { cwd: root });
  assert.is(h.code, 0, JSON.stringify(h.json));
  assert.is(h.json.status, 'healthy');
  assert.ok(h.json.info.some((x: string) => x.includes('STATE.md.broken-')), 'the kept copy is pointed out');
});

s('should exit 1 from health while the frontmatter is broken, and 0 after --repair rebuilds it', async () => {
  const root = standardProject({ '.planning/STATE.md': BROKEN[1]!.text });
  let h = await run(['health'], { cwd: root });
  assert.is(h.code, 1);
  assert.is(h.json.status, 'degraded');
  const finding = h.json.warnings.find((w: { code: string }) => w.code === 'state-frontmatter-rebuilt');
  assert.ok(finding, JSON.stringify(h.json));
  assert.is(finding.repairable, true);
  assert.match(finding.message, /^\.planning\/STATE\.md:4: frontmatter does not parse \(duplicate key "status"\)/);
  assert.is(read(root, '.planning/STATE.md'), BROKEN[1]!.text, 'health without --repair writes nothing');
  h = await run(['health', '--repair'], { cwd: root });
  assert.is(h.code, 0, JSON.stringify(h.json));
  assert.is(h.json.status, 'healthy');
  assert.ok(h.json.repaired.some((x: string) => x.includes('rebuilt the .planning/STATE.md frontmatter') && x.includes(KEPT)), JSON.stringify(h.json.repaired));
  assert.is(read(root, KEPT), BROKEN[1]!.text);
  assert.is(readFrontmatter(read(root, '.planning/STATE.md'), 'x').data.custom_key, 'keep me');
});

const BAD_CONFIG = '{\n  "workflow": {\n    "research": "yes",\n    "plan_check": false\n  },\n  "mode": "turbo",\n  "model_profile": "quality"\n}\n';

s('should read every other config key when one has the wrong type, warning with key, expected type and found value', async () => {
  const root = standardProject({ '.planning/config.json': BAD_CONFIG });
  let r = await run(['config-get', 'model_profile', '--raw'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'quality');
  assert.match(r.stderr, /^\.planning\/config\.json:3:1: warning config-invalid-value workflow\.research: expected boolean, found "yes"; using the default true$/m);
  assert.match(r.stderr, /^\.planning\/config\.json:6:1: warning config-invalid-value mode: expected one of \["interactive","yolo"\], found "turbo"; using the default "interactive"$/m);
  r = await run(['config-get', 'workflow.research', '--raw'], { cwd: root });
  assert.is(r.stdout, 'true', 'the bad value falls back to its default');
  r = await run(['config-get', 'workflow.plan_check', '--raw'], { cwd: root });
  assert.is(r.stdout, 'false', 'its good neighbour is kept');
  r = await run(['state', 'load'], { cwd: root });
  assert.is(r.code, 0);
  assert.is(r.json.config.research, true);
  assert.is(r.json.config.plan_checker, false);
  r = await run(['init', 'plan-phase', '1'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
});

s('should let config-set fix a wrong value, and set another key while one stays wrong', async () => {
  const root = standardProject({ '.planning/config.json': BAD_CONFIG });
  let r = await run(['config-set', 'workflow.research', 'false'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { updated: true, key: 'workflow.research', value: false, previousValue: 'yes' });
  assert.not.match(r.stderr, /workflow\.research: expected/, 'the key being fixed is not warned about');
  assert.match(r.stderr, /warning config-invalid-value mode: expected one of/, 'the other one still is');
  let file = JSON.parse(read(root, '.planning/config.json'));
  assert.is(file.workflow.research, false);
  assert.is(file.mode, 'turbo', 'a value nobody asked to change stays as written');
  r = await run(['config-set', 'mode', 'yolo'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '');
  file = JSON.parse(read(root, '.planning/config.json'));
  assert.is(file.mode, 'yolo');
  const before = read(root, '.planning/config.json');
  r = await run(['config-set', 'workflow.research', 'maybe'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /config-set workflow\.research: workflow\.research: expected boolean, found "maybe"/);
  assert.is(read(root, '.planning/config.json'), before);
});

s('should report wrong config values in health (exit 1) and remove them with --repair, keeping the old bytes', async () => {
  const root = standardProject({ '.planning/config.json': BAD_CONFIG });
  let h = await run(['health'], { cwd: root });
  assert.is(h.code, 1);
  const codes = h.json.warnings.map((w: { code: string }) => w.code);
  assert.equal(codes.filter((c: string) => c === 'config-invalid-value').length, 2);
  h = await run(['health', '--repair'], { cwd: root });
  assert.is(h.code, 0, JSON.stringify(h.json));
  assert.is(h.json.status, 'healthy');
  assert.is(h.json.repaired.filter((x: string) => x.startsWith('removed ')).length, 2);
  assert.equal(JSON.parse(read(root, '.planning/config.json')), { workflow: { plan_check: false }, model_profile: 'quality' });
  const kept = fs.readdirSync(path.join(root, '.planning')).filter((n) => n.startsWith('config.json.broken-'));
  assert.equal(kept, ['config.json.broken-20250304T050607Z'], 'one copy, the original bytes');
  assert.is(read(root, `.planning/${kept[0]}`), BAD_CONFIG);
});

s('should exit 0 only when health finds nothing, and say which findings need a person', async () => {
  let root = standardProject();
  let h = await run(['health'], { cwd: root });
  // The fixture's frontmatter predates its body (status, progress): drift, which --repair fixes.
  assert.is(h.code, 1);
  assert.is(h.json.status, 'degraded');
  h = await run(['health', '--repair'], { cwd: root });
  assert.is(h.code, 0, JSON.stringify(h.json));
  h = await run(['health', '--raw'], { cwd: root });
  assert.is(h.code, 0);
  assert.is(h.stdout, 'healthy');
  root = standardProject({ '.planning/config.json': '{ "mode": ' });
  h = await run(['health', '--repair'], { cwd: root });
  assert.is(h.code, 1);
  assert.is(h.json.status, 'broken');
  assert.ok(h.json.errors.some((e: { code: string; repairable: boolean }) => e.code === 'config-invalid' && !e.repairable));
  assert.ok(h.json.needs_person.some((x: string) => x.startsWith('config-invalid: ')), JSON.stringify(h.json.needs_person));
  root = project({ '.planning/ROADMAP.md': ROADMAP_MD.replace('### Phase 2: Features', '### Phase two: Features') });
  h = await run(['health'], { cwd: root });
  assert.is(h.code, 1);
  const r = await run(['health'], { cwd: path.dirname(root) });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no \.planning\/ directory/);
});

s('should refuse to fill a template with fields nobody gave, listing them, unless --allow-missing', async () => {
  const root = standardProject();
  const before = fs.readdirSync(path.join(root, '.planning/phases/01-foundation'));
  let r = await run(['template', 'fill', 'summary-minimal', '--phase', '1', '--plan', '01', '--out', '.planning/phases/01-foundation/01-01-SUMMARY.md', '--json-errors'], { cwd: root, env: { GSD_CORE_DIR: path.resolve('source/gsd-core') } });
  assert.is(r.code, 1);
  const err = JSON.parse(r.stderr.trim().split('\n').pop()!);
  assert.is(err.reason, 'refused');
  assert.equal(err.missing_fields, ['duration', 'name']);
  assert.match(err.message, /no value for "duration", "name".*--allow-missing/);
  assert.equal(fs.readdirSync(path.join(root, '.planning/phases/01-foundation')), before, 'nothing written');
  r = await run(['template', 'fill', 'summary-minimal', '--phase', '1', '--plan', '01', '--out', '.planning/phases/01-foundation/01-01-SUMMARY.md', '--allow-missing'], { cwd: root, env: { GSD_CORE_DIR: path.resolve('source/gsd-core') } });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.unfilled, ['duration', 'name']);
  r = await run(['template', 'fill', 'summary-minimal', '--phase', '1', '--plan', '02', '--name', 'CI', '--out', '.planning/phases/01-foundation/01-02-SUMMARY.md', '--fields', '{"duration": "3min"}'], { cwd: root, env: { GSD_CORE_DIR: path.resolve('source/gsd-core') } });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.unfilled, []);
  assert.match(read(root, '.planning/phases/01-foundation/01-02-SUMMARY.md'), /Plan 02: CI Summary/);
});

s('should record statuses by what the Status line means (vocabulary from state-status.json)', async () => {
  const cases: [string, string][] = [
    ['Ready to execute', 'ready_to_execute'],
    ['Ready to plan', 'ready_to_plan'],
    ['Phase complete — ready for verification', 'ready_to_verify'],
    ['In progress', 'executing'],
    ['Executing plan 2', 'executing'],
    ['Planning phase 3', 'planning'],
    ['Verifying', 'verifying'],
    ['Milestone v1.0 complete', 'completed'],
    ['Paused for lunch', 'paused'],
    ['Something else', 'unknown'],
  ];
  for (const [text, status] of cases) assert.is(normalizeStatus(text, undefined), status, text);
  assert.is(normalizeStatus('In progress', '2025-01-01'), 'paused');
  const validate = new Ajv({ allErrors: true, strict: false }).compile(statusSchema);
  assert.ok(validate(STATUS_VOCABULARY), JSON.stringify(validate.errors));
  assert.ok(STATUS_VOCABULARY.statuses.every((row) => new RegExp(row.match, 'i')), 'every match compiles');
  assert.is(new Set(STATUS_VOCABULARY.statuses.map((row) => row.status)).size, STATUS_VOCABULARY.statuses.length, 'no status twice');
  const root = standardProject();
  let r = await run(['state', 'update', 'Status', 'Planning phase 2'], { cwd: root });
  assert.is(readFrontmatter(read(root, '.planning/STATE.md'), 'x').data.status, 'planning');
  r = await run(['state', 'planned-phase', '--phase', '2'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(readFrontmatter(read(root, '.planning/STATE.md'), 'x').data.status, 'ready_to_execute', 'planned is not executing');
  r = await run(['state', 'begin-phase', '--phase', '1', '--plans', '2'], { cwd: root });
  assert.is(readFrontmatter(read(root, '.planning/STATE.md'), 'x').data.status, 'executing');
});

s('should point a passed phase to a command the bundle ships', async () => {
  const verification = '---\nphase: 01-foundation\nstatus: passed\n---\n# Verification\n';
  const root = standardProject({ '.planning/phases/01-foundation/01-VERIFICATION.md': verification });
  const r = await run(['verify', 'status', '1'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.status, 'passed');
  assert.is(r.json.next_command, '/gsd-verify-work 1');
  const shipped = new Set(fs.readdirSync('source/commands/gsd').map((n) => n.replace(/\.md$/, '')));
  const p = await run(['init', 'progress'], { cwd: root });
  for (const phase of p.json.phases) if (phase.next_command) assert.ok(shipped.has(/^\/gsd-([a-z-]+)/.exec(phase.next_command)![1]!), phase.next_command);
});

s.run();
