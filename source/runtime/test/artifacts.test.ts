import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Handlebars from 'handlebars';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { renderTemplate } from '../template/render.ts';
import { REPO_ROOT } from '../build.ts';
import { plan, project, read, run, standardProject, summary, tmpDir } from './helpers.ts';

const s = suite('runtime artifacts');

s('should get, set and validate frontmatter fields', async () => {
  const root = standardProject();
  const file = '.planning/phases/01-foundation/01-01-PLAN.md';
  let r = await run(['frontmatter', 'get', file, '--field', 'wave'], { cwd: root });
  assert.equal(r.json, { wave: 1 });
  r = await run(['frontmatter', 'get', file], { cwd: root });
  assert.equal(r.json.must_haves.artifacts, [{ path: 'src/a.ts', provides: 'the thing' }]);
  r = await run(['frontmatter', 'set', file, '--field', 'wave', '--value', '2'], { cwd: root });
  assert.equal(r.json, { updated: true, field: 'wave', value: 2 });
  r = await run(['frontmatter', 'set', file, '--field', 'status', '--value', 'superseded'], { cwd: root });
  const text = read(root, file);
  assert.match(text, /^wave: 2$/m);
  assert.match(text, /^status: superseded\n---\n\n<objective>/m);
  assert.match(text, /^files_modified: \[src\/a\.ts\]$/m, 'untouched keys keep their spelling');
  r = await run(['frontmatter', 'validate', file, '--schema', 'plan'], { cwd: root });
  assert.is(r.json.valid, true);
  r = await run(['frontmatter', 'validate', file, '--schema', 'summary'], { cwd: root });
  assert.equal(r.json.missing, ['subsystem', 'tags', 'duration', 'completed']);
  r = await run(['frontmatter', 'set', file, '--field', '__proto__', '--value', '1'], { cwd: root });
  assert.is(r.code, 2);
  r = await run(['frontmatter', 'get', '../outside.md'], { cwd: root });
  assert.is(r.code, 1);
  assert.match(r.stderr, /contains "\.\."/);
});

s('should extract facts from a SUMMARY', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01') });
  let r = await run(['summary-extract', '.planning/phases/01-foundation/01-01-SUMMARY.md'], { cwd: root });
  assert.is(r.json.one_liner, 'Scaffold with zod validation in place');
  assert.equal(r.json.key_files, { created: ['src/a.ts'], modified: ['package.json'] });
  assert.equal(r.json.tech_added, ['zod']);
  assert.equal(r.json.decisions, [{ summary: 'Use zod', rationale: 'schemas at the edge' }]);
  assert.equal(r.json.requirements_completed, ['CORE-01']);
  r = await run(['summary-extract', '.planning/phases/01-foundation/01-01-SUMMARY.md', '--fields', 'one_liner,tech_added'], { cwd: root });
  assert.equal(Object.keys(r.json), ['path', 'one_liner', 'tech_added']);
  r = await run(['summary-extract', '.planning/phases/01-foundation/01-01-SUMMARY.md', '--fields', 'nope'], { cwd: root });
  assert.is(r.code, 2);
});

s('should check plan structure with file:line findings', async () => {
  const broken = plan('01', '03').replace('  <action>Write it</action>\n', '').replace('wave: 1\n', '');
  const root = standardProject({ '.planning/phases/01-foundation/01-03-PLAN.md': broken });
  let r = await run(['verify', 'plan-structure', '.planning/phases/01-foundation/01-01-PLAN.md'], { cwd: root });
  assert.is(r.json.valid, true, JSON.stringify(r.json.errors));
  assert.is(r.json.task_count, 1);
  r = await run(['verify', 'plan-structure', '.planning/phases/01-foundation/01-03-PLAN.md'], { cwd: root });
  assert.is(r.json.valid, false);
  assert.ok(r.json.errors.includes('.planning/phases/01-foundation/01-03-PLAN.md:1: frontmatter is missing "wave"'), JSON.stringify(r.json.errors));
  assert.ok(r.json.errors.some((e: string) => /01-03-PLAN\.md:2[0-9]: task "Task one" has no <action>/.test(e)), JSON.stringify(r.json.errors));
});

