import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { configDefaults, getPath, knownKeys, schemaFor } from '../config/config.ts';
import { resolveModel } from '../config/models.ts';
import { main } from '../main.ts';
import { project, read, run, standardProject, tmpDir } from './helpers.ts';

const s = suite('runtime config');

s('should derive defaults from the schema: toggles on, profile balanced', () => {
  const d = configDefaults();
  assert.is(d.model_profile, 'balanced');
  assert.is((d.workflow as Record<string, unknown>).research, true);
  assert.is((d.workflow as Record<string, unknown>).auto_advance, false);
  assert.is((d.hooks as Record<string, unknown>).context_warning_threshold, 35);
  assert.is((d.git as Record<string, unknown>).create_tag, true);
  assert.ok(knownKeys().includes('workflow.plan_check'));
  assert.ok(schemaFor('model_overrides.gsd-planner'), 'open maps take any key');
  assert.is(schemaFor('workflow.nonsense'), null);
  assert.is(schemaFor('__proto__.x'), null);
});

s('should read file values, then --default, then schema defaults, else fail', async () => {
  const root = project({ '.planning/config.json': '{\n  "workflow": { "research": false },\n  "model_profile": "quality"\n}\n' });
  let r = await run(['config-get', 'workflow.research'], { cwd: root });
  assert.is(r.stdout, 'false');
  r = await run(['config-get', 'workflow.plan_check', '--raw'], { cwd: root });
  assert.is(r.stdout, 'true');
  r = await run(['config-get', 'model_profile'], { cwd: root });
  assert.is(r.stdout, '"quality"', 'without --raw a string is JSON-quoted');
  r = await run(['config-get', 'workflow.text_mode', '--default', 'maybe', '--raw'], { cwd: root });
  assert.is(r.stdout, 'maybe', '--default wins over the schema default');
  r = await run(['config-get', 'workflow.nope'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /Key not found: workflow\.nope/);
  r = await run(['config-get', 'git', '--pick', 'branching_strategy'], { cwd: root });
  assert.is(r.stdout, 'none');
});

s('should warn about unknown keys and wrong values, and fail with file:line only on invalid JSON', async () => {
  const root = project({ '.planning/config.json': '{\n  "workflow": {\n    "research": "yes"\n  },\n  "mystery": 1\n}\n' });
  let r = await run(['config-get', 'model_profile', '--raw'], { cwd: root });
  assert.is(r.code, 0, 'a wrong value does not stop the other keys');
  assert.is(r.stdout, 'balanced');
  assert.match(r.stderr, /^\.planning\/config\.json:3:1: warning config-invalid-value workflow\.research: expected boolean, found "yes"; using the default true$/m);
  fs.writeFileSync(path.join(root, '.planning/config.json'), '{\n  "workflow": {"research": true},\n  "mystery": 1\n}\n');
  r = await run(['config-get', 'model_profile', '--raw'], { cwd: root });
  assert.is(r.code, 0);
  assert.is(r.stdout, 'balanced');
  assert.match(r.stderr, /^warning: \.planning\/config\.json:3: unknown config key "mystery" \(ignored\)$/m);
  fs.writeFileSync(path.join(root, '.planning/config.json'), '{\n  "workflow": {\n    "research": tru\n}\n');
  r = await run(['config-get', 'model_profile'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /\.planning\/config\.json:3:\d+: invalid JSON/);
});

s('should set values with coercion, refuse unknown or polluting keys, and unset with null', async () => {
  const root = project({});
  let r = await run(['config-set', 'workflow.research', 'false'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { updated: true, key: 'workflow.research', value: false, previousValue: null });
  r = await run(['config-set', 'context_window', '500000'], { cwd: root });
  r = await run(['config-set', 'planning.sub_repos', '["api", "web"]', '--raw'], { cwd: root });
  assert.is(r.stdout, 'planning.sub_repos=["api","web"]');
  assert.equal(JSON.parse(read(root, '.planning/config.json')), { workflow: { research: false }, context_window: 500000, planning: { sub_repos: ['api', 'web'] } });
  const before = read(root, '.planning/config.json');
  for (const [args, re] of [
    [['config-set', 'workflow.plan_checker', 'true'], /Unknown config key: "workflow\.plan_checker"/],
    [['config-set', '__proto__.polluted', 'true'], /"__proto__" is not allowed/],
    [['config-set', 'model_overrides.constructor', 'x'], /"constructor" is not allowed/],
    [['config-set', 'mode', 'turbo'], /mode: expected one of \["interactive","yolo"\], found "turbo"/],
    [['config-set', 'workflow', '{"__proto__": {"x": 1}}'], /"__proto__" is not allowed/],
  ] as [string[], RegExp][]) {
    r = await run(args, { cwd: root });
    assert.is(r.code === 1 || r.code === 2, true, args.join(' '));
    assert.match(r.stderr, re);
    assert.is(read(root, '.planning/config.json'), before, 'file untouched');
  }
  r = await run(['config-set', 'workflow.research', 'null'], { cwd: root });
  assert.equal(JSON.parse(read(root, '.planning/config.json')).workflow, {});
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

s('should write a new project config from defaults and choices, once', async () => {
  const root = tmpDir();
  let r = await run(['config-new-project', '{"mode": "yolo", "workflow": {"research": false}}'], { cwd: root });
  assert.equal(r.json, { created: true, path: '.planning/config.json' });
  const cfg = JSON.parse(read(root, '.planning/config.json'));
  assert.is(cfg.mode, 'yolo');
  assert.is(cfg.workflow.research, false);
  assert.is(cfg.workflow.plan_check, true);
  // Keys the schema marks deprecated (accepted from upstream configs, acted on by nothing) are not written into a new one.
  for (const key of ['workflow.code_review', 'gates', 'safety', 'features', 'tavily_search', 'brave_search', 'project_code']) assert.is(getPath(cfg, key), undefined, key);
  assert.ok(cfg.workflow.code_review_depth !== undefined, 'a live key beside a deprecated one stays');
  r = await run(['config-new-project', '{}'], { cwd: root });
  assert.equal(r.json, { created: false, reason: 'already_exists', path: '.planning/config.json' });
  r = await run(['config-new-project', '{"mode": "turbo"}', '--force'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /mode: must be one of/);
  assert.is(JSON.parse(read(root, '.planning/config.json')).mode, 'yolo');
});

s('should leave a malformed config.json byte-identical when asked to change it', async () => {
  const bad = '{\n  "workflow": {\n    "research": true,,\n  }\n}\n';
  const root = project({ '.planning/config.json': bad });
  const r = await run(['config-set', 'mode', 'yolo'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /^Error: \.planning\/config\.json:3:\d+: invalid JSON/);
  assert.is(read(root, '.planning/config.json'), bad);
});

s('should list configured agent skills inside the project only', async () => {
  const root = project({ '.planning/config.json': '{"agent_skills": {"gsd-executor": ["skills/ts.md", "../outside.md", "skills/missing.md"]}}', 'skills/ts.md': '# TS\n' });
  let r = await run(['agent-skills', 'gsd-executor', '--raw'], { cwd: root });
  assert.is(r.stdout, '<agent_skills>\nRead these skill files before starting:\n- skills/ts.md\n</agent_skills>');
  assert.match(r.stderr, /warning: agent-skills gsd-executor: .*contains "\.\."/);
  assert.match(r.stderr, /skills\/missing\.md does not exist/);
  r = await run(['agent-skills', 'gsd-planner', '--json'], { cwd: root });
  assert.equal(r.json, { agent_type: 'gsd-planner', block: '', skills: [], skills_count: 0, configured: false, reason: 'not_configured', warnings: [] });
  r = await run(['agent-skills', 'gsd-planner'], { cwd: root });
  assert.is(r.stdout, '""');
});

s('should hand each spawned agent its skills block in init, beside its model, only when configured', async () => {
  const root = standardProject({ '.planning/config.json': '{"agent_skills": {"gsd-executor": "skills/ts.md", "gsd-verifier": ["skills/missing.md"]}}', 'skills/ts.md': '# TS\n' });
  const r = await run(['init', 'execute-phase', '1'], { cwd: root });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.executor_skills, '<agent_skills>\nRead these skill files before starting:\n- skills/ts.md\n</agent_skills>');
  assert.ok(typeof r.json.executor_model === 'string');
  assert.not.ok('verifier_skills' in r.json, 'a configured skill that does not exist gives no block');
  assert.match(r.stderr, /agent_skills\.gsd-verifier: skills\/missing\.md does not exist/);
  const plain = await run(['init', 'execute-phase', '1'], { cwd: standardProject() });
  assert.equal(Object.keys(plain.json).filter((key) => key.endsWith('_skills')), [], 'nothing configured, no keys');
});

s('should mask secret keys when printing them', async () => {
  const root = project({ '.planning/config.json': '{"brave_search": "sk-abcdefgh1234"}' });
  const r = await run(['config-get', 'brave_search', '--raw'], { cwd: root });
  assert.is(r.stdout, '****1234');
});

s('should refuse an oversized config.json', async () => {
  const big = `{"ship": {"pr_body_sections": [${new Array(120_000).fill('"aaaaaaa"').join(',')}]}}`;
  const root = project({ '.planning/config.json': big });
  const r = await run(['config-get', 'model_profile'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /over the 1048576-byte limit/);
});

s('should resolve models: override, then phase type, then profile; ids on request', async () => {
  assert.equal(resolveModel('gsd-planner', { model_profile: 'balanced' }), { model: 'opus', profile: 'balanced', tier: 'heavy', source: 'profile' });
  assert.is(resolveModel('gsd-executor', { model_profile: 'budget' }).model, 'sonnet');
  assert.is(resolveModel('gsd-executor', { model_profile: 'adaptive' }).model, 'sonnet');
  assert.is(resolveModel('gsd-codebase-mapper', { model_profile: 'adaptive' }).model, 'haiku');
  assert.is(resolveModel('gsd-verifier', { model_profile: 'inherit' }).model, 'inherit');
  assert.is(resolveModel('gsd-verifier', { model_profile: 'balanced', models: { verification: 'opus' } }).source, 'phase-type');
  assert.is(resolveModel('gsd-verifier', { model_overrides: { 'gsd-verifier': 'haiku' }, models: { verification: 'opus' } }).model, 'haiku');
  assert.is(resolveModel('gsd-planner', { resolve_model_ids: true }).model, 'claude-opus-4-8');
  assert.is(resolveModel('gsd-planner', { resolve_model_ids: 'omit' }).model, '');
  assert.equal(resolveModel('gsd-unknown', {}), { model: 'sonnet', profile: 'balanced', tier: 'standard', source: 'profile', unknown_agent: true });
  const root = project({ '.planning/config.json': '{"model_profile": "quality"}' });
  const r = await run(['resolve-model', 'gsd-verifier', '--raw'], { cwd: root });
  assert.is(r.stdout, 'sonnet');
  const outs: string[] = [];
  await main(['resolve-model', 'gsd-planner'], { cwd: root, env: {}, stdout: (t) => outs.push(t), stderr: () => {} });
  assert.is(JSON.parse(outs[0]!).model, 'opus');
});

s.run();
