// The GSD lifecycle on a scratch project, driven by the runtime CLI calls the
// corpus itself makes: every call below is read out of a workflow or agent
// file, its placeholders bound to this project's values, and run against the
// bundled gsd-tools.cjs. When a workflow drops or renames a call, or a call
// stops working, this test fails at that step.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite, assert } from './harness.ts';
import { REPO_ROOT } from '../pipeline.ts';
import { escapeRegExp } from '../util/text.ts';
import { bundleRuntime } from '../../source/runtime/build.ts';
import { cliCalls, loadShellParser } from '../load/cli-calls.ts';
import table from '../../source/runtime/command-table.json' with { type: 'json' };

const SOURCE = path.join(REPO_ROOT, 'source');
const INVOCATION = /^\s*node "\$HOME\/\.claude\/gsd-core\/bin\/gsd-tools\.cjs" (.*)$/;
const FIXED_NOW = '2025-03-04T05:06:07.000Z';
const TODAY = FIXED_NOW.slice(0, 10);

const created: string[] = [];
process.on('exit', () => {
  if (process.env.GSD_KEEP_TMP) return;
  for (const dir of created) fs.rmSync(dir, { recursive: true, force: true });
});

function tmpDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

/** One runtime-CLI call as written in a corpus file. */
interface Call {
  file: string;
  line: number;
  words: string[];
}

await loadShellParser();
const callCache = new Map<string, Call[]>();

/** The words of every runtime-CLI call in `text`, as the compiler's shell parser reads them (quotes removed). */
function callWords(text: string): string[][] {
  return cliCalls(text).map((call) => call.words.map((word) => word.text));
}

/** Every runtime-CLI call in a corpus file (shell fences, agent prompts, inline code), read by the compiler's shell parser. */
function callsIn(rel: string): Call[] {
  let calls = callCache.get(rel);
  if (!calls) {
    const text = fs.readFileSync(path.join(SOURCE, rel), 'utf8');
    calls = cliCalls(text).map((call) => ({ file: rel, line: call.program.line, words: call.words.map((word) => word.text) }));
    callCache.set(rel, calls);
  }
  return calls;
}

/** Lines of the shell fences in `rel` that are not runtime-CLI calls (`mkdir -p …`, `git init`). */
function shellSteps(rel: string): { line: number; text: string }[] {
  const steps: { line: number; text: string }[] = [];
  let inShell = false;
  for (const [index, content] of fs.readFileSync(path.join(SOURCE, rel), 'utf8').split('\n').entries()) {
    const fence = /^\s*```(\w*)\s*$/.exec(content);
    if (fence) {
      inShell = !inShell && (fence[1] === 'bash' || fence[1] === 'sh');
      continue;
    }
    if (inShell && !INVOCATION.test(content) && content.trim() !== '') steps.push({ line: index + 1, text: content.trim() });
  }
  return steps;
}

/** The first call in `rel` whose text matches `pattern` (a verb prefix such as `phase add`, or a RegExp). */
function pick(rel: string, pattern: string | RegExp): Call {
  const re = typeof pattern === 'string' ? new RegExp(`^${escapeRegExp(pattern)}(\\s|$)`) : pattern;
  const call = callsIn(rel).find((c) => re.test(c.words.join(' ')));
  if (!call) throw new Error(`source/${rel} no longer makes a "${String(pattern)}" call; the lifecycle step that relies on it cannot run`);
  return call;
}

/** The first of several alternative verbs that `rel` uses. */
function pickAny(rel: string, patterns: (string | RegExp)[]): Call {
  for (const p of patterns) {
    try {
      return pick(rel, p);
    } catch {
      continue;
    }
  }
  throw new Error(`source/${rel} makes none of these calls: ${patterns.map(String).join(', ')}`);
}

interface Binding {
  /** `{name}` placeholders. */
  vars?: Record<string, string | number>;
  /** `<name>` placeholders, also inside JSON arguments. */
  angle?: Record<string, string | number>;
  /** `$ARGUMENTS` as it would arrive from the user. */
  args?: string[];
  /** Replace the value(s) of a flag the call has; an example value in an agent file is not this project's. */
  set?: Record<string, string | string[]>;
  /** Replace the positional words after the verb. */
  positional?: string[];
  /** Leave out flags (with their values) the user did not give, e.g. an optional `--diagnose`. */
  drop?: string[];
}

function verbLength(words: string[]): number {
  const spec = (table.commands as Record<string, { subcommands?: unknown }>)[words[0]!];
  if (!spec) throw new Error(`unknown gsd-tools command "${words[0]}"`);
  return spec.subcommands ? 2 : 1;
}

/** The argv of a call with this project's values bound; fails on any placeholder left unbound. */
function bind(call: Call, binding: Binding): string[] {
  const where = `source/${call.file}:${call.line}`;
  const verb = verbLength(call.words);
  let words = call.words.flatMap((word) => (word === '$ARGUMENTS' ? (binding.args ?? []) : [word]));
  if (binding.positional) {
    let end = verb;
    while (end < words.length && !words[end]!.startsWith('--')) end += 1;
    words = [...words.slice(0, verb), ...binding.positional, ...words.slice(end)];
  }
  for (const flag of binding.drop ?? []) {
    const at = words.indexOf(flag);
    if (at < 0) throw new Error(`${where}: the call has no ${flag} to leave out (${call.words.join(' ')})`);
    let end = at + 1;
    while (end < words.length && !words[end]!.startsWith('--')) end += 1;
    words.splice(at, end - at);
  }
  for (const [flag, value] of Object.entries(binding.set ?? {})) {
    const at = words.indexOf(flag);
    if (at < 0) throw new Error(`${where}: the call has no ${flag} (${call.words.join(' ')})`);
    let end = at + 1;
    while (end < words.length && !words[end]!.startsWith('--')) end += 1;
    words.splice(at + 1, end - at - 1, ...(Array.isArray(value) ? value : [value]));
  }
  const overridden = new Set<number>();
  for (const flag of Object.keys(binding.set ?? {})) {
    const at = words.indexOf(flag);
    for (let i = at + 1; i < words.length && !words[i]!.startsWith('--'); i++) overridden.add(i);
  }
  return words.map((word, index) => {
    if (overridden.has(index)) return word;
    let out = word.replace(/\{([a-z_][a-z0-9_]*)\}/g, (m, name: string) => {
      const v = binding.vars?.[name];
      if (v === undefined) throw new Error(`${where}: no value bound for ${m} in "${call.words.join(' ')}"`);
      return String(v);
    });
    out = out.replace(/<([a-z][a-z0-9 _-]*)>/gi, (m, name: string) => {
      const v = binding.angle?.[name];
      if (v === undefined) throw new Error(`${where}: no value bound for ${m} in "${call.words.join(' ')}"`);
      return String(v);
    });
    return out;
  });
}

class Scratch {
  readonly root = tmpDir('gsd-lifecycle-');
  readonly log: string[] = [];
  /** A folder put first on PATH (stand-in programs), or empty. */
  pathFirst = '';
  constructor(
    readonly cli: string,
    readonly cache: string,
  ) {
    this.git(['init', '-q']);
    fs.writeFileSync(path.join(this.root, 'README.md'), '# Notes app\n');
    this.git(['add', 'README.md']);
    this.git(['commit', '-q', '-m', 'chore: initial commit']);
  }

  env(): NodeJS.ProcessEnv {
    return {
      PATH: [this.pathFirst, process.env.PATH ?? ''].filter(Boolean).join(path.delimiter),
      HOME: this.root,
      XDG_CACHE_HOME: this.cache,
      GSD_NOW: FIXED_NOW,
      GIT_AUTHOR_NAME: 'GSD Test',
      GIT_AUTHOR_EMAIL: 'gsd@example.invalid',
      GIT_COMMITTER_NAME: 'GSD Test',
      GIT_COMMITTER_EMAIL: 'gsd@example.invalid',
      GIT_CONFIG_NOSYSTEM: '1',
    };
  }

  git(args: string[]): string {
    const r = spawnSync('git', args, { cwd: this.root, encoding: 'utf8', env: this.env() });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** Run one corpus call with this project's values; returns its JSON answer. */
  run(call: Call, binding: Binding = {}): any {
    const argv = bind(call, binding);
    const r = spawnSync(process.execPath, [this.cli, ...argv], { cwd: this.root, encoding: 'utf8', env: this.env(), timeout: 60_000 });
    this.log.push(`gsd-tools ${argv.join(' ')}  (source/${call.file}:${call.line}) → exit ${r.status}`);
    if (r.status !== 0) {
      throw new Error(`source/${call.file}:${call.line}: gsd-tools ${argv.join(' ')} exited ${r.status}: ${r.stderr.trim()}\n${this.log.join('\n')}`);
    }
    let answer: any;
    try {
      answer = JSON.parse(r.stdout);
    } catch {
      answer = r.stdout;
    }
    if (argv[0] === 'commit' && answer?.committed !== true) {
      throw new Error(`source/${call.file}:${call.line}: gsd-tools ${argv.join(' ')} did not commit: ${JSON.stringify(answer)}\n${this.log.join('\n')}`);
    }
    return answer;
  }

  /** A read the test makes to check the outcome (not part of the walk). */
  query(argv: string[]): any {
    const r = spawnSync(process.execPath, [this.cli, ...argv], { cwd: this.root, encoding: 'utf8', env: this.env() });
    if (r.status !== 0) throw new Error(`gsd-tools ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
    try {
      return JSON.parse(r.stdout);
    } catch {
      return r.stdout;
    }
  }

  read(rel: string): string {
    return fs.readFileSync(path.join(this.root, rel), 'utf8');
  }

  write(rel: string, text: string): void {
    fs.mkdirSync(path.dirname(path.join(this.root, rel)), { recursive: true });
    fs.writeFileSync(path.join(this.root, rel), text);
  }

  /** Edit a file the way an agent would: replace one piece of text that must be there. */
  edit(rel: string, from: string | RegExp, to: string): void {
    const text = this.read(rel);
    const next = text.replace(from, to);
    if (next === text) throw new Error(`${rel}: nothing matched ${String(from)}`);
    this.write(rel, next);
  }

  exists(rel: string): boolean {
    return fs.existsSync(path.join(this.root, rel));
  }

  committed(message: RegExp): void {
    assert.match(this.git(['log', '--format=%s']), message);
  }
}

async function buildBundle(): Promise<string> {
  const dir = tmpDir('gsd-lifecycle-bundle-');
  for (const file of await bundleRuntime()) {
    const p = path.join(dir, file.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, file.contents);
  }
  fs.cpSync(path.join(SOURCE, 'gsd-core', 'templates'), path.join(dir, 'gsd-core', 'templates'), { recursive: true });
  return path.join(dir, 'gsd-core', 'bin', 'gsd-tools.cjs');
}

const NEW_PROJECT = 'gsd-core/workflows/new-project.md';
const ROADMAPPER = 'agents/gsd-roadmapper.md';
const PHASE = 'gsd-core/workflows/phase.md';
const PHASE_ADD = 'gsd-core/workflows/phase/modes/add.md';
const PLAN_PHASE = 'gsd-core/workflows/plan-phase.md';
const PLANNER = 'agents/gsd-planner.md';
const EXECUTE_PHASE = 'gsd-core/workflows/execute-phase.md';
const EXECUTOR = 'agents/gsd-executor.md';
const VERIFIER = 'agents/gsd-verifier.md';
const VERIFY_WORK = 'gsd-core/workflows/verify-work.md';
const COMPLETE_MILESTONE = 'gsd-core/workflows/complete-milestone.md';
const NEW_MILESTONE = 'gsd-core/workflows/new-milestone.md';

const PHASES = [
  { number: '1', padded: '01', name: 'Notes core', slug: 'notes-core', reqs: ['NOTE-01', 'NOTE-02'] },
  { number: '2', padded: '02', name: 'Search notes', slug: 'search-notes', reqs: ['FIND-01'] },
] as const;
type Phase = (typeof PHASES)[number];

function dirOf(p: Phase): string {
  return `.planning/phases/${p.padded}-${p.slug}`;
}

/** Project initialised from templates: PROJECT, config, REQUIREMENTS, ROADMAP (by the roadmapper), STATE. */
function initialise(s: Scratch): void {
  const init = s.run(pick(NEW_PROJECT, 'init new-project'));
  assert.is(init.project_exists, false);
  assert.is(init.has_git, true);

  // The first file needs .planning/ to exist: the workflow makes it with a shell step or with the
  // project-optional config-new-project before anything else; both are followed in the workflow's order.
  const projectFill = pick(NEW_PROJECT, 'template fill project');
  const config = pick(NEW_PROJECT, 'config-new-project');
  for (const step of shellSteps(NEW_PROJECT).filter((line) => /^mkdir -p \.planning\b/.test(line.text) && line.line < projectFill.line)) {
    fs.mkdirSync(path.join(s.root, step.text.split(/\s+/)[2]!), { recursive: true });
  }
  if (config.line < projectFill.line) s.run(config, { positional: ['{"mode": "yolo"}'] });
  s.run(projectFill, { angle: { name: 'Notes' } });
  s.edit('.planning/PROJECT.md', /## Core Value\n\n[^\n]*\n/, '## Core Value\n\nNotes are saved and found again instantly.\n');
  if (config.line > projectFill.line) s.run(config, { positional: ['{"mode": "yolo"}'] });
  s.run(pick(NEW_PROJECT, 'commit'));
  s.committed(/^docs: define project$/m);

  s.run(pick(NEW_PROJECT, 'template fill requirements'), { angle: { 'core value': 'Notes are saved and found again instantly.' } });
  s.edit(
    '.planning/REQUIREMENTS.md',
    /### \[Category\]\n\n[^\n]*\n/,
    '### Notes\n\n- [ ] **NOTE-01**: User can create a note with a title and body\n- [ ] **NOTE-02**: User can edit a note and see the change after a reload\n\n### Find\n\n- [ ] **FIND-01**: User can search notes by a word in the title or body\n',
  );

  s.run(pick(ROADMAPPER, 'template fill roadmap'));
  const p1 = PHASES[0];
  s.write(
    '.planning/ROADMAP.md',
    s
      .read('.planning/ROADMAP.md')
      .replace(/\[Two or three sentences[^\]]*\]/, 'A notes app in one phase, search added later.')
      .replaceAll('[Name]', p1.name)
      .replace(/\[one line on what it delivers\]/, 'create and edit notes')
      .replace(/\*\*Goal\*\*: \[[^\]]*\]/, '**Goal**: Users can write and edit notes that persist')
      .replace(/\*\*Requirements\*\*: \[[^\]]*\]/, `**Requirements**: ${p1.reqs.join(', ')}`)
      .replace(/1\. \[Observable behaviour[^\]]*\]/, '1. A created note is listed after a reload'),
  );
  s.write(
    '.planning/REQUIREMENTS.md',
    s.read('.planning/REQUIREMENTS.md').replace(
      /(\| Requirement \| Phase \| Status \|\n\|[-| ]+\|\n)/,
      `$1| NOTE-01 | Phase 1 | Pending |\n| NOTE-02 | Phase 1 | Pending |\n| FIND-01 | - | Pending |\n`,
    ),
  );
  const roadmap = s.query(['roadmap', 'analyze']);
  assert.is(roadmap.phases.length, 1, 'the roadmap the roadmapper wrote parses to one phase');

  s.run(pick(NEW_PROJECT, 'template fill state'), {
    angle: { name: 'MVP', n: 1, 'phase 1 name': p1.name, 'core value': 'Notes are saved and found again instantly.' },
  });
  s.run(pick(NEW_PROJECT, /^commit .*ROADMAP/));

  // After: every project file exists, parses, and is committed.
  assert.match(s.read('.planning/PROJECT.md'), /^# Notes\n/);
  assert.is(JSON.parse(s.read('.planning/config.json')).mode, 'yolo');
  assert.match(s.read('.planning/REQUIREMENTS.md'), /- \[ \] \*\*NOTE-01\*\*/);
  const state = s.query(['state', 'json']);
  assert.is(state.milestone, 'v1.0');
  assert.is(state.current_phase, '1');
  assert.is(state.status, 'ready_to_plan', 'the template frontmatter says what its Status line says');
  assert.is(s.git(['status', '--porcelain', '.planning']), '', 'everything in .planning/ is committed');
}