s('should warn, without failing, when a plan has no <threat_model> block', async () => {
  const modelled = plan('01', '03').replace('<tasks>', '<threat_model>\n| Category | Component | Threat | Severity | Disposition | Mitigation |\n|---|---|---|---|---|---|\n| Spoofing | login | - | - | n/a | - |\n</threat_model>\n\n<tasks>');
  const root = standardProject({ '.planning/phases/01-foundation/01-03-PLAN.md': modelled });
  let r = await run(['verify', 'plan-structure', '.planning/phases/01-foundation/01-01-PLAN.md'], { cwd: root });
  assert.is(r.json.valid, true);
  assert.ok(r.json.warnings.includes('.planning/phases/01-foundation/01-01-PLAN.md: missing <threat_model> block (one row per STRIDE category; see templates/plan.md)'), JSON.stringify(r.json.warnings));
  r = await run(['verify', 'plan-structure', '.planning/phases/01-foundation/01-03-PLAN.md'], { cwd: root });
  assert.is(r.json.valid, true);
  assert.not.ok(r.json.warnings.some((w: string) => w.includes('threat_model')), JSON.stringify(r.json.warnings));
  // The shipped plan template carries the block, with a row per STRIDE category.
  const env = { GSD_CORE_DIR: path.resolve('source/gsd-core') };
  r = await run(['template', 'fill', 'plan', '--phase', '1', '--plan', '04', '--name', 'Cookie', '--type', 'execute', '--wave', '1'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  const filled = read(root, '.planning/phases/01-foundation/01-04-PLAN.md');
  for (const category of ['Spoofing', 'Tampering', 'Repudiation', 'Information disclosure', 'Denial of service', 'Elevation of privilege']) assert.match(filled, new RegExp(`^\\| ${category} \\|`, 'm'));
  r = await run(['verify', 'plan-structure', '.planning/phases/01-foundation/01-04-PLAN.md'], { cwd: root });
  assert.not.ok(r.json.warnings.some((w: string) => w.includes('threat_model')), JSON.stringify(r.json.warnings));
});

s('should check phase completeness and references', async () => {
  const root = standardProject({ '.planning/phases/01-foundation/01-01-SUMMARY.md': summary('01', '01'), 'docs/a.md': '@.planning/PROJECT.md\nSee `src/missing.ts` and `.planning/STATE.md`.\n```\n`src/in-fence.ts`\n```\n' });
  let r = await run(['verify', 'phase-completeness', '1'], { cwd: root });
  assert.is(r.json.complete, false);
  assert.equal(r.json.missing_summaries, ['01-02']);
  assert.is(r.json.verification_status, 'missing');
  r = await run(['verify', 'references', 'docs/a.md'], { cwd: root });
  assert.is(r.json.valid, false);
  assert.equal(r.json.found, ['.planning/PROJECT.md', '.planning/STATE.md']);
  assert.equal(r.json.missing, [{ ref: 'src/missing.ts', line: 2, location: 'docs/a.md:2' }]);
});

const TEMPLATES: [string, Record<string, unknown>][] = [
  ['# {{title}}\n\nPhase {{phase}}: {{phase_name}}\n', { title: 'T', phase: '3', phase_name: 'Auth & <stuff>' }],
  ['{{#if items}}\n## Items\n{{#each items}}\n- {{@index}}: {{this}}{{#if @last}} (last){{/if}}\n{{/each}}\n{{else}}\nNone.\n{{/if}}\n', { items: ['a', 'b'] }],
  ['{{#if items}}\nyes\n{{else}}\nNone.\n{{/if}}\n', { items: [] }],
  ['{{#each obj}}{{@key}}={{this}};{{/each}}\n{{#with who}}{{name}} ({{../title}}){{/with}}\n', { obj: { x: 1, y: 2 }, who: { name: 'Ann' }, title: 'Dr' }],
  ['  {{#unless done}}\n  todo: {{missing.deep}}!\n  {{/unless}}\n{{! a comment }}\n{{!-- long\ncomment --}}\nend {{{raw}}} \\{{literal}}\n', { done: false, raw: '<b>' }],
  ['{{~#if a~}}  x  {{~/if~}} | {{a.b}}\n', { a: { b: 0 } }],
];

s('should render templates exactly like Handlebars (noEscape) for the supported subset', () => {
  for (const [src, ctx] of TEMPLATES) {
    const expected = Handlebars.compile(src, { noEscape: true })(ctx);
    assert.is(renderTemplate(src, ctx, 't.md').text, expected, src);
  }
  assert.equal(renderTemplate('{{a}} {{b.c}}', { a: 1 }, 't').missing, ['b.c']);
  assert.throws(() => renderTemplate('{{#if a}}x', {}, 'tpl.md'), /tpl\.md: \{\{#if\}\} is never closed/);
  assert.throws(() => renderTemplate('a\n{{lookup x y}}', {}, 'tpl.md'), /tpl\.md:2: unsupported expression/);
  assert.throws(() => renderTemplate('a\n\n{{> partial}}', {}, 'tpl.md'), /tpl\.md:3: unsupported tag/);
  assert.throws(() => renderTemplate('{{#each a}}{{/if}}', {}, 'tpl.md'), /\{\{\/if\}\} does not close \{\{#each\}\}/);
});

s('should fill a template from the bundle into the phase directory, once', async () => {
  const core = tmpDir('gsd-core-');
  fs.mkdirSync(path.join(core, 'templates'), { recursive: true });
  fs.writeFileSync(path.join(core, 'templates', 'summary.md'), '---\nphase: {{padded_phase}}\nplan: "{{plan}}"\n---\n# Phase {{phase}} Plan {{plan}}: {{phase_name}} Summary\n\n**{{one_liner}}**\n\nDate: {{date}}\n');
  const root = standardProject();
  const env = { GSD_CORE_DIR: core };
  let r = await run(['template', 'fill', 'summary', '--phase', '1', '--plan', '1', '--fields', '{"one_liner": "It works"}'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json, { created: true, path: '.planning/phases/01-foundation/01-01-SUMMARY.md', template: 'summary', missing: [], unfilled: [] });
  assert.is(read(root, r.json.path), '---\nphase: 01\nplan: "01"\n---\n# Phase 1 Plan 01: Foundation Summary\n\n**It works**\n\nDate: 2025-03-04\n');
  r = await run(['template', 'fill', 'summary', '--phase', '1', '--plan', '1'], { cwd: root, env });
  assert.is(r.code, 1);
  assert.match(r.stderr, /already exists; pass --force/);
  r = await run(['template', 'fill', 'summary', '--phase', '1', '--plan', '2', '--dry-run', '--raw'], { cwd: root, env });
  assert.match(r.stdout, /\*\*\*\*/, 'a dry run shows a missing field empty');
  r = await run(['template', 'fill', 'summary', '--phase', '1', '--plan', '2'], { cwd: root, env });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no value for "one_liner"; give them in --fields/, 'a real fill refuses it');
  r = await run(['template', 'fill', 'summary', '--out', '../x.md', '--phase', '1', '--plan', '3'], { cwd: root, env });
  assert.match(r.stderr, /contains "\.\."/);
  r = await run(['template', 'fill', 'nope', '--out', 'x.md'], { cwd: root, env });
  assert.match(r.stderr, /template "nope" not found .*; available: summary/);
  r = await run(['template', 'fill', 'summary', '--phase', '1', '--plan', '4', '--fields', '{"constructor": {"x": 1}}'], { cwd: root, env });
  assert.is(r.code, 2);
  assert.match(r.stderr, /"constructor" is not allowed/);
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

s('should commit planning files through git without a shell', async () => {
  const root = standardProject();
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 't@t');
  git(root, 'config', 'user.name', 't');
  const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  let r = await run(['commit', 'docs: plan $(touch pwned) `x` <system>hi</system>'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.committed, true, JSON.stringify(r.json));
  assert.match(r.json.hash, /^[0-9a-f]{7,}$/);
  assert.not.ok(fs.existsSync(path.join(root, 'pwned')));
  assert.is(git(root, 'log', '-1', '--format=%s').trim(), 'docs: plan $(touch pwned) `x` ＜system-text＞hi＜/system-text＞');
  r = await run(['commit', 'again', '--raw'], { cwd: root, env });
  assert.is(r.stdout, 'nothing');
  fs.writeFileSync(path.join(root, 'notes.md'), 'n\n');
  fs.appendFileSync(path.join(root, '.planning/STATE.md'), '\nmore\n');
  r = await run(['commit', 'just notes', '--files', 'notes.md', 'gone.md'], { cwd: root, env });
  assert.equal(r.json.files, ['notes.md']);
  assert.equal(r.json.skipped_files, ['gone.md']);
  assert.is(git(root, 'status', '--porcelain').trim(), 'M .planning/STATE.md', 'only the listed file was committed');
  r = await run(['commit', 'x', '--files', '../etc/passwd'], { cwd: root, env });
  assert.is(r.code, 1);
  fs.writeFileSync(path.join(root, '.planning/config.json'), '{"planning": {"commit_docs": false}}');
  r = await run(['commit', 'skip me'], { cwd: root, env });
  assert.equal(r.json, { committed: false, skipped: true, hash: null, reason: 'skipped_commit_docs_false' });
  r = await run(['commit', 'skip me too', '--files', '.planning/STATE.md'], { cwd: root, env });
  assert.is(r.json.reason, 'skipped_commit_docs_false');
  fs.writeFileSync(path.join(root, 'code.ts'), 'export {};\n');
  r = await run(['commit', 'feat(01-01): code with docs off', '--files', 'code.ts', '.planning/STATE.md'], { cwd: root, env });
  assert.is(r.json.committed, true, 'code is committed when only planning docs are off');
  assert.equal(r.json.files, ['code.ts']);
  assert.equal(r.json.withheld_planning_files, ['.planning/STATE.md']);
  assert.match(git(root, 'status', '--porcelain'), /^ M \.planning\/STATE\.md$/m, 'the planning file stays uncommitted');
});


s('should report health and repair only what is safe', async () => {
  const root = standardProject({ '.planning/config.json': '{"oops": 1}', '.planning/phases/misc/x.md': 'x' });
  let r = await run(['health'], { cwd: root });
  assert.is(r.json.status, 'degraded');
  const codes = r.json.warnings.map((w: { code: string }) => w.code).sort();
  assert.equal(codes, ['config-unknown-key', 'phase-dir-name', 'state-frontmatter-drift']);
  r = await run(['health', '--repair'], { cwd: root });
  assert.match(r.json.repaired.join('\n'), /re-derived \.planning\/STATE\.md frontmatter/);
  r = await run(['health', '--raw'], { cwd: root });
  assert.is(r.stdout, 'degraded');
  fs.writeFileSync(path.join(root, '.planning/STATE.md'), '---\nbroken\n---\n');
  r = await run(['health'], { cwd: root });
  assert.is(r.code, 1);
  assert.is(r.json.status, 'degraded', 'a frontmatter that does not parse is rebuilt from the body, not fatal');
  const broken = r.json.warnings.find((w: { code: string }) => w.code === 'state-frontmatter-rebuilt');
  assert.match(broken.message, /\.planning\/STATE\.md:2: frontmatter does not parse \(expected "key: value"/);
});

s('should write the phase USER-SETUP.md from the shipped template and hand its path to execute-phase and verify-work', async () => {
  const root = standardProject();
  const env = { GSD_CORE_DIR: path.join(REPO_ROOT, 'source', 'gsd-core') };
  let r = await run(['init', 'execute-phase', '1'], { cwd: root, env });
  assert.is(r.json.user_setup_path, null, 'no setup file yet');
  r = await run(['template', 'fill', 'user-setup', '--phase', '1'], { cwd: root, env });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.path, '.planning/phases/01-foundation/01-USER-SETUP.md');
  const text = read(root, r.json.path);
  assert.match(text, /^---\nphase: 01-foundation\nstatus: pending\n/);
  for (const heading of ['## Services', '## Environment variables', '## Dashboard steps', '## Checks']) assert.ok(text.includes(heading), heading);
  for (const wf of ['execute-phase', 'verify-work']) {
    r = await run(['init', wf, '1'], { cwd: root, env });
    assert.is(r.json.user_setup_path, '.planning/phases/01-foundation/01-USER-SETUP.md', wf);
  }
});

s.run();