/** Phase added through /gsd-phase: the CLI appends it; the orchestrator fills in goal and requirements. */
function addPhase(s: Scratch): void {
  const p2 = PHASES[1];
  const added = s.run(pick(PHASE_ADD, 'phase add'), { vars: { description: p2.name } });
  assert.is(added.phase_number, '2');
  assert.is(added.directory, dirOf(p2));
  s.edit('.planning/ROADMAP.md', /### Phase 2: Search notes\n\n\*\*Goal\*\*: \[To be planned\]/, '### Phase 2: Search notes\n\n**Goal**: Users find any note by a word in it');
  s.edit('.planning/ROADMAP.md', /(### Phase 2: Search notes[\s\S]*?\*\*Requirements\*\*: )TBD/, `$1${p2.reqs.join(', ')}`);
  s.edit('.planning/REQUIREMENTS.md', '| FIND-01 | - | Pending |', '| FIND-01 | Phase 2 | Pending |');
  s.run(pick(PHASE, 'commit'), { vars: { mode: 'add', phase_number: '2', name: p2.name } });

  assert.ok(s.exists(dirOf(p2)), 'the phase folder exists');
  assert.match(s.read('.planning/ROADMAP.md'), /- \[ \] \*\*Phase 2: Search notes\*\*/);
  assert.match(s.read('.planning/ROADMAP.md'), /\| 2\. Search notes \| 0\/0 \| Not started \| - \|/);
  assert.match(s.query(['state', 'get', 'Phase', '--raw']), /^1 of 2 /);
  assert.match(s.query(['roadmap', 'get-phase', '2']).section, /\*\*Requirements\*\*: FIND-01/);
  s.committed(/^docs: add phase 2: Search notes$/m);
}

/** Plans written: plan-phase's init, the planner's template fill and check, plan-phase's state and roadmap updates. */
function planPhase(s: Scratch, p: Phase): void {
  const init = s.run(pick(PLAN_PHASE, 'init plan-phase'), { args: [p.number, '--skip-research'] });
  assert.is(init.phase_found, true);
  assert.is(init.phase_req_ids, p.reqs.join(', '));
  const dir = init.phase_dir ?? init.expected_phase_dir;
  assert.is(dir, dirOf(p));

  const filled = s.run(pick(PLANNER, 'template fill plan'), { set: { '--phase': p.number, '--plan': '01', '--name': `${p.name} end to end`, '--type': 'execute', '--wave': '1' } });
  const planFile = `${dir}/${p.padded}-01-PLAN.md`;
  assert.is(filled.path, planFile);
  s.edit(planFile, /^requirements: \[\]$/m, `requirements: [${p.reqs.join(', ')}]`);
  const structure = s.run(pick(PLANNER, 'verify plan-structure'), { positional: [planFile] });
  assert.is(structure.valid, true, JSON.stringify(structure.errors));
  for (const id of p.reqs) {
    const fm = s.run(pick(PLAN_PHASE, /^frontmatter get .*--field requirements/), { vars: { phase_dir: dir, padded_phase: p.padded, plan_file: `${p.padded}-01-PLAN.md` } });
    assert.ok(JSON.stringify(fm).includes(id), `requirements coverage gate sees ${id}`);
  }

  const finalize = pickAny(PLAN_PHASE, ['state planned-phase', /^state patch .*Ready to execute/]);
  s.run(finalize, { vars: { phase_number: p.number, padded_phase: p.padded, plans_written: 1, plan_count: 1, phase_name: p.name, phase_dir: dir } });
  s.run(pick(PLAN_PHASE, 'roadmap update-plan-progress'), { vars: { phase_number: p.number } });
  s.run(pick(PLAN_PHASE, /^commit .*plan phase/), { vars: { padded_phase: p.padded, phase_number: p.number, phase_dir: dir } });

  assert.ok(s.exists(planFile));
  assert.is(s.query(['state', 'get', 'Status', '--raw']), 'Ready to execute');
  assert.match(s.read('.planning/ROADMAP.md'), new RegExp(`\\| ${p.number}\\. ${p.name} \\| 0/1 \\|`));
  assert.is(s.git(['status', '--porcelain', '.planning']), '');
}

/** Summaries recorded: execute-phase's init and waves, the executor's summary, the orchestrator's state updates. */
function executePhase(s: Scratch, p: Phase): void {
  const dir = dirOf(p);
  const init = s.run(pick(EXECUTE_PHASE, 'init execute-phase'), { args: [p.number] });
  assert.is(init.plan_count, 1);
  assert.is(init.incomplete_count, 1);
  const index = s.run(pick(EXECUTE_PHASE, 'phase plan-index'), { vars: { phase_number: p.number } });
  assert.equal(index.waves, { '1': [`${p.padded}-01`] });
  const starting = pickAny(EXECUTE_PHASE, ['state begin-phase', /^state patch .*Executing/]);
  s.run(starting, { vars: { phase_number: p.number, phase_name: p.name, plan_count: 1 } });

  // The executor's work: code, a task commit, then its summary.
  s.write(`src/${p.slug}.ts`, `export const ${p.slug.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase())} = true;\n`);
  s.run(pick(EXECUTOR, 'commit'), { positional: [`feat(${p.padded}-01): ${p.name.toLowerCase()}`], set: { '--files': [`src/${p.slug}.ts`] } });
  const summaryCall = pick(EXECUTOR, /^template fill summary/);
  const summary = s.run(summaryCall, { set: { '--phase': p.number, '--plan': '01', '--name': `${p.name} end to end`, ...(summaryCall.words.includes('--fields') ? { '--fields': '{"duration": "12min"}' } : {}) } });
  const summaryFile = `${dir}/${p.padded}-01-SUMMARY.md`;
  assert.is(summary.path, summaryFile);
  s.edit(summaryFile, /^\*\*\[[^\n]*\]\*\*$/m, `**${p.name} works end to end with tests.**`);
  s.edit(summaryFile, /^requirements-completed: \[\]$/m, `requirements-completed: [${p.reqs.join(', ')}]`);
  const valid = pickAny(EXECUTOR, ['frontmatter validate']);
  const check = s.run(valid, { positional: [summaryFile] });
  assert.is(check.valid, true, JSON.stringify(check));
  s.run(pick(EXECUTOR, /^commit docs\(/), { positional: [`docs(${p.padded}-01): complete plan`], set: { '--files': [summaryFile] } });

  // The orchestrator confirms the summary and records the wave.
  const extracted = s.run(pick(EXECUTE_PHASE, 'summary-extract'), { vars: { phase_dir: dir, plan_id: `${p.padded}-01` } });
  assert.is(extracted.one_liner, `${p.name} works end to end with tests.`);
  const vars = { phase_number: p.number, padded_phase: p.padded, plan_id: `${p.padded}-01`, duration: '12min', tasks: 1, files: 1, wave: 1, phase_dir: dir };
  s.run(pick(EXECUTE_PHASE, 'state record-metric'), { vars });
  s.run(pick(EXECUTE_PHASE, 'state advance-plan'), { vars });
  s.run(pick(EXECUTE_PHASE, 'roadmap update-plan-progress'), { vars });
  s.run(pick(EXECUTE_PHASE, /^commit .*wave/), { vars });
  // The drift step's auto-remap: this init names no mapper, so its skills come from agent-skills; none configured, an empty block.
  assert.is(s.run(pick(EXECUTE_PHASE, 'agent-skills gsd-codebase-mapper')), '');

  assert.ok(s.exists(summaryFile));
  assert.match(s.read('.planning/ROADMAP.md'), new RegExp(`\\| ${p.number}\\. ${p.name} \\| 1/1 \\|`));
  assert.match(s.read('.planning/STATE.md'), /\| 12min \|/);
  assert.is(s.query(['verify', 'phase-completeness', p.number]).complete, true);
  assert.is(s.git(['status', '--porcelain', '.planning']), '');
}

/** Verification: the verifier's VERIFICATION.md, then verify-work's acceptance tests, which close the phase. */
function verifyPhase(s: Scratch, p: Phase, next: Phase | null): void {
  const dir = dirOf(p);
  const verification = s.run(pick(VERIFIER, 'template fill verification'), { set: { '--phase': p.number, '--fields': '{"status": "passed", "score": "3/3 must-haves verified"}' } });
  assert.is(verification.path, `${dir}/${p.padded}-VERIFICATION.md`);
  s.run(pick(VERIFIER, 'commit'), { positional: [`docs(${p.padded}): verify phase`], set: { '--files': [verification.path] } });

  const init = s.run(pick(VERIFY_WORK, 'init verify-work'), { vars: { phase: p.number } });
  assert.is(init.verification_status, 'passed');
  assert.is(init.has_uat, false);
  assert.equal(init.phase_completion, { plans: 1, summaries: 1 });
  const tests = { sources: [`${p.padded}-01-SUMMARY.md`], total: 2, tests: [{ number: 1, name: `Use ${p.name.toLowerCase()}`, expected: 'It works as described' }, { number: 2, name: 'Reload the page', expected: 'Nothing is lost' }] };
  const uat = s.run(pick(VERIFY_WORK, 'template fill uat'), { vars: { phase_number: p.number }, set: { '--fields': JSON.stringify(tests) } });
  const uatFile = `${dir}/${p.padded}-UAT.md`;
  assert.is(uat.path, uatFile);
  s.run(pick(VERIFY_WORK, /^commit .*start acceptance/), { vars: { padded_phase: p.padded, uat_file: uatFile } });
  // The user answers "pass" twice; the workflow records each answer.
  for (const test of [1, 2]) answer(s, p, test, 'pass');
  assert.match(s.read(uatFile), /^passed: 2$/m);
  const closed = closeAcceptance(s, p, uatFile, dir);

  assert.is(closed.completed_phase, p.number);
  assert.is(closed.next_phase, next ? next.number : null);
  assert.is(s.query(['frontmatter', 'get', uatFile, '--field', 'status']).status, 'complete');
  assert.match(s.read('.planning/ROADMAP.md'), new RegExp(`- \\[x\\] \\*\\*Phase ${p.number}: ${p.name}\\*\\*`));
  assert.match(s.read('.planning/ROADMAP.md'), new RegExp(`\\| ${p.number}\\. ${p.name} \\| 1/1 \\| Complete \\| ${TODAY} \\|`));
  for (const id of p.reqs) assert.match(s.read('.planning/REQUIREMENTS.md'), new RegExp(`- \\[x\\] \\*\\*${id}\\*\\*`));
  assert.is(s.query(['state', 'get', 'Status', '--raw']), next ? 'Ready to plan' : 'All phases complete');
  assert.is(s.git(['status', '--porcelain', '.planning']), '');
}

/** One answer recorded with verify-work's `uat record` call. */
/** verify-work's close: the UAT file marked complete and committed, then the phase completed and committed. */
function closeAcceptance(s: Scratch, p: Phase, uatFile: string, dir: string) {
  s.run(pick(VERIFY_WORK, /^frontmatter set \{uat_file\} --field status/), { vars: { uat_file: uatFile } });
  s.run(pick(VERIFY_WORK, /^frontmatter set \{uat_file\} --field updated/), { vars: { uat_file: uatFile }, set: { '--value': FIXED_NOW } });
  s.run(pick(VERIFY_WORK, /^commit .*acceptance test results/), { vars: { padded_phase: p.padded, uat_file: uatFile } });
  const closed = s.run(pick(VERIFY_WORK, 'phase complete'), { vars: { phase_number: p.number } });
  s.run(pick(VERIFY_WORK, /^commit .*complete phase/), { vars: { padded_phase: p.padded, phase_number: p.number, phase_dir: dir } });
  return closed;
}

function answer(s: Scratch, p: Phase, test: number, result: 'pass' | 'issue', reported = ''): any {
  const call = pick(VERIFY_WORK, 'uat record');
  const binding: Binding = result === 'pass' ? { vars: { phase_number: p.number, test }, set: { '--result': 'pass' }, drop: ['--reported', '--severity'] } : { vars: { phase_number: p.number, test, reply: reported } };
  return s.run(call, binding);
}

/** Milestone completed: readiness dry run, the archive, and the commit of the moved folders. */
function completeMilestone(s: Scratch): void {
  const init = s.run(pick(COMPLETE_MILESTONE, 'init complete-milestone'), { args: [] });
  assert.is(init.all_phases_complete, true);
  const version = init.milestone_version;
  assert.is(version, 'v1.0');
  const dry = s.run(pick(COMPLETE_MILESTONE, /^milestone complete .*--dry-run/), { vars: { version } });
  assert.equal(dry.unfinished, []);
  assert.is(s.exists('.planning/milestones'), false, 'a dry run writes nothing');
  // The integration step: this init names no agent, so the checker's skills come from agent-skills; none configured, an empty block.
  assert.is(s.run(pick(COMPLETE_MILESTONE, 'agent-skills gsd-integration-checker')), '');
  // The retrospective step: this milestone's section in the template's shape.
  const retro = fs.readFileSync(path.join(SOURCE, 'gsd-core/templates/retrospective.md'), 'utf8');
  assert.match(fs.readFileSync(path.join(SOURCE, COMPLETE_MILESTONE), 'utf8'), /templates\/retrospective\.md/);
  s.write('.planning/RETROSPECTIVE.md', retro.replace('{version} {milestone_name} (shipped {date})', `${version} MVP (shipped ${TODAY})`));
  const done = s.run(pick(COMPLETE_MILESTONE, /^milestone complete \{version\} --name/), { vars: { version, milestone_name: 'MVP' } });
  assert.is(done.completed, true);
  // The archive step then reduces ROADMAP.md to the shipped record.
  const title = s.read('.planning/ROADMAP.md').split('\n')[0];
  s.write('.planning/ROADMAP.md', `${title}\n\n## Milestones\n\n- ✅ **${version} MVP**: phases 1–2, shipped ${TODAY}\n  (full roadmap: \`milestones/${version}-ROADMAP.md\`)\n\n<details>\n<summary>✅ ${version} MVP — shipped ${TODAY}</summary>\n\n- [x] Phase 1: ${PHASES[0].name}\n- [x] Phase 2: ${PHASES[1].name}\n\n</details>\n`);
  s.run(pick(COMPLETE_MILESTONE, /^commit .*complete milestone/), { vars: { version } });

  assert.ok(s.exists('.planning/milestones/v1.0-ROADMAP.md'));
  assert.ok(s.exists('.planning/milestones/v1.0-REQUIREMENTS.md'));
  for (const p of PHASES) {
    assert.ok(s.exists(`.planning/milestones/v1.0-phases/${p.padded}-${p.slug}/${p.padded}-01-SUMMARY.md`));
    assert.is(s.exists(dirOf(p)), false);
  }
  assert.match(s.read('.planning/MILESTONES.md'), /^## v1\.0 MVP \(Shipped: 2025-03-04\)$/m);
  assert.match(s.read('.planning/MILESTONES.md'), /\*\*Phases completed:\*\* 2 phases, 2 plans, 2 summaries/);
  assert.is(s.query(['state', 'json']).status, 'completed');
  assert.is(s.git(['status', '--porcelain', '.planning']), '', 'the archive moves are committed');
  s.committed(/^chore: complete milestone v1\.0$/m);
  // The next milestone's roadmap gate reads the working style, which init new-milestone does not carry.
  assert.is(s.run(pick(NEW_MILESTONE, 'config-get mode')), 'yolo');
}

const PAUSE = 'gsd-core/workflows/pause-work.md';
const RESUME = 'gsd-core/workflows/resume-work.md';
const PHASE_INSERT = 'gsd-core/workflows/phase/modes/insert.md';
const PHASE_REMOVE = 'gsd-core/workflows/phase/modes/remove.md';
const QUICK = 'gsd-core/workflows/quick.md';
const SETTINGS = 'gsd-core/workflows/settings.md';
const MAP_CODEBASE = 'gsd-core/workflows/map-codebase.md';
const MAPPER = 'agents/gsd-codebase-mapper.md';

/** pause-work then resume-work: a handoff in the phase folder, the stop recorded in STATE.md and undone. */
function pauseAndResume(s: Scratch): void {
  const state = s.run(pick(PAUSE, 'state json'));
  const before = s.run(pick(PAUSE, 'state get Status'));
  assert.is(before, 'Ready to plan');
  const found = s.run(pick(PAUSE, 'phase find'), { vars: { current_phase: state.current_phase } });
  // Phase 1 has no folder before it is planned, so the handoff goes to .planning/ (the workflow's fallback).
  assert.is(found.directory, null);
  const folder = '.planning';
  const handoff = `${folder}/.continue-here.md`;
  s.run(pick(PAUSE, 'state add-decision'), { vars: { current_phase: state.current_phase }, set: { '--summary': 'Notes are stored as Markdown files', '--rationale': 'users can read them without the app' } });
  s.run(pick(PAUSE, 'template fill continue-here'), { vars: { current_phase: state.current_phase, handoff_path: handoff }, set: { '--fields': JSON.stringify({ plan: 'none', task: 'none', status_before_pause: before }) } });
  const where = 'discussing phase 1 storage format';
  const report = `.planning/reports/${TODAY}-session.md`;
  s.run(pick(PAUSE, 'template fill session-report'), { vars: { current_phase: state.current_phase, report_path: report }, set: { '--fields': JSON.stringify({ stopped_at: where }) } });
  assert.match(s.read(report), new RegExp(`^stopped_at: ${where}$`, 'm'));
  assert.match(s.read(report), /^## Done$[\s\S]*^## Decided$[\s\S]*^## Left$/m);
  s.run(pick(PAUSE, 'state record-session'), { vars: { 'one line on where work stopped': where, handoff_path: handoff }, set: { '--stopped-at': where } });
  s.run(pick(PAUSE, 'state update Status'), { positional: ['Status', `Paused: ${where}`] });
  s.run(pick(PAUSE, 'commit'), { vars: { handoff_path: handoff, report_path: report }, positional: [`wip: pause at phase 1`] });
  assert.match(s.read(handoff), /^status_before_pause: Ready to plan$/m);
  assert.is(s.query(['state', 'json']).status, 'paused');
  assert.is(s.query(['state', 'get', 'Resume file', '--raw']), handoff);
  assert.match(s.read('.planning/STATE.md'), /Notes are stored as Markdown files/);

  const init = s.run(pick(RESUME, 'init resume'));
  assert.is(init.continue_here_path, null, 'init resume finds handoffs in phase folders only');
  assert.is(s.run(pick(RESUME, 'state get')), handoff);
  s.run(pick(RESUME, 'state update Status'), { vars: { status_before_pause: before } });
  s.run(pick(RESUME, 'state record-session'), { set: { '--stopped-at': 'Resumed: phase 1 storage format' } });
  fs.rmSync(path.join(s.root, handoff));
  s.run(pick(RESUME, 'commit'), { vars: { handoff_folder: folder } });
  assert.is(s.query(['state', 'get', 'Status', '--raw']), 'Ready to plan');
  assert.is(s.query(['state', 'get', 'Resume file', '--raw']), 'None');
  assert.is(s.exists(handoff), false);
  assert.ok(s.exists(report), 'the session report outlives the handoff');
  assert.is(s.git(['status', '--porcelain', '.planning']), '', 'the handoff removal is committed');
}

/** /gsd-phase --insert and --remove: a decimal phase slotted in after phase 1, then taken out again. */
function insertAndRemove(s: Scratch): void {
  const next = s.run(pick(PHASE_INSERT, 'phase next-decimal'), { vars: { after: '1' } });
  assert.is(next.next, '01.1');
  const inserted = s.run(pick(PHASE_INSERT, 'phase insert'), { vars: { after: '1', description: 'Import from files' } });
  assert.is(inserted.phase_number, '1.1');
  s.run(pick(PHASE_INSERT, 'state add-decision'), { vars: { phase_number: '1.1', description: 'Import from files', 'why it could not wait': 'users asked for it first' } });
  s.run(pick(PHASE, 'commit'), { vars: { mode: 'insert', phase_number: '1.1', name: 'Import from files' } });
  assert.match(s.read('.planning/ROADMAP.md'), /### Phase 1\.1: Import from files \(INSERTED\)/);
  assert.ok(s.exists('.planning/phases/01.1-import-from-files'));

  const removed = s.run(pick(PHASE_REMOVE, 'phase remove'), { vars: { phase: '1.1' } });
  assert.is(removed.removed, '1.1');
  s.run(pick(PHASE, 'commit'), { vars: { mode: 'remove', phase_number: '1.1', name: 'Import from files' } });
  assert.not.match(s.read('.planning/ROADMAP.md'), /Import from files/);
  assert.is(s.exists('.planning/phases/01.1-import-from-files'), false);
  assert.is(s.git(['status', '--porcelain', '.planning/ROADMAP.md', '.planning/STATE.md']), '');
}

/** /gsd-quick: a task folder, its plan and summary, a line in STATE.md, one commit. */
function quickTask(s: Scratch): void {
  const init = s.run(pick(QUICK, 'init quick'), { args: ['Fix the typo in the README'] });
  assert.is(init.quick_id, '001');
  const dir: string = init.task_dir;
  assert.is(dir, '.planning/quick/001-fix-the-typo-in-the-readme');
  const id = init.quick_id;
  s.write(`${dir}/${id}-PLAN.md`, `---\nphase: quick\nplan: "${id}"\ntype: execute\nwave: 1\ndepends_on: []\nfiles_modified: [README.md]\nautonomous: true\nrequirements: []\nmust_haves:\n  truths: [the README has no typo]\n---\n\n<objective>\nFix the typo.\n</objective>\n\n<tasks>\n<task type="auto">\n  <name>Task 1: fix the typo</name>\n  <files>README.md</files>\n  <action>Correct the spelling.</action>\n  <verify>grep -c Notes README.md</verify>\n  <done>The README reads correctly.</done>\n</task>\n</tasks>\n`);
  const plan = s.run(pick(QUICK, 'verify plan-structure'), { vars: { task_dir: dir, quick_id: id } });
  assert.is(plan.valid, true, JSON.stringify(plan.errors));
  s.write(`${dir}/${id}-SUMMARY.md`, `---\nphase: quick\nplan: "${id}"\nsubsystem: docs\ntags: [readme]\nduration: 2min\ncompleted: ${TODAY}\n---\n\n# Quick task ${id}: Summary\n\n**The README spells the app name right.**\n`);
  assert.is(s.run(pick(QUICK, 'summary-extract'), { vars: { task_dir: dir, quick_id: id } }).one_liner, 'The README spells the app name right.');
  const vars = { date: TODAY, quick_id: id, description: init.description, task_dir: dir };
  s.run(pick(QUICK, 'state update'), { vars });
  s.run(pick(QUICK, 'commit'), { vars });
  assert.match(s.query(['state', 'get', 'Last activity', '--raw']), /Quick task 001: Fix the typo in the README$/);
  assert.is(s.git(['status', '--porcelain', '.planning']), '');
  s.committed(/^docs\(quick-001\): Fix the typo in the README$/m);
}

/** /gsd-settings and /gsd-map-codebase: a config change, and one mapper document from its template. */
function settingsAndMap(s: Scratch): void {
  const config = s.run(pick(SETTINGS, 'state load'));
  assert.is(config.research, true);
  assert.is(s.run(pick(SETTINGS, 'config-get')), 'discuss');
  s.run(pick(SETTINGS, 'config-set'));
  s.run(pick(SETTINGS, 'commit'));
  assert.is(JSON.parse(s.read('.planning/config.json')).workflow.research, false);

  const init = s.run(pick(MAP_CODEBASE, 'init map-codebase'));
  assert.is(init.planning_exists, true);
  assert.is(init.codebase_map_exists, false);
  const commit = s.git(['rev-parse', '--short', 'HEAD']).trim();
  const stack = s.run(pick(MAPPER, 'template fill codebase/stack'), { set: { '--fields': JSON.stringify({ commit, paths: '.' }) } });
  assert.is(stack.path, '.planning/codebase/STACK.md');
  assert.match(s.read(stack.path), new RegExp(`^last_mapped_commit: ${commit}$`, 'm'));
  s.run(pick(MAP_CODEBASE, 'commit'), { vars: { commit } });
  s.committed(new RegExp(`^docs: map codebase at ${commit}$`, 'm'));
}

const test = suite('lifecycle');

/** A scratch repository with the bundle laid in and a project initialised the way new-project does it. */
async function newProject(): Promise<Scratch> {
  const s = new Scratch(await buildBundle(), tmpDir('gsd-lifecycle-cache-'));
  initialise(s);
  return s;
}

test('should walk a project from initialisation to a completed milestone with the calls the corpus makes', async () => {
  const s = await newProject();
  addPhase(s);
  // The phases are built on a feature branch, so pr-branch has a base to diverge from.
  s.git(['checkout', '-q', '-b', 'notes-work']);
  for (const [i, p] of PHASES.entries()) {
    planPhase(s, p);
    executePhase(s, p);
    verifyPhase(s, p, PHASES[i + 1] ?? null);
  }
  beforeShipping(s);
  completeMilestone(s);
  afterShipping(s);
});

const MANAGER = 'gsd-core/workflows/manager.md';
const AUDIT_UAT = 'gsd-core/workflows/audit-uat.md';
const MILESTONE_SUMMARY = 'gsd-core/workflows/milestone-summary.md';
const PR_BRANCH = 'gsd-core/workflows/pr-branch.md';
const CLEANUP = 'gsd-core/workflows/cleanup.md';

/** Every phase verified: the manager's table, the UAT audit, a summary of the open milestone and a review branch. */
function beforeShipping(s: Scratch): void {
  const board = s.run(pick(MANAGER, 'roadmap dashboard'));
  assert.equal(board.phases.map((p: { number: string; next: string; depends_on: string[] }) => `${p.number}:${p.next}:${p.depends_on.join('+')}`), ['1:done:', '2:done:1']);
  assert.is(board.all_complete, true);

  const audit = s.run(pick(AUDIT_UAT, 'uat audit'));
  assert.is(audit.all_clear, true, JSON.stringify(audit.items));
  assert.is(audit.files_scanned, 4, 'a UAT.md and a VERIFICATION.md per phase');

  const summary = s.run(pick(MILESTONE_SUMMARY, 'milestone summary'), { vars: { version: 'v1.0' } });
  assert.is(summary.archived, false);
  assert.equal(summary.phases.map((p: { summaries: string[] }) => p.summaries.length), [1, 1]);
  for (const p of summary.phases) for (const f of [...p.summaries, p.verification, p.uat]) assert.ok(s.exists(f), f);
  s.write(summary.output, '# Milestone v1.0: Project Summary\n\n## Overview\n\nNotes are saved and found again.\n');
  s.run(pick(MILESTONE_SUMMARY, 'commit'), { vars: { version: 'v1.0', output: summary.output } });
  s.committed(/^docs: milestone v1\.0 summary$/m);

  // pr-branch: the detect step's git call, the preview, then the branch.
  const branch = s.git(['symbolic-ref', '--short', 'HEAD']).trim();
  const name = `${branch}-pr`;
  const headBefore = s.git(['rev-parse', 'HEAD']);
  const preview = s.run(pick(PR_BRANCH, /^pr-branch \{name\} --dry-run/), { vars: { name } });
  assert.ok(preview.commits.some((c: { kind: string }) => c.kind === 'planning'), 'planning-only commits are found');
  assert.is(s.git(['branch', '--list', name]), '');
  const made = s.run(pick(PR_BRANCH, /^pr-branch \{name\}$/), { vars: { name } });
  assert.is(made.created, true);
  const files = s.git(['ls-tree', '-r', '--name-only', name]).trim().split('\n');
  // The base branch tracks .planning/ from the project's start: the review branch keeps it as it is there.
  assert.is(s.git(['diff', '--name-only', preview.base, name, '--', '.planning']), '', 'no .planning/ change to review');
  assert.is(s.git(['rev-parse', `${name}:.planning`]), s.git(['rev-parse', `${preview.merge_base}:.planning`]));
  for (const p of PHASES) assert.ok(files.includes(`src/${p.slug}.ts`), `src/${p.slug}.ts is on the review branch`);
  assert.is(s.git(['diff', '--name-only', branch, name, '--', '.', ':(exclude).planning']), '', 'every code change is there');
  assert.is(s.git(['rev-parse', 'HEAD']), headBefore);
  assert.is(s.git(['symbolic-ref', '--short', 'HEAD']).trim(), branch, 'the user stays on the working branch');
}

/** After the milestone: its summary from the archive, and cleanup of phase folders left in phases/. */
function afterShipping(s: Scratch): void {
  assert.match(s.git(['show', 'HEAD:.planning/RETROSPECTIVE.md']), /^## v1\.0 MVP \(shipped 2025-03-04\)$/m, 'the retrospective went into the milestone commit');
  const summary = s.run(pick(MILESTONE_SUMMARY, 'milestone summary'), { vars: { version: 'v1.0' } });
  assert.is(summary.archived, true);
  assert.is(summary.phases[0].directory, `.planning/milestones/v1.0-phases/${PHASES[0].padded}-${PHASES[0].slug}`);

  const none = s.run(pick(CLEANUP, 'milestone cleanup --dry-run'));
  assert.equal(none.moves, [], 'milestone complete already archived every folder');
  // A folder archived by an older install stays in phases/: cleanup moves it.
  const [p] = PHASES;
  s.git(['mv', `.planning/milestones/v1.0-phases/${p.padded}-${p.slug}`, dirOf(p)]);
  s.git(['commit', '-q', '-m', 'chore: an older archive left phase 1 in place']);
  const dry = s.run(pick(CLEANUP, 'milestone cleanup --dry-run'));
  assert.equal(dry.moves.map((m: { from: string }) => m.from), [dirOf(p)]);
  assert.ok(s.exists(dirOf(p)), 'a dry run moves nothing');
  const moved = s.run(pick(CLEANUP, /^milestone cleanup$/));
  assert.is(moved.moved, 1);
  s.run(pick(CLEANUP, 'commit'), { set: { '--files': moved.files } });
  assert.ok(s.exists(`.planning/milestones/v1.0-phases/${p.padded}-${p.slug}/${p.padded}-01-SUMMARY.md`));
  assert.is(s.git(['status', '--porcelain', '.planning']), '', 'the moves are committed');
  s.committed(/^chore: archive phase folders of shipped milestones$/m);
}

test('should pause and resume, reshape the roadmap, run a quick task, change a setting and map the code with the calls the corpus makes', async () => {
  const s = await newProject();
  addPhase(s);
  pauseAndResume(s);
  insertAndRemove(s);
  quickTask(s);
  settingsAndMap(s);
});

const DEBUG = 'gsd-core/workflows/debug.md';
const DEBUGGER = 'agents/gsd-debugger.md';
const DEBUG_TEMPLATE = 'gsd-core/templates/debug-session.md';
const CAPTURE = 'gsd-core/workflows/capture.md';
const CHECK_TODOS = 'gsd-core/workflows/check-todos.md';

/** `## Heading` and `**Field:**` names of a Markdown text, in order. */
function shapeOf(text: string): string[] {
  return text
    .replace(/<!--[\s\S]*?-->/g, '')
    .split('\n')
    .flatMap((line) => {
      const h = /^## (.+)$/.exec(line);
      if (h) return [`## ${h[1]}`];
      const f = /^- \*\*([^*]+):\*\*/.exec(line);
      return f ? [`${f[1]}`] : [];
    });
}

/** A bug found and fixed through the debug workflow: session opened, updated by the debugger, resolved, archived, found again. */
function debugFlow(s: Scratch): void {
  const title = 'Saving a note drops its body';
  const description = 'saving a note drops the body text';
  const init = s.run(pick(DEBUG, 'init debug'), { vars: { description }, drop: ['--diagnose'] });
  assert.equal([init.active_count, init.knowledge_base_entries, init.diagnose_only], [0, 0, false]);
  const known = s.run(pick(DEBUG, 'debug search'), { vars: { description } });
  assert.is(known.count, 0, 'nothing known yet');

  const symptoms = { title, expected: 'the body is saved', actual: 'the body is empty after a reload', errors: 'none', reproduction: 'create a note with a body, reload' };
  const opened = s.run(pick(DEBUG, 'debug open'), { vars: symptoms });
  const slug: string = opened.slug;
  assert.is(slug, 'saving-a-note-drops-its-body');
  const session = `.planning/debug/${slug}.md`;
  s.run(pick(DEBUG, /^debug update \{slug\} --status investigating --evidence Reported by the user/), { vars: { slug, timeline: 'since the storage change' } });

  // The debugger's loop, with the calls its prompt shows.
  s.run(pick(DEBUGGER, /^debug update \{slug\} --hypothesis/), { vars: { slug }, set: { '--hypothesis': 'save writes the title only', '--next': 'read src/notes-core.ts save()' } });
  s.run(pick(DEBUGGER, /^debug update \{slug\} --eliminated/), { vars: { slug }, set: { '--eliminated': 'the reload reads a stale cache: cache disabled, same result' } });
  s.run(pick(DEBUGGER, /^debug update \{slug\} --evidence/), { vars: { slug }, set: { '--evidence': 'save() serialises {title} only' } });
  s.run(pick(DEBUGGER, /^debug update \{slug\} --status/), { vars: { slug } });
  const status = s.run(pick(DEBUGGER, 'debug status'), { vars: { slug } });
  assert.equal([status.status, status.hypothesis, status.evidence_count, status.eliminated_count], ['fixing', 'save writes the title only', 2, 1]);
  const listed = s.run(pick(DEBUG, 'debug list'));
  assert.equal(listed.sessions.map((x: { slug: string }) => x.slug), [slug]);

  // The fix lands, then the session closes.
  s.write('src/notes-core.ts', 'export const save = (n: { title: string; body: string }) => JSON.stringify(n);\n');
  s.run(pick(DEBUG, /^commit fix\(debug\)/), { vars: { title, changed_files: 'src/notes-core.ts' } });
  s.committed(/^fix\(debug\): Saving a note drops its body$/m);
  const resolved = s.run(pick(DEBUG, 'debug resolve'), {
    vars: { slug, root_cause: 'save() serialised the title only', fix: 'serialise the whole note', verification: 'reproduction passes', changed_files: 'src/notes-core.ts' },
  });
  assert.is(resolved.path, `.planning/debug/resolved/${slug}.md`);
  s.run(pick(DEBUG, /^state update Last activity/), { positional: ['Last activity', `${TODAY} — Fixed: ${title} (debug ${slug})`] });
  s.run(pick(DEBUG, /^commit docs\(debug\)/), { vars: { slug } });
  assert.not.ok(s.exists(session), 'the active session is gone');
  assert.is(s.git(['status', '--porcelain', '--', '.planning']).trim(), '', 'the archive, the removal and the knowledge base are all committed');

  const archived = s.read(resolved.path);
  assert.match(archived, /^status: resolved$/m);
  assert.match(archived, /\*\*Root cause:\*\* save\(\) serialised the title only/);
  assert.equal(shapeOf(archived), shapeOf(fs.readFileSync(path.join(SOURCE, DEBUG_TEMPLATE), 'utf8')), 'the session has the shape the template documents');
  assert.match(s.read('.planning/debug/knowledge-base.md'), /^## saving-a-note-drops-its-body: Saving a note drops its body$/m);

  // The next report of the same symptom finds it first.
  const again = s.run(pick(DEBUG, 'init debug'), { vars: { description: 'note body empty after reload' }, drop: ['--diagnose'] });
  assert.equal([again.active_count, again.resolved_count, again.knowledge_base_entries], [0, 1, 1]);
  // Asked for a diagnosis only, as the workflow's call gives it: its mode comes from diagnose_only.
  const diagnose = s.run(pick(DEBUG, 'init debug'), { vars: { description: 'note body empty after reload' } });
  assert.is(diagnose.diagnose_only, true);
  const found = s.run(pick(DEBUG, 'debug search'), { vars: { description: 'note body empty after reload' } });
  assert.is(found.matches[0]?.slug, slug);
}

/** Ideas captured without losing focus, listed by check-todos and completed. */
function captureFlow(s: Scratch): void {
  const init = s.run(pick(CAPTURE, 'init capture'));
  assert.equal([init.todo_count, init.seed_count, init.thread_count], [0, 0, 0]);
  const todo = s.run(pick(CAPTURE, 'todo add'), { vars: { title: 'Export notes as Markdown', area: 'notes', body: 'Asked for while planning search; see src/notes-core.ts.' } });
  s.run(pick(CAPTURE, 'commit'), { vars: { message: 'capture todo - Export notes as Markdown', file: todo.path } });
  const seed = s.run(pick(CAPTURE, 'seed add'), { vars: { title: 'Shared notebooks', trigger: 'when accounts exist', body: 'Teams asked for it.' } });
  assert.is(seed.id, 'SEED-001');
  const thread = s.run(pick(CAPTURE, 'thread open'), { vars: { title: 'Storage format', body: 'Markdown files or SQLite?' } });
  s.run(pick(CAPTURE, 'thread note'), { vars: { slug: 'storage-format', body: 'Markdown: users can read them without the app.' } });
  const listing = s.run(pick(CAPTURE, 'init capture'));
  assert.equal([listing.todo_count, listing.seed_count, listing.thread_count], [1, 1, 1]);
  assert.equal(listing.open_threads.map((t: { slug: string }) => t.slug), ['storage-format']);
  s.run(pick(CAPTURE, 'thread close'), { vars: { slug: 'storage-format', outcome: 'Markdown files' } });
  assert.ok(s.exists('.planning/threads/resolved/storage-format.md'), thread.path);

  // check-todos: list, pick, close.
  const pending = s.run(pick(CHECK_TODOS, 'init todos'), { args: ['notes'] });
  assert.equal(pending.todos.map((t: { title: string }) => t.title), ['Export notes as Markdown']);
  const id: string = pending.todos[0].id;
  s.run(pick(CHECK_TODOS, 'todo complete'), { vars: { id } });
  s.run(pick(CHECK_TODOS, 'commit'), { vars: { verb: 'complete', title: 'Export notes as Markdown' } });
  assert.ok(s.exists(`.planning/todos/completed/${id}.md`));
  assert.not.ok(s.exists(`.planning/todos/pending/${id}.md`));
  assert.equal(s.query(['todo', 'list']).count, 0);
  assert.is(s.git(['status', '--porcelain', '--', '.planning/todos']).trim(), '', 'the move out of pending/ is committed');
  s.committed(/^docs: complete todo - Export notes as Markdown$/m);
}

const SPIKE = 'gsd-core/workflows/spike.md';
const SKETCH = 'gsd-core/workflows/sketch.md';
const WRAP_UP = 'gsd-core/references/experiment-wrap-up.md';

/** A spike and a sketch from start to wrap-up; the planner's FINDINGS.md gets both verdicts. */
function ideationFlow(s: Scratch): void {
  assert.is(s.run(pick(SPIKE, 'experiment list')).count, 0);
  const spike = s.run(pick(SPIKE, 'experiment add'), { vars: { title: 'Full-text search in SQLite', question: 'Does FTS5 answer 10k notes under 50 ms?', plan: 'Pass: p95 under 50 ms.' } });
  assert.is(spike.dir, '.planning/spikes/001-full-text-search-in-sqlite');
  const sketch = s.run(pick(SKETCH, 'experiment add'), { vars: { title: 'Note editor', question: 'Split view or toggle?', constraints: 'Laptop screens.' } });
  assert.is(sketch.dir, '.planning/sketches/001-note-editor');
  s.write(`${spike.dir}/FINDINGS.md`, '# Findings\n\nYes: p95 12 ms with FTS5.\n');
  s.write(`${sketch.dir}/FINDINGS.md`, '# Findings\n\nToggle (variant-b.html).\n');
  for (const [kind, e, verdict] of [['spike', spike, 'Yes: FTS5, p95 12 ms.'], ['sketch', sketch, 'A toggle, not a split view.']] as const) {
    s.run(pick(WRAP_UP, 'experiment wrap'), { vars: { kind, id: e.id, verdict } });
    s.run(pick(WRAP_UP, 'commit'), { vars: { kind, id: e.id, dir: e.dir } });
    s.committed(new RegExp(`^docs: wrap up ${kind} 001$`, 'm'));
  }
  assert.match(s.read('.planning/FINDINGS.md'), /## spike 001: Full-text search in SQLite\n\nYes: FTS5, p95 12 ms\.[^]*## sketch 001: Note editor/);
  assert.equal(s.run(pick(SPIKE, 'experiment list')).experiments.map((e: { status: string }) => e.status), ['wrapped']);
  assert.is(s.git(['status', '--porcelain', '--', '.planning/FINDINGS.md', '.planning/spikes', '.planning/sketches']).trim(), '', 'the wrap-ups are committed');
  // plan-phase hands the index to the planner (the single spawn and the chunked one).
  for (const rel of [PLAN_PHASE, 'gsd-core/workflows/plan-phase/steps/chunked-planning.md']) {
    assert.match(fs.readFileSync(path.join(SOURCE, rel), 'utf8'), /<files_to_read>[^<]*\.planning\/FINDINGS\.md \(if it exists/, rel);
  }
}

test('should debug a bug from report to knowledge base and capture, list and complete a todo and spike and sketch with the calls the corpus makes', async () => {
  const s = await newProject();
  debugFlow(s);
  captureFlow(s);
  ideationFlow(s);
  backlogFlow(s);
});

const REVIEW_BACKLOG = 'gsd-core/workflows/review-backlog.md';

/** capture --note and --backlog, then review-backlog promotes one item to a phase and drops the other. */
function backlogFlow(s: Scratch): void {
  const note = s.run(pick(CAPTURE, 'note add'), { vars: { title: 'Staging resets nightly', body: 'Seen while debugging; not a bug.' } });
  s.run(pick(CAPTURE, 'commit'), { vars: { message: 'write note - Staging resets nightly', file: note.path } });
  const items = ['Sync notes across devices', 'Print notes'].map((title) => {
    const item = s.run(pick(CAPTURE, 'backlog add'), { vars: { title, body: 'Asked for by users.' } });
    s.run(pick(CAPTURE, 'commit'), { vars: { message: `backlog ${item.id} - ${title}`, file: item.path } });
    return item;
  });
  assert.equal(items.map((i) => i.id), ['BL-001', 'BL-002']);
  const listing = s.run(pick(CAPTURE, 'init capture'));
  assert.is(listing.note_count, 1);
  assert.equal(listing.backlog.map((b: { id: string }) => b.id), ['BL-001', 'BL-002']);

  const open = s.run(pick(REVIEW_BACKLOG, 'backlog list'));
  assert.is(open.count, 2);
  const before = s.query(['roadmap', 'analyze']).phase_count;
  const promoted = s.run(pick(REVIEW_BACKLOG, 'backlog promote'), { vars: { id: 'BL-001' } });
  s.run(pick(REVIEW_BACKLOG, 'phase edit'), { vars: { phase_number: promoted.phase_number, goal: 'Notes written on one device appear on the others' } });
  s.run(pick(REVIEW_BACKLOG, 'backlog drop'), { vars: { id: 'BL-002', reason: 'printing from the browser is enough' } });
  s.run(pick(REVIEW_BACKLOG, 'commit'), { vars: { backlog_dir: open.dir, roadmap: promoted.roadmap, state: promoted.state, promoted: 1, dropped: 1 } });
  const phase = s.query(['roadmap', 'get-phase', promoted.phase_number]);
  assert.is(phase.phase_name, 'Sync notes across devices');
  assert.is(phase.goal, 'Notes written on one device appear on the others');
  assert.is(s.query(['roadmap', 'analyze']).phase_count, before + 1);
  assert.is(s.query(['backlog', 'list']).count, 0);
  assert.ok(s.exists('.planning/backlog/dropped/BL-002-print-notes.md'));
  assert.is(s.git(['status', '--porcelain', '--', '.planning/backlog', '.planning/notes', '.planning/ROADMAP.md', '.planning/STATE.md', '.planning/phases']).trim(), '', 'the promotion and the drop are committed');
  s.committed(/^docs: review backlog - promoted 1, dropped 1$/m);
}

/**
 * Acceptance testing finds an issue; verify-work diagnoses it, plans the fix in
 * the same phase with the gap's id, execute-phase --gaps-only runs just that
 * plan, and the re-run of verify-work re-tests the item and closes the phase.
 */
function gapClosure(s: Scratch, p: Phase): void {
  const dir = dirOf(p);
  const uatFile = `${dir}/${p.padded}-UAT.md`;
  const verification = s.run(pick(VERIFIER, 'template fill verification'), { set: { '--phase': p.number, '--fields': '{"status": "passed", "score": "3/3 must-haves verified"}' } });
  s.run(pick(VERIFIER, 'commit'), { positional: [`docs(${p.padded}): verify phase`], set: { '--files': [verification.path] } });

  // First session: test 1 passes, test 2 is an issue.
  const init = s.run(pick(VERIFY_WORK, 'init verify-work'), { vars: { phase: p.number } });
  assert.is(init.has_uat, false);
  assert.ok(init.debugger_model !== undefined && init.plan_check === true, 'init gives the debugger model and the plan-check setting');
  const tests = { sources: [`${p.padded}-01-SUMMARY.md`], total: 2, tests: [{ number: 1, name: 'Create a note', expected: 'It is listed' }, { number: 2, name: 'Reload the page', expected: 'The note is still listed after a reload' }] };
  s.run(pick(VERIFY_WORK, 'template fill uat'), { vars: { phase_number: p.number }, set: { '--fields': JSON.stringify(tests) } });
  s.run(pick(VERIFY_WORK, /^commit .*start acceptance/), { vars: { padded_phase: p.padded, uat_file: uatFile } });
  const first = answer(s, p, 1, 'pass');
  assert.equal([first.gap_id, first.next_test?.number], [null, 2]);
  const second = answer(s, p, 2, 'issue', 'the note is gone after a reload');
  const gapId = `G-${p.padded}-2`;
  assert.is(second.gap_id, gapId);
  assert.equal(second.counts, { total: 2, passed: 1, issues: 1, pending: 0, skipped: 0, blocked: 0 });
  assert.is(second.next_test, null);
  assert.match(s.read(uatFile), /^reported: "the note is gone after a reload"$/m);
  assert.match(s.read(uatFile), new RegExp(`^## Gaps\n\n- id: ${gapId}\n  test: 2\n  truth: The note is still listed after a reload\n`, 'm'));
  s.run(pick(VERIFY_WORK, /^frontmatter set \{uat_file\} --field status/), { vars: { uat_file: uatFile } });
  s.run(pick(VERIFY_WORK, /^frontmatter set \{uat_file\} --field updated/), { vars: { uat_file: uatFile }, set: { '--value': FIXED_NOW } });
  s.run(pick(VERIFY_WORK, /^commit .*acceptance test results/), { vars: { padded_phase: p.padded, uat_file: uatFile } });

  // Diagnosis: one debugger per open gap, each in diagnose mode; the cause goes into the gap.
  const listed = s.run(pick(VERIFY_WORK, 'uat gaps'), { vars: { phase_number: p.number } });
  assert.equal([listed.open, listed.undiagnosed, listed.unplanned, listed.next_plan], [[gapId], [gapId], [gapId], '02']);
  const opened = s.run(pick(DEBUG, 'debug open'), { vars: { title: `Gap ${gapId}: note lost on reload`, expected: 'The note is still listed after a reload', actual: 'the note is gone after a reload', errors: 'none', reproduction: `Test 2 of ${uatFile}` } });
  const session = `.planning/debug/${opened.slug}.md`;
  s.run(pick(DEBUGGER, /^debug update \{slug\} --evidence/), { vars: { slug: opened.slug }, set: { '--evidence': 'save() keeps notes in memory only' } });
  const diagnosed = s.run(pick(VERIFY_WORK, 'uat diagnose'), {
    vars: { phase_number: p.number, gap_id: gapId, root_cause: 'notes are kept in memory, never written to storage', files: `src/${p.slug}.ts`, suggested_fix: 'persist on save', slug: opened.slug },
  });
  assert.equal([diagnosed.status, diagnosed.all_diagnosed], ['diagnosed', true]);
  s.run(pick(VERIFY_WORK, /^commit .*diagnose acceptance gaps/), { vars: { padded_phase: p.padded, uat_file: uatFile } });
  assert.is(s.query(['frontmatter', 'get', uatFile, '--field', 'status']).status, 'diagnosed');
  assert.match(s.read(uatFile), new RegExp(`^  debug_session: ${session.replace(/[.]/g, '\\.')}$`, 'm'));

  // Gap plan in the same phase, carrying the gap id; the planner's structure check and the gaps listing agree.
  const fill = pick(PLANNER, 'template fill plan');
  const gapPlan = s.run({ ...fill, words: [...fill.words, '--fields', JSON.stringify({ gap_ids: [gapId] })] }, { set: { '--phase': p.number, '--plan': listed.next_plan, '--name': 'Persist notes', '--type': 'execute', '--wave': '1' } });
  const planFile: string = gapPlan.path;
  assert.is(planFile, `${dir}/${p.padded}-02-PLAN.md`);
  assert.match(s.read(planFile), new RegExp(`^gap_closure: true\ngap_ids: \\[${gapId}\\]$`, 'm'));
  s.edit(planFile, /^requirements: \[\]$/m, `requirements: [${p.reqs.join(', ')}]`);
  const structure = s.run(pick(PLANNER, 'verify plan-structure'), { positional: [planFile] });
  assert.is(structure.valid, true, JSON.stringify(structure.errors));
  const after = s.run(pick(VERIFY_WORK, 'uat gaps'), { vars: { phase_number: p.number } });
  assert.equal([after.unplanned, after.gaps[0].plans, after.gaps[0].executed], [[], [`${p.padded}-02`], false]);
  s.run(pick(VERIFY_WORK, /^commit .*plan acceptance gap closure/), { vars: { padded_phase: p.padded, phase_dir: dir } });
  assert.is(s.git(['status', '--porcelain', '.planning']), '');

  // execute-phase --gaps-only: only the gap plan is selected and run.
  const exec = s.run(pick(EXECUTE_PHASE, 'init execute-phase'), { args: [p.number, '--gaps-only'] });
  assert.equal([exec.gaps_only, exec.plan_count, exec.incomplete_count, exec.incomplete_plans], [true, 1, 1, [`${p.padded}-02`]]);
  assert.is(exec.node_repair_budget, 2, 'the executor gets the configured repair budget');
  const index = s.run(pick(EXECUTE_PHASE, /^phase plan-index .*--gaps-only/), { vars: { phase_number: p.number } });
  assert.equal(index.waves, { '1': [`${p.padded}-02`] });
  assert.equal(s.query(['phase', 'plan-index', p.number]).waves, { '1': [`${p.padded}-01`, `${p.padded}-02`] }, 'without the flag both plans are listed');
  s.write(`src/${p.slug}.ts`, 'export const save = (n: string) => localStorage.setItem("notes", n);\n');
  s.run(pick(EXECUTOR, 'commit'), { positional: [`fix(${p.padded}-02): persist notes`], set: { '--files': [`src/${p.slug}.ts`] } });
  const summaryCall = pick(EXECUTOR, /^template fill summary/);
  const summary = s.run(summaryCall, { set: { '--phase': p.number, '--plan': '02', '--name': 'Persist notes', ...(summaryCall.words.includes('--fields') ? { '--fields': '{"duration": "5min"}' } : {}) } });
  s.edit(summary.path, /^\*\*\[[^\n]*\]\*\*$/m, '**Notes are written to storage on save.**');
  s.run(pick(EXECUTOR, /^commit docs\(/), { positional: [`docs(${p.padded}-02): complete plan`], set: { '--files': [summary.path] } });
  assert.is(s.run(pick(EXECUTE_PHASE, 'summary-extract'), { vars: { phase_dir: dir, plan_id: `${p.padded}-02` } }).one_liner, 'Notes are written to storage on save.');
  const vars = { phase_number: p.number, padded_phase: p.padded, plan_id: `${p.padded}-02`, duration: '5min', tasks: 1, files: 1, wave: 1, phase_dir: dir };
  s.run(pick(EXECUTE_PHASE, 'state record-metric'), { vars });
  s.run(pick(EXECUTE_PHASE, 'state advance-plan'), { vars });
  s.run(pick(EXECUTE_PHASE, 'roadmap update-plan-progress'), { vars });
  s.run(pick(EXECUTE_PHASE, /^commit .*wave/), { vars });
  assert.match(s.read('.planning/ROADMAP.md'), new RegExp(`\\| ${p.number}\\. ${p.name} \\| 2/2 \\|`));
  // The verifier checks the phase again and replaces its report (--force, as its prompt says).
  const vfill = pick(VERIFIER, 'template fill verification');
  s.run({ ...vfill, words: [...vfill.words, '--force'] }, { set: { '--phase': p.number, '--fields': `{"status": "passed", "score": "4/4 must-haves verified, ${gapId} closed"}` } });
  s.run(pick(VERIFIER, 'commit'), { positional: [`docs(${p.padded}): verify phase again`], set: { '--files': [verification.path] } });
  assert.is(s.query(['uat', 'gaps', p.number]).gaps[0].executed, true);

  // Re-verification: the fixed gap is resolved, its test re-run and passed, and the phase closes.
  const again = s.run(pick(VERIFY_WORK, 'init verify-work'), { vars: { phase: p.number } });
  assert.equal([again.has_uat, again.uat_path], [true, uatFile]);
  const reconciled = s.run(pick(VERIFY_WORK, 'uat reconcile'), { vars: { phase_number: p.number } });
  assert.equal([reconciled.resolved, reconciled.open, reconciled.retest], [[gapId], [], [2]]);
  assert.is(s.run(pick(VERIFY_WORK, /^frontmatter get \{uat_path\} --field status/), { vars: { uat_path: uatFile } }).status, 'testing');
  assert.match(s.read(uatFile), /### 2\. Reload the page\nexpected: The note is still listed after a reload\nresult: pending\n/);
  assert.match(s.read(uatFile), /^  status: resolved$/m);
  assert.match(s.read(uatFile), new RegExp(`^  plans:\n    - ${p.padded}-02\n  resolved_at: "${FIXED_NOW.replace(/[.]/g, '\\.')}"$`, 'm'));
  const retest = answer(s, p, 2, 'pass');
  assert.equal([retest.counts.passed, retest.counts.issues, retest.next_test], [2, 0, null]);
  const closed = closeAcceptance(s, p, uatFile, dir);
  assert.is(closed.completed_phase, p.number);
  assert.equal(closed.project_validated, [...p.reqs]);
  assert.match(s.read(`.planning/ROADMAP.md`), new RegExp(`\\| ${p.number}\\. ${p.name} \\| 2/2 \\| Complete \\| ${TODAY} \\|`));
  // The per-phase transition: PROJECT.md's validated requirements and key decisions.
  const project = s.read('.planning/PROJECT.md');
  assert.match(project, /### Validated\n\n- ✓ \*\*NOTE-01\*\*: User can create a note with a title and body — Phase 1\n- ✓ \*\*NOTE-02\*\*: [^\n]* — Phase 1\n/);
  assert.match(project, new RegExp(`\\| Notes persist in local storage \\| survives a reload without a server \\| ${TODAY} \\|`));
  assert.match(project, new RegExp(`^\\*Last updated: ${TODAY} after phase 1\\*$`, 'm'));
  assert.is(s.git(['status', '--porcelain', '.planning']), '', 'the transition is committed with the phase');
}

test('should close an acceptance gap in place: diagnosis, a gap plan with its id, execute-phase --gaps-only and a re-test, with the calls the corpus makes', async () => {
  const s = await newProject();
  const p = PHASES[0];
  planPhase(s, p);
  s.query(['state', 'add-decision', '--phase', p.number, '--summary', 'Notes persist in local storage', '--rationale', 'survives a reload without a server']);
  executePhase(s, p);
  gapClosure(s, p);
});

const UNDO = 'gsd-core/workflows/undo.md';

/** A plan's code reverted with undo's calls: one revert commit, the summary gone, the roadmap and requirements reopened. */
function undoPlan(s: Scratch, p: Phase): void {
  const planId = `${p.padded}-01`;
  const listed = s.run(pick(UNDO, 'commits --plan'), { vars: { plan_id: planId } });
  assert.is(listed.working_tree_clean, true, s.git(['status', '--porcelain']));
  const code = listed.commits.filter((c: { files: string[] }) => c.files.some((f) => !f.startsWith('.planning/')));
  assert.equal(code.map((c: { subject: string }) => c.subject), [`feat(${planId}): ${p.name.toLowerCase()}`]);
  const dir = s.run(pick(UNDO, 'phase find'), { vars: { phase: p.number } }).directory as string;
  const reqs = s.run(pick(UNDO, 'summary-extract'), { vars: { phase_dir: dir, plan_id: planId } });
  const ids: string[] = reqs.requirements_completed ?? [];
  assert.equal(ids, [...p.reqs]);

  // The revert itself is git's, as the workflow writes it.
  s.git(['revert', '--no-commit', ...code.map((c: { hash: string }) => c.hash)]);
  s.git(['commit', '-q', '-m', `revert(${planId}): undo ${p.name.toLowerCase()} — wrong storage format`]);
  const revertHash = s.git(['rev-parse', '--short', 'HEAD']).trim();
  assert.not.ok(s.exists(`src/${p.slug}.ts`), 'the code is gone');

  fs.rmSync(path.join(s.root, dir, `${planId}-SUMMARY.md`));
  for (const doc of ['VERIFICATION', 'UAT']) fs.rmSync(path.join(s.root, dir, `${p.padded}-${doc}.md`), { force: true });
  s.run(pick(UNDO, 'requirements mark-pending'), { positional: ids });
  const progress = s.run(pick(UNDO, 'roadmap update-plan-progress'), { vars: { phase: p.number } });
  assert.equal([progress.summary_count, progress.complete], [0, false]);
  s.run(pick(UNDO, 'state update-progress'));
  s.run(pick(UNDO, /^state update Last activity/), { positional: ['Last activity', `${TODAY} — Reverted ${planId}: wrong storage format`] });
  s.run(pick(UNDO, 'state add-decision'), { vars: { phase: p.number, scope: planId, revert_hash: revertHash, reason: 'wrong storage format' } });
  s.run(pick(UNDO, 'commit'), { vars: { phase: p.padded, scope: planId, phase_dir: dir } });

  assert.match(s.read('.planning/ROADMAP.md'), new RegExp(`^\\| ${p.number}\\. ${p.name} \\| 0/1 \\| Planned \\| - \\|$`, 'm'), 'the progress row counts the plan as not run');
  for (const id of ids) assert.match(s.read('.planning/REQUIREMENTS.md'), new RegExp(`^- \\[ \\] \\*\\*${id}\\*\\*`, 'm'));
  assert.is(s.git(['status', '--porcelain']).trim(), '', 'the realignment is committed, deletions included');
  const after = s.query(['commits', '--plan', planId]);
  assert.is(after.commits[0].subject, `revert(${planId}): undo ${p.name.toLowerCase()} — wrong storage format`, 'the revert carries the plan scope');
  const init = s.query(['init', 'execute-phase', p.number]);
  assert.equal(init.incomplete_plans.length, 1, 'the plan can be executed again');
}

test('should undo an executed plan and leave it ready to run again, with the calls the corpus makes', async () => {
  const s = await newProject();
  addPhase(s);
  planPhase(s, PHASES[0]);
  executePhase(s, PHASES[0]);
  undoPlan(s, PHASES[0]);
});

const ONBOARD = 'gsd-core/workflows/onboard.md';
const INGEST = 'gsd-core/workflows/ingest-docs.md';
const IMPORT = 'gsd-core/workflows/import.md';
const DOCS_UPDATE = 'gsd-core/workflows/docs-update.md';

test('should onboard existing code, ingest its ADR as a phase, import an outside plan, count a repair and find the doc it made stale, with the calls the corpus makes', async () => {
  const s = new Scratch(await buildBundle(), tmpDir('gsd-lifecycle-cache-'));
  s.write('src/store.ts', 'export const save = (k: string, v: string) => localStorage.setItem(k, v);\n');
  s.write('docs/adr/0001-local-storage.md', '# ADR 1: Keep notes in local storage\n\nStatus: accepted\n');
  s.write('docs/usage.md', '# Usage\n\nNotes are saved by `src/store.ts`.\n');
  s.git(['add', '.']);
  s.git(['commit', '-q', '-m', 'chore: existing code']);

  // Onboard: brownfield facts, then the documents it already has.
  const facts = s.run(pick(ONBOARD, 'init map-codebase'));
  assert.equal([facts.is_brownfield, facts.codebase_map_exists, facts.planning_exists], [true, false, false]);
  fs.mkdirSync(path.join(s.root, '.planning', 'codebase'), { recursive: true });
  const found = s.run(pick(ONBOARD, 'docs list'));
  assert.is(found.planning_count, 1);
  assert.equal(found.docs.map((d: { kind: string; path: string }) => `${d.kind} ${d.path}`), ['readme README.md', 'adr docs/adr/0001-local-storage.md', 'doc docs/usage.md']);
  initialise(s);

  // Ingest in merge mode: the ADR's new work becomes a phase.
  const ingest = s.run(pick(INGEST, 'init ingest-docs'));
  assert.equal([ingest.project_exists, typeof ingest.classifier_model, typeof ingest.roadmapper_model], [true, 'string', 'string']);
  assert.equal(s.run(pick(INGEST, 'docs list')).docs.filter((d: { planning: boolean }) => d.planning).map((d: { path: string }) => d.path), ['docs/adr/0001-local-storage.md']);
  s.write('.planning/intel/docs-adr-0001-local-storage.md', '---\nsource: docs/adr/0001-local-storage.md\nkind: adr\nstatus: accepted\n---\n## Decisions\n- Notes live in local storage (docs/adr/0001-local-storage.md:1)\n');
  const added = s.run(pick(INGEST, 'phase add'), { vars: { phase_name: 'Storage adapter' } });
  assert.is(added.phase_number, '2');
  s.run(pick(INGEST, 'commit'), { vars: { n: 1 } });
  s.committed(/^docs: ingest 1 planning documents$/m);

  // Import an outside plan into that phase.
  s.write('plans/outside.md', '# Storage adapter\n\n1. Wrap local storage in an adapter\n');
  const target = s.run(pick(IMPORT, 'init plan-phase'), { vars: { phase: '2' } });
  assert.equal([target.phase_found, target.has_plans, typeof target.planner_model], [true, false, 'string']);
  const filled = s.run(pick(PLANNER, 'template fill plan'), { set: { '--phase': '2', '--plan': '01', '--name': 'Storage adapter', '--type': 'execute', '--wave': '1' } });
  s.edit(filled.path, /^requirements: \[\]$/m, 'requirements: [FIND-01]');
  assert.is(s.run(pick(IMPORT, 'verify plan-structure'), { vars: { plan_path: filled.path } }).valid, true);
  s.run(pick(IMPORT, 'verify references'), { vars: { plan_path: filled.path } });
  s.run(pick(IMPORT, 'commit'), { vars: { padded_phase: '02', file: 'plans/outside.md', phase_dir: target.phase_dir } });
  s.committed(/^docs\(02\): import plans from plans\/outside\.md$/m);

  // The executor's repairs are counted by the runtime, from the main checkout.
  const repair = pick(EXECUTOR, 'repair attempt');
  const first = s.run(repair, { vars: { root: s.root, phase: '2', plan: '01', task_number: 1, kind: 'retry' }, set: { '--note': 'use the real storage key' } });
  assert.equal([first.attempt, first.budget, first.escalate], [1, 2, false]);
  const spent = s.run(pick(EXECUTE_PHASE, 'repair status'), { vars: { phase_number: '2', plan_id: '02-01' } });
  assert.equal(spent.tasks.map((t: { key: string; used: number }) => [t.key, t.used]), [['02-01/1', 1]]);

  // The phase changes the code; docs-update finds the document that names it.
  s.write('src/store.ts', 'export const save = (k: string, v: string) => window.localStorage.setItem(`notes:${k}`, v);\n');
  s.git(['add', 'src/store.ts']);
  s.git(['commit', '-q', '-m', 'feat(02-01): storage adapter']);
  const docs = s.run(pick(DOCS_UPDATE, 'init docs-update'));
  assert.equal([typeof docs.classifier_model, typeof docs.writer_model, typeof docs.verifier_model], ['string', 'string', 'string']);
  const phaseCommits = s.run(pick(DOCS_UPDATE, 'commits --phase'), { vars: { phase: '2' } });
  const ref = `${phaseCommits.commits[phaseCommits.commits.length - 1].hash}^`;
  const stale = s.run(pick(DOCS_UPDATE, 'docs stale'), { vars: { ref } });
  assert.equal(stale.stale.map((d: { path: string }) => d.path), ['docs/usage.md']);
  assert.ok(stale.changed.includes('src/store.ts'));
  s.edit('docs/usage.md', 'saved by `src/store.ts`.', 'saved by `src/store.ts` under keys starting with `notes:`.');
  s.run(pick(DOCS_UPDATE, 'commit'), { set: { '--files': ['docs/usage.md'] } });
  s.committed(/^docs: update documentation to match the code$/m);
});

const SETTINGS_INTEGRATIONS = 'gsd-core/workflows/settings-integrations.md';
const RESEARCH_PROVIDERS = 'gsd-core/references/research-providers.md';
const EXTRACT_LEARNINGS = 'gsd-core/workflows/extract-learnings.md';
const PROFILE_USER = 'gsd-core/workflows/profile-user.md';
const RESEARCHERS = ['agents/gsd-phase-researcher.md', 'agents/gsd-project-researcher.md', 'agents/gsd-ui-researcher.md', 'agents/gsd-advisor-researcher.md'];

/** /gsd-settings-integrations records the providers; a researcher follows the providers reference: order, cache miss, put, hit. */
function researchFlow(s: Scratch): void {
  const all = s.run(pick(SETTINGS_INTEGRATIONS, 'research-cache providers'));
  assert.ok(all.providers.some((p: { id: string; configured: boolean }) => p.id === 'exa' && !p.configured), 'every provider is offered');
  s.run(pick(SETTINGS_INTEGRATIONS, 'config-set integrations.research_providers'));
  s.run(pick(SETTINGS_INTEGRATIONS, 'research-cache prune'));
  s.run(pick(SETTINGS_INTEGRATIONS, 'commit'));
  s.committed(/^docs: research providers$/m);
  assert.equal(JSON.parse(s.read('.planning/config.json')).integrations.research_providers, ['context7', 'exa', 'web-search', 'web-fetch']);

  const order = s.run(pick(RESEARCH_PROVIDERS, 'research-cache providers'));
  assert.equal(order.providers.map((p: { id: string }) => p.id), ['context7', 'exa', 'web-search', 'web-fetch']);
  const get = pick(RESEARCH_PROVIDERS, 'research-cache get');
  assert.equal([s.run(get).hit, s.run(get).reason], [false, 'miss']);
  const extract = 'React 19: an effect returns its cleanup function; it runs before the next effect and on unmount (react.dev, useEffect).';
  const put = s.run(pick(RESEARCH_PROVIDERS, 'research-cache put'), { set: { '--body': extract } });
  assert.match(put.file, /^\.planning\/research\/\.cache\/[0-9a-f]{64}\.json$/);
  const hit = s.run(get);
  assert.equal([hit.hit, hit.body], [true, extract]);
  for (const rel of RESEARCHERS) assert.match(fs.readFileSync(path.join(SOURCE, rel), 'utf8'), /~\/\.claude\/gsd-core\/references\/research-providers\.md/, rel);
}

/** A built phase's lessons: template, bullets, learnings record into .planning/LEARNINGS.md, commit; the planner reads it. */
function learningsFlow(s: Scratch): void {
  const p = PHASES[0];
  s.write(`${dirOf(p)}/01-01-PLAN.md`, '---\nphase: 01-notes-core\nplan: 01\nwave: 1\n---\n\n# Plan 01: notes store\n');
  s.write(`${dirOf(p)}/01-01-SUMMARY.md`, '---\nphase: 01-notes-core\nplan: 01\n---\n\n# Summary\n\nSQLite WAL mode was needed for concurrent saves.\n');
  s.git(['add', '.planning']);
  s.git(['commit', '-q', '-m', 'docs(01-01): plan and summary']);
  const progress = s.run(pick(EXTRACT_LEARNINGS, 'init progress'));
  const built = progress.phases.filter((x: { summary_count: number }) => x.summary_count > 0).at(-1);
  assert.is(built.number, p.number);
  const op = s.run(pick(EXTRACT_LEARNINGS, 'init phase-op'), { vars: { phase: built.number } });
  assert.equal([op.phase_found, op.phase_dir, op.padded_phase], [true, dirOf(p), p.padded]);
  s.run(pick(EXTRACT_LEARNINGS, 'template fill learnings'), { vars: { phase: p.number } });
  const file = `${op.phase_dir}/${op.padded_phase}-LEARNINGS.md`;
  s.edit(file, /\[What was not known before[^\]]*\]/, '- Concurrent saves need SQLite in WAL mode; without it the second writer fails with SQLITE_BUSY (01-01-SUMMARY.md)');
  s.edit(file, /\[An approach that worked[^\]]*\]/, '- One repository module owns every SQL statement (01-01-PLAN.md)');
  const recorded = s.run(pick(EXTRACT_LEARNINGS, 'learnings record'), { vars: { phase: p.number } });
  assert.equal(recorded.counts, { decisions: 0, lessons: 1, patterns: 1, surprises: 0 });
  s.run(pick(EXTRACT_LEARNINGS, 'commit'), { vars: { padded_phase: op.padded_phase, phase_dir: op.phase_dir } });
  s.committed(/^docs\(01\): learnings$/m);
  assert.match(s.read('.planning/LEARNINGS.md'), /^## Phase 01: Notes core\n\n### Lessons\n\n- Concurrent saves need SQLite in WAL mode/m);
  assert.is(s.git(['status', '--porcelain', '--', '.planning']).trim(), '', 'both files committed');
  for (const rel of [PLAN_PHASE, 'gsd-core/workflows/plan-phase/steps/chunked-planning.md']) {
    assert.match(fs.readFileSync(path.join(SOURCE, rel), 'utf8'), /<files_to_read>[^<]*\.planning\/LEARNINGS\.md \(if it exists/, rel);
  }
  assert.match(fs.readFileSync(path.join(SOURCE, PLANNER), 'utf8'), /`\.planning\/LEARNINGS\.md`, when there is one/);
}

/** /gsd-profile-user: refused before consent, written after, ignored by git, read through profile show, then forgotten. */
function profileFlow(s: Scratch): void {
  assert.equal(s.run(pick(PROFILE_USER, 'profile show')).enabled, false);
  const write = pick(PROFILE_USER, 'profile write');
  const answers = JSON.stringify({ experience: 'some', depth: 'standard', tone: 'direct', decisions: 'ask', format: 'bullets' });
  assert.throws(() => s.run(write, { set: { '--answers': answers } }), /the user profile is off/);
  s.run(pick(PROFILE_USER, 'config-set workflow.user_profile true'));
  s.run(write, { set: { '--answers': answers } });
  s.run(pick(PROFILE_USER, /^commit .*user profile on/));
  s.committed(/^docs: user profile on$/m);
  assert.is(s.git(['check-ignore', '.planning/USER-PROFILE.md']).trim(), '.planning/USER-PROFILE.md');
  assert.not.match(s.git(['ls-tree', '-r', '--name-only', 'HEAD']), /USER-PROFILE/, 'the profile is never committed');
  const universal = fs.readFileSync(path.join(SOURCE, 'gsd-core/references/universal-anti-patterns.md'), 'utf8');
  assert.match(universal, /`node "\$HOME\/\.claude\/gsd-core\/bin\/gsd-tools\.cjs" profile show --raw`/);
  assert.is(s.query(['profile', 'show', '--raw']), '.planning/USER-PROFILE.md', 'what agents are told to read');
  s.run(pick(PROFILE_USER, 'profile forget'));
  s.run(pick(PROFILE_USER, 'config-set workflow.user_profile false'));
  s.run(pick(PROFILE_USER, /^commit .*user profile off/));
  assert.not.ok(s.exists('.planning/USER-PROFILE.md'));
  assert.is(s.query(['profile', 'show', '--raw']), '');
}

test('should record research providers and cache a lookup, keep a phase\'s learnings for the planner and keep an opt-in user profile, with the calls the corpus makes', async () => {
  const s = await newProject();
  researchFlow(s);
  learningsFlow(s);
  profileFlow(s);
});

const SPEC_PHASE = 'gsd-core/workflows/spec-phase.md';
const MVP_PHASE = 'gsd-core/workflows/mvp-phase.md';
const AI_PHASE = 'gsd-core/workflows/ai-integration-phase.md';
const EVAL_PLANNER = 'agents/gsd-eval-planner.md';
const EVAL_REVIEW = 'gsd-core/workflows/eval-review.md';
const EVAL_AUDITOR = 'agents/gsd-eval-auditor.md';

/** spec-phase: init, a score per round, SPEC.md in the template's shape, spec check, commit; discussion and planning then get its path. */
function specFlow(s: Scratch, p: Phase): void {
  const dir = dirOf(p);
  const init = s.run(pick(SPEC_PHASE, 'init spec-phase'), { vars: { phase: p.number } });
  assert.equal([init.phase_found, init.spec_path, init.text_mode], [true, null, false]);
  const first = s.run(pick(SPEC_PHASE, 'spec score'), { vars: { goal: 0.6, boundary: 0.4, constraints: 0.3, acceptance: 0.4 } });
  assert.is(first.passed, false);
  const last = s.run(pick(SPEC_PHASE, 'spec score'), { vars: { goal: 0.9, boundary: 0.8, constraints: 0.7, acceptance: 0.8 } });
  assert.equal([last.passed, last.ambiguity], [true, 0.185]);
  // The orchestrator writes SPEC.md in the template's shape, with the scores spec score took and gave.
  const template = fs.readFileSync(path.join(SOURCE, 'gsd-core/templates/spec.md'), 'utf8');
  const spec = `${dir}/${p.padded}-SPEC.md`;
  s.write(
    spec,
    template
      .replace('{padded_phase}-{phase_slug}', `${p.padded}-${p.slug}`)
      .replace('{date}', TODAY)
      .replace('{phase}', p.number)
      .replace('{phase_name}', p.name)
      .replace(/\[One or two sentences[^\]]*\]/, 'A user finds any note by a word in its title or body.')
      .replace(/### R1: \[short title\][^#]*### R2: \[short title\][^#]*/, '### R1: Search box\n\n- Now: notes are only listed\n- Target: a search box filters the list\n- Check: typing "milk" lists only notes containing milk\n\n### R2: Speed\n\n- Now: none\n- Target: results under 100 ms for 10k notes\n- Check: the benchmark prints p95 under 100 ms\n\n')
      .replace('- [a deliverable this phase produces]', '- Search by word in title and body')
      .replace('- [something nearby this phase does not do] (why: [reason, or the phase that does it])', '- Fuzzy matching (why: not asked for)')
      .replace(/- \[performance[^\]]*\]/, '- 10k notes, p95 under 100 ms')
      .replace(/- \[ \] \[pass\/fail statement[^\]]*\]\n- \[ \] \[one per requirement at least\]/, '- [ ] Typing a word lists exactly the notes containing it\n- [ ] p95 under 100 ms on 10k notes')
      .replace('- Round 1 ([perspective]): [what was asked, what was settled]', '- Round 1 (Researcher): what exists; settled the search scope'),
  );
  const checked = s.run(pick(SPEC_PHASE, 'spec check'), { vars: { phase_number: p.number } });
  assert.equal([checked.ok, checked.requirement_count, checked.path], [true, 2, spec]);
  s.run(pick(SPEC_PHASE, 'commit'), { vars: { padded_phase: p.padded, phase_number: p.number, requirement_count: checked.requirement_count, spec } });
  s.committed(new RegExp(`^docs\\(${p.padded}\\): specify phase ${p.number}, 2 requirements$`, 'm'));
  assert.is(s.run(pick(PLAN_PHASE, 'init plan-phase'), { args: [p.number] }).spec_path, spec, 'the planner gets SPEC.md');
  assert.is(s.run(pick('gsd-core/workflows/discuss-phase.md', 'init discuss-phase'), { vars: { phase: p.number } }).spec_path, spec, 'so does discussion');
  // Assumptions mode: that init names no analyzer, so its skills come from agent-skills; none configured, an empty block.
  assert.is(s.run(pick('gsd-core/workflows/discuss-phase/modes/assumptions.md', 'agent-skills gsd-assumptions-analyzer')), '');
}

/** mvp-phase: init, the goal rewritten as a user story with the Mode line, committed; plan-phase then sees MVP mode. */
function mvpFlow(s: Scratch, p: Phase): void {
  const init = s.run(pick(MVP_PHASE, 'init mvp-phase'), { vars: { phase: p.number } });
  assert.equal([init.phase_mode, init.has_plans], [null, false]);
  const edit = pick(MVP_PHASE, 'phase edit');
  assert.throws(() => s.run(edit, { vars: { phase_number: p.number, story: 'Search notes' } }), /must be a user story/);
  const story = 'As a note taker, I want to search my notes by a word, so that I find any note again in seconds.';
  s.run(edit, { vars: { phase_number: p.number, story } });
  s.run(pick(MVP_PHASE, 'commit'), { vars: { phase_number: p.number } });
  s.committed(new RegExp(`^docs\\(roadmap\\): phase ${p.number} is an MVP slice$`, 'm'));
  const plan = s.run(pick(PLAN_PHASE, 'init plan-phase'), { args: [p.number] });
  assert.equal([plan.phase_mode, plan.phase_goal], ['mvp', story]);
  assert.is(s.git(['status', '--porcelain', '.planning/ROADMAP.md']), '');
}

/** ai-integration-phase: init, AI-SPEC.md from its template, the agents' sections, spec check, approval and commit. */
function aiSpecFlow(s: Scratch, p: Phase): string {
  const dir = dirOf(p);
  const init = s.run(pick(AI_PHASE, 'init ai-integration-phase'), { vars: { phase: p.number } });
  assert.is(init.ai_spec_path, null);
  assert.equal(['selector_model', 'ai_researcher_model', 'domain_researcher_model', 'eval_planner_model'].map((k) => typeof init[k]), ['string', 'string', 'string', 'string']);
  const aiSpec = `${dir}/${p.padded}-AI-SPEC.md`;
  const filled = s.run(pick(AI_PHASE, 'template fill ai-spec'), { vars: { phase_number: p.number, framework: 'Anthropic SDK 0.40', system_type: 'rag', model_provider: 'Anthropic', alternative: 'LlamaIndex' } });
  assert.is(filled.path, aiSpec);
  assert.throws(() => s.run(pick(EVAL_PLANNER, 'spec check'), { vars: { phase: p.number } }), /Implementation Guidance: still holds the template placeholder/);
  // The orchestrator's two sections, then each agent's, with Edit.
  s.edit(aiSpec, 'because [the deciding reasons]', 'because the project already calls it and the answers need citations');
  s.edit(aiSpec, 'not chosen because [reason]', 'not chosen because one retrieval step needs no framework');
  s.edit(aiSpec, '[exact version to pin]', '0.40.1');
  s.edit(aiSpec, '[one paragraph]', 'Answers questions about the user\'s notes, citing them.');
  s.edit(aiSpec, /\[Written by gsd-ai-researcher[^\]]*\]/, '```ts\nconst reply = await client.messages.create({ model, messages });\n```\n\nSources: the SDK docs.');
  s.edit(aiSpec, /\[Written by gsd-domain-researcher[^\]]*\]/, 'Personal knowledge management; the user judges the answers.');
  s.edit(aiSpec, /- \[rubric ingredient[^\]]*\]/, '- good: quotes the note it used / bad: invents a note / stakes: lost trust');
  s.edit(aiSpec, /\[Written by gsd-eval-planner[^\]]*\]/, 'From the domain context above.');
  s.edit(aiSpec, /\| \[dimension\] \|[^\n]*/, '| Faithfulness | answers only from cited notes | LLM judge with a 3-level rubric | 0.9 |');
  s.edit(aiSpec, /\[Where the evaluation[^\]]*\]/, '40 questions over a fixture of 200 notes, in evals/notes.json.');
  s.edit(aiSpec, /- \[a check that runs[^\]]*\]/, '- Answers without a citation are replaced by "not found in your notes"');
  s.edit(aiSpec, /\[The tracing tool[^\]]*\]/, 'Calls are logged with inputs, outputs and latency to .traces/.');
  assert.is(s.run(pick(EVAL_PLANNER, 'spec check'), { vars: { phase: p.number } }).ok, true);
  const checked = s.run(pick(AI_PHASE, 'spec check'), { vars: { phase_number: p.number } });
  assert.equal([checked.kind, checked.counts.evaluation_dimensions], ['ai-spec', 1]);
  s.run(pick(AI_PHASE, 'frontmatter set'), { vars: { ai_spec: aiSpec } });
  s.run(pick(AI_PHASE, 'commit'), { vars: { padded_phase: p.padded, ai_spec: aiSpec } });
  s.committed(new RegExp(`^docs\\(${p.padded}\\): AI design contract$`, 'm'));
  assert.match(s.read(aiSpec), /^status: approved$/m);
  assert.is(s.run(pick(PLAN_PHASE, 'init plan-phase'), { args: [p.number] }).phase_found, true);
  return aiSpec;
}

/** eval-review on the built phase: init, phase find, the auditor's EVAL-REVIEW.md and check, the workflow's check and commit. */
function evalReviewFlow(s: Scratch, p: Phase, aiSpec: string): void {
  const dir = dirOf(p);
  const init = s.run(pick(EVAL_REVIEW, 'init eval-review'), { vars: { phase: p.number } });
  assert.equal([init.ai_spec_path, init.eval_review_path, typeof init.auditor_model], [aiSpec, null, 'string']);
  assert.is(s.run(pick(EVAL_REVIEW, 'phase find'), { vars: { phase_number: p.number } }).summary_count, 1);
  const review = `${dir}/${p.padded}-EVAL-REVIEW.md`;
  const template = fs.readFileSync(path.join(SOURCE, 'gsd-core/templates/eval-review.md'), 'utf8');
  s.write(review, template.replace('score: 0', 'score: 65').replace('verdict: not-implemented', 'verdict: needs-work'));
  assert.throws(() => s.run(pick(EVAL_AUDITOR, 'spec check'), { vars: { phase: p.number } }), /Dimension Coverage: still holds the template placeholder/);
  s.edit(review, /\| \[from AI-SPEC[^\n]*/, '| Faithfulness | judge 0.9 | evals/faithfulness.ts:8 | partial | threshold not enforced |');
  for (const item of ['Reference dataset', 'Evaluation runner', 'Guardrails', 'Tracing']) s.edit(review, new RegExp(`\\| ${item} \\|[^\\n]*`), `| ${item} | present | evals/ |`);
  s.edit(review, /- \[critical \| major \| minor\][^\n]*/, '- major: the judge threshold is printed, not enforced');
  s.edit(review, /1\. \[the smallest change[^\n]*/, '1. Fail the eval run below 0.9 in evals/faithfulness.ts');
  assert.is(s.run(pick(EVAL_AUDITOR, 'spec check'), { vars: { phase: p.number } }).ok, true);
  const result = s.run(pick(EVAL_REVIEW, 'spec check'), { vars: { phase_number: p.number } });
  assert.equal([result.score, result.verdict], [65, 'needs-work'], '70 x 0.5 for the partial dimension + 30 for the infrastructure');
  s.run(pick(EVAL_REVIEW, 'commit'), { vars: { padded_phase: p.padded, score: result.score, verdict: result.verdict, phase_dir: dir } });
  s.committed(new RegExp(`^docs\\(${p.padded}\\): eval review, 65/100 needs-work$`, 'm'));
}

test('should specify a phase, make it an MVP slice, write its AI design contract and review its evals, with the calls the corpus makes', async () => {
  const s = await newProject();
  addPhase(s);
  const p = PHASES[1];
  specFlow(s, p);
  mvpFlow(s, p);
  const aiSpec = aiSpecFlow(s, p);
  // The phase is built (one plan and its summary) before its evaluations are reviewed.
  s.write(`${dirOf(p)}/${p.padded}-01-PLAN.md`, `---\nphase: ${p.padded}-${p.slug}\nplan: 01\nwave: 1\n---\n\n# Plan\n`);
  s.write(`${dirOf(p)}/${p.padded}-01-SUMMARY.md`, `---\nphase: ${p.padded}-${p.slug}\nplan: 01\n---\n\n# Summary\n`);
  evalReviewFlow(s, p, aiSpec);
  // The MVP-mode text reaches plan-phase only through its section; the planner never carries it.
  assert.match(fs.readFileSync(path.join(SOURCE, PLAN_PHASE), 'utf8'), /<!-- gsd:section id="mvp-mode" when="state:phase-mvp-mode" -->/);
  assert.not.match(fs.readFileSync(path.join(SOURCE, PLANNER), 'utf8'), /planner-mvp\.md|walking skeleton/i);
});

test('should bind every placeholder or fail with the file and line of the call', () => {
  const call: Call = { file: 'x.md', line: 3, words: ['phase', 'add', '{description}'] };
  assert.equal(bind(call, { vars: { description: 'Search' } }), ['phase', 'add', 'Search']);
  assert.throws(() => bind(call, {}), /x\.md:3: no value bound for \{description\}/);
  assert.throws(() => pick(PHASE_ADD, 'phase frobnicate'), /no longer makes a "phase frobnicate" call/);
  assert.equal(callWords(`node "$HOME/.claude/gsd-core/bin/gsd-tools.cjs" commit "docs: a b" --files x 'y z' 2>/dev/null`), [['commit', 'docs: a b', '--files', 'x', 'y z']]);
});


const REVIEW = 'gsd-core/workflows/review.md';
const CONVERGE = 'gsd-core/workflows/plan-review-convergence.md';
const CODE_REVIEW = 'gsd-core/workflows/code-review.md';
const EXTERNAL_LANES = 'gsd-core/workflows/code-review/steps/external-lanes.md';
const CODE_REVIEWER = 'agents/gsd-code-reviewer.md';

/** Stand-in reviewer programs (node scripts) in a temp bin dir: claude raises a HIGH finding until the request says FIXED, codex answers in its -o file. */
function standInReviewers(alwaysHigh = false): string {
  const dir = tmpDir('gsd-lifecycle-bin-');
  const write = (name: string, body: string) => {
    fs.writeFileSync(path.join(dir, name), `#!${process.execPath}\n${body}\n`);
    fs.chmodSync(path.join(dir, name), 0o755);
  };
  const high = alwaysHigh ? 'true' : "!input.includes('FIXED')";
  write('claude', `let input = ''; process.stdin.on('data', (c) => (input += c)); process.stdin.on('end', () => process.stdout.write('## 01-01\\n' + (${high} ? '- [HIGH] No test for saving an empty note.\\n' : '') + '- [LOW] Name the store module.\\nVerdict: ok\\n'));`);
  write('codex', `const fs = require('fs'); process.stdin.resume(); process.stdin.on('end', () => fs.writeFileSync(process.argv[process.argv.indexOf('-o') + 1], '- [MEDIUM] Task 2 could be split.\\nVerdict: fine\\n'));`);
  return dir;
}

test('should review a phase with other AI CLIs, converge its plans within review.max_rounds, and run code-review lanes, with the calls the corpus makes', async () => {
  const s = await newProject();
  const lanes = { '--lanes': 'claude,codex' };
  s.pathFirst = standInReviewers();

  // A planned phase 1.
  const planned = s.run(pick(PLAN_PHASE, 'init plan-phase'), { args: ['1'] });
  fs.mkdirSync(path.join(s.root, planned.phase_dir ?? planned.expected_phase_dir), { recursive: true });
  const plan = s.run(pick(PLANNER, 'template fill plan'), { set: { '--phase': '1', '--plan': '01', '--name': 'Save notes', '--type': 'execute', '--wave': '1' } });
  s.git(['add', '.']);
  s.git(['commit', '-q', '-m', 'docs(01): plan']);
  const request = (dir: string, name: string) => s.write(`${dir}/reviews/${name}`, `# Review of phase 1\n\n### ${plan.path}\n\n${s.read(plan.path)}\n`);

  // /gsd-review: lanes, request, run, commit.
  const init = s.run(pick(REVIEW, 'init plan-phase'), { vars: { phase: '1' } });
  assert.ok(init.plan_count >= 1);
  const found = s.run(pick(REVIEW, 'review lanes'), { set: lanes });
  assert.equal(found.runs, ['claude', 'codex']);
  request(init.phase_dir, 'request.md');
  const reviewed = s.run(pick(REVIEW, 'review run'), { vars: { phase_number: init.phase_number, phase_dir: init.phase_dir }, set: lanes });
  assert.equal([reviewed.reviewers, reviewed.blocking, reviewed.converged], [2, 1, false]);
  assert.match(s.read(reviewed.reviews_path), /^blocking: 1$/m);
  s.run(pick(REVIEW, 'commit'), { vars: { padded_phase: init.padded_phase, reviews_path: reviewed.reviews_path, phase_dir: init.phase_dir } });
  s.committed(/^docs\(01\): cross-AI review of the plans$/m);
  assert.ok(s.git(['ls-files', init.phase_dir]).includes('reviews/codex.md'));

  // /gsd-plan-review-convergence: round 1 finds the blocker, the planner fixes it, round 2 converges.
  const cinit = s.run(pick(CONVERGE, 'init plan-phase'), { vars: { phase: '1' } });
  const status = s.run(pick(CONVERGE, 'review status'), { vars: { phase_number: cinit.phase_number } });
  assert.equal([status.max_rounds, status.round, status.converged], [3, 1, false]);
  s.run(pick(CONVERGE, 'review lanes'), { set: lanes });
  const runRound = (round: number) => {
    request(cinit.phase_dir, 'request.md');
    return s.run(pick(CONVERGE, 'review run'), { vars: { phase_number: cinit.phase_number, phase_dir: cinit.phase_dir, round }, set: lanes });
  };
  let round = runRound(1);
  assert.equal([round.blocking, round.converged, round.bound_reached], [1, false, false]);
  s.edit(plan.path, /$/, '\n## Review responses\n\n- FIXED: a test saves an empty note.\n');
  s.run(pick(CONVERGE, 'commit docs({padded_phase}): revise'), { vars: { padded_phase: cinit.padded_phase, round: 1, phase_dir: cinit.phase_dir } });
  s.committed(/^docs\(01\): revise plans after review round 1$/m);
  round = runRound(2);
  assert.equal([round.blocking, round.converged], [0, true]);
  assert.equal(round.rounds.map((r: { blocking: number }) => r.blocking), [1, 0]);
  s.run(pick(CONVERGE, 'commit docs({padded_phase}): plan review'), { vars: { padded_phase: cinit.padded_phase, round: 2, reviews_path: round.reviews_path, phase_dir: cinit.phase_dir } });
  s.committed(/^docs\(01\): plan review round 2$/m);

  // The bound: one round allowed, a reviewer that always blocks.
  s.run(pick(CONVERGE, 'config-set review.max_rounds'), { vars: { rounds: 1 } });
  s.pathFirst = standInReviewers(true);
  round = runRound(1);
  assert.equal([round.blocking, round.converged, round.bound_reached, round.max_rounds], [1, false, true, 1]);
  assert.throws(() => runRound(2), /round 2 is past review\.max_rounds \(1\)/);
  assert.equal(s.run(pick(CONVERGE, 'review status'), { vars: { phase_number: cinit.phase_number } }).next_round, null);

  // /gsd-code-review --lanes: the lanes review the code first, the reviewer writes REVIEW.md, one commit.
  s.write('src/notes.ts', 'export const save = (text: string) => text;\n');
  s.git(['add', 'src/notes.ts']);
  s.git(['commit', '-q', '-m', 'feat(01-01): save notes']);
  const cr = s.run(pick(CODE_REVIEW, 'init code-review'), { vars: { phase: '1', flags: '--lanes=claude,codex' } });
  assert.ok(cr.flags.includes('--lanes'));
  s.write(`${cr.phase_dir}/reviews/code-request.md`, '# Code review of phase 1\n\n## Files\n\nsrc/notes.ts\n');
  const external = s.run(pick(EXTERNAL_LANES, 'review run'), { vars: { phase_number: cr.phase_number, phase_dir: cr.phase_dir, lanes: 'claude,codex' } });
  assert.equal([external.for, external.reviewers], ['code', 2]);
  assert.ok(s.exists(`${cr.phase_dir}/${cr.padded_phase}-CODE-REVIEWS.md`));
  s.run(pick(CODE_REVIEWER, 'template fill review'), { set: { '--phase': '1' } });
  s.run(pick(CODE_REVIEW, 'commit docs({padded_phase}): code review'), { vars: { padded_phase: cr.padded_phase, depth: cr.review_depth, phase_dir: cr.phase_dir } });
  s.committed(/^docs\(01\): code review at standard depth$/m);
  assert.ok(s.git(['ls-files', cr.phase_dir]).includes('reviews/code-claude.md'));
});

const FORENSICS = 'gsd-core/workflows/forensics.md';
const PROGRESS_FORENSIC = 'gsd-core/workflows/progress/steps/forensic.md';
const AUDIT_FIX = 'gsd-core/workflows/audit-fix.md';
const CODE_FIXER = 'agents/gsd-code-fixer.md';

/** A call whose exit 1 still carries the answer (`health` while it finds something). */
function runReport(s: Scratch, call: Call, binding: Binding = {}): any {
  const argv = bind(call, binding);
  const r = spawnSync(process.execPath, [s.cli, ...argv], { cwd: s.root, encoding: 'utf8', env: s.env(), timeout: 60_000 });
  assert.ok(r.status === 0 || r.status === 1, `source/${call.file}:${call.line}: gsd-tools ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

test('should run a post-mortem of a stalled phase and the audit-fix pipeline with the calls the corpus makes', async () => {
  const s = await newProject();
  addPhase(s);
  const [p1, p2] = PHASES;
  planPhase(s, p1);
  executePhase(s, p1);
  verifyPhase(s, p1, p2);
  // Phase 2 stalls: planned, an executor commits its work and dies before the summary,
  // leaving its worktree, a lock and a hand-made commit outside any plan.
  planPhase(s, p2);
  s.run(pickAny(EXECUTE_PHASE, ['state begin-phase']), { vars: { phase_number: p2.number, phase_name: p2.name, plan_count: 1 } });
  s.write('src/search.ts', 'export const search = () => [];\n');
  s.git(['add', 'src/search.ts']);
  s.git(['commit', '-q', '-m', `feat(${p2.padded}-01): search by word`]);
  s.write('src/hotfix.ts', 'export const x = 1;\n');
  s.git(['add', 'src/hotfix.ts']);
  s.git(['commit', '-q', '-m', 'quick hotfix']);
  const wt = s.query(['worktree', 'create', `${p2.padded}-01`]);
  assert.is(wt.created, true, JSON.stringify(wt));
  s.write('.planning/STATE.md.lock', '2147483646\n');

  // /gsd-forensics: context, evidence, report.
  const before = s.git(['status', '--porcelain']);
  const headBefore = s.git(['rev-parse', 'HEAD']);
  const init = s.run(pick(FORENSICS, 'init forensics'));
  assert.is(init.current_phase.number, p2.number);
  assert.equal([init.current_phase.plan_count, init.current_phase.summary_count], [1, 0]);
  assert.is(init.forensics_dir, '.planning/forensics');
  assert.is(init.report_path, '.planning/forensics/report-20250304T050607Z.md');
  assert.equal(init.earlier_reports, []);
  const health = runReport(s, pick(FORENSICS, 'health'));
  assert.ok(health.warnings.some((w: { code: string; message: string }) => w.code === 'stale-lock' && w.message.includes('STATE.md.lock')), JSON.stringify(health.warnings));
  const analysis = s.run(pick(FORENSICS, 'roadmap analyze'));
  const stalled = analysis.phases.find((p: { number: string }) => p.number === p2.number);
  assert.equal([stalled.disk_status, stalled.plan_count, stalled.summary_count], ['partial', 1, 0]);
  const worktrees = s.run(pick(FORENSICS, 'worktree reap --dry-run'));
  assert.is(worktrees.dry_run, true);
  assert.equal(worktrees.reaped.map((r: { plan: string }) => r.plan), [`${p2.padded}-01`], 'the test process started the worktree in an earlier run: orphaned');
  assert.ok(fs.existsSync(wt.path), 'the dry run leaves the worktree');
  const commits = s.run(pick(FORENSICS, 'commits --last'));
  assert.ok(JSON.stringify(commits).includes(`feat(${p2.padded}-01): search by word`), 'the plan commit without a summary is found');
  assert.not.ok(JSON.stringify(commits).includes('quick hotfix'), 'a commit outside a plan has no GSD scope');
  assert.match(s.git(['log', '-30', '--format=%h %cI %s']), /quick hotfix/);
  // The progress check the workflow reuses, and its pointer here.
  assert.ok(callsIn(PROGRESS_FORENSIC).some((c) => c.words[0] === 'health'));
  assert.match(fs.readFileSync(path.join(SOURCE, PROGRESS_FORENSIC), 'utf8'), /^\d+\. .*`\/gsd-forensics`/m);
  assert.ok(shellSteps(FORENSICS).some((x) => x.text === 'mkdir -p {forensics_dir}'));
  fs.mkdirSync(path.join(s.root, init.forensics_dir), { recursive: true });
  s.write(init.report_path, '# Forensic report: phase 2 stalled\n\n## Findings\n| # | Anomaly | Confidence | Evidence | Next step |\n|---|---|---|---|---|\n| 1 | plan without summary | high | 02-01 | /gsd-execute-phase 2 |\n');
  // Read-only apart from the report: the same status plus the report folder, no commit, the worktree and lock still there.
  const afterForensics = s.git(['status', '--porcelain']);
  assert.is(afterForensics, `${before}?? .planning/forensics/\n`.replace(/^\n/, ''));
  assert.is(s.git(['rev-parse', 'HEAD']), headBefore);
  assert.ok(s.exists('.planning/STATE.md.lock'));
  assert.equal(s.run(pick(FORENSICS, 'init forensics')).earlier_reports, [init.report_path]);
  s.query(['worktree', 'cleanup', `${p2.padded}-01`, '--discard']);
  fs.rmSync(path.join(s.root, '.planning/STATE.md.lock'));
  const untouched = s.git(['status', '--porcelain']);

  // /gsd-audit-fix on phase 1: a review with one auto-fixable warning, fixed by the code fixer in one commit.
  const fx = s.run(pick(AUDIT_FIX, 'init audit-fix'));
  assert.is(fx.fixer_model, s.query(['resolve-model', 'gsd-code-fixer']).model);
  assert.ok('test_command' in fx);
  const phase1 = fx.phases.find((p: { number: string }) => p.number === p1.number);
  assert.is(phase1.directory, dirOf(p1));
  const audit = s.run(pick(AUDIT_FIX, 'uat audit'));
  assert.is(audit.all_clear, true, 'phase 1 passed acceptance');
  const review = s.run(pick(CODE_REVIEWER, 'template fill review'), { set: { '--phase': p1.number, '--fields': '{"depth": "standard", "round": 1, "status": "issues_found", "files_count": 1, "files": ["src/notes-core.ts"], "critical": 0, "warning": 1, "info": 0, "total": 1}' } });
  s.git(['add', review.path]);
  s.git(['commit', '-q', '-m', `docs(${p1.padded}): code review`]);
  const counts = s.run(pick(AUDIT_FIX, 'frontmatter get'), { vars: { directory: phase1.directory, padded_phase: p1.padded } });
  assert.equal(counts.findings ?? counts, { critical: 0, warning: 1, info: 0, total: 1 });
  s.write('src/notes-core.ts', 'export const notesCore = true as const;\n');
  s.run(pick(CODE_FIXER, 'commit'), { positional: [`fix(${p1.padded}): WR-01 narrow the flag type`], set: { '--files': ['src/notes-core.ts'] } });
  s.run(pick(CODE_FIXER, 'template fill review-fix'), { vars: { phase: p1.number }, set: { '--fields': '{"round": 1, "status": "all_fixed", "in_scope": 1, "fixed": 1, "skipped": 0}' } });
  const landed = s.run(pick(AUDIT_FIX, 'commits --phase'), { vars: { phase: p1.number } });
  assert.ok(JSON.stringify(landed).includes(`fix(${p1.padded}): WR-01`), JSON.stringify(landed));
  s.run(pick(AUDIT_FIX, 'commit'), { vars: { padded_phase: p1.padded, directory: phase1.directory } });
  s.committed(new RegExp(`^docs\\(${p1.padded}\\): audit-fix report$`, 'm'));
  assert.is(s.git(['status', '--porcelain']), untouched, 'every fix and its report are committed');
});

test.run();
