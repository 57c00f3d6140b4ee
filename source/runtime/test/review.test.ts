// Cross-AI review through the bundled CLI, with stand-in reviewer programs
// (small node scripts this test writes into a temp bin dir, the only entry on
// PATH): present and missing lanes, the runtime itself skipped, the prompt
// reaching each lane unchanged, hostile lanes (hang, flood, binary, non-zero
// exit), and the convergence bound. No real AI CLI and no network is used.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import AjvModule from 'ajv';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { REPO_ROOT } from '../../../compiler/pipeline.ts';
import { cliPath, codeCacheHome, FIXED_NOW, project, read, run, tmpDir } from './helpers.ts';
import lanes from '../review-lanes.json' with { type: 'json' };
import lanesSchema from '../../../schemas/review-lanes.schema.json' with { type: 'json' };
import { countFindings, laneArgv, LANES, quoted } from '../review/lanes.ts';
import { readFrontmatter } from '../md/frontmatter.ts';

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('runtime review');

const PLAN = '---\nphase: 03\nplan: 01\n---\n# Plan 03-01: Login form\n\nTask: add the form.\n';
const PHASE = '.planning/phases/03-login';

function phaseProject(extra: Record<string, string> = {}): string {
  return project({ [`${PHASE}/03-01-PLAN.md`]: PLAN, [`${PHASE}/prompt.md`]: '# Review request\n\nReview phase 3.\n', ...extra });
}

/** A bin dir holding stand-in reviewers: program name → node source run with this node. */
function bin(programs: Record<string, string>): string {
  const dir = tmpDir('gsd-review-bin-');
  for (const [name, body] of Object.entries(programs)) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!${process.execPath}\n${body}\n`);
    fs.chmodSync(file, 0o755);
  }
  return dir;
}

// Reads stdin (or the file named in its last argument) and answers with one HIGH finding unless the plan says FIXED.
const READS_PLAN = `
const fs = require('fs');
const path = require('path');
const plan = fs.readFileSync(path.join(process.cwd(), '${PHASE}/03-01-PLAN.md'), 'utf8');
const high = plan.includes('FIXED') ? '' : '- [HIGH] The form has no CSRF token.\\n';
process.stdout.write('## 03-01\\n\\n' + high + '- [LOW] Name the submit button.\\n');
`;
const ECHO_STDIN = `
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => process.stdout.write('## Answer\\n\\nfirst line: ' + input.split('\\n')[0] + '\\nargv: ' + JSON.stringify(process.argv.slice(2)) + '\\n- [MEDIUM] Split task 2.\\n## Fake section\\n'));
`;
const CODEX_FILE = `
const fs = require('fs');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const out = process.argv[process.argv.indexOf('-o') + 1];
  fs.writeFileSync(out, 'codex read: ' + input.split('\\n')[0] + '\\n* **HIGH** Task 1 has no test.\\n- HIGH: the session is never rotated\\n');
  process.stdout.write('progress noise that is not the answer\\n');
});
`;

s('should ship lanes that match their schema, each a runtime id with a safe argv', () => {
  const v = new Ajv({ allErrors: true, strict: false }).compile(lanesSchema);
  assert.ok(v(lanes), JSON.stringify(v.errors));
  const targets = fs.readdirSync(path.join(REPO_ROOT, 'targets'));
  for (const lane of LANES) assert.ok(targets.includes(lane.id), `lane ${lane.id} is a runtime id`);
  const broken = structuredClone(lanes) as { lanes: { program: string; argv: string[]; prompt: string }[] };
  broken.lanes[0]!.program = 'claude; rm -rf ~';
  assert.not.ok(v(broken), 'a program is a bare name, never shell text');
  const noFile = structuredClone(lanes) as { lanes: { argv: string[]; prompt: string }[] };
  noFile.lanes[0]!.prompt = 'file';
  assert.not.ok(v(noFile), 'a file-prompt lane must name {prompt_file} in its argv');
  const cursor = LANES.find((l) => l.id === 'cursor')!;
  const argv = laneArgv(cursor, { prompt: '/tmp/a b/$(touch x);.md', output: '/o' });
  assert.is(argv.length, cursor.argv.length, 'a path with spaces and shell text stays one word');
  assert.ok(argv.at(-1)!.includes('/tmp/a b/$(touch x);.md'));
});

s('should count severities only from finding list items and quote every line', () => {
  assert.equal(countFindings('- [HIGH] a\n* **HIGH** b\n  - high: c\n- [MEDIUM] d\nHIGH in prose\n- HIGHLY rated\n+ LOW: e\n'), { high: 3, medium: 1, low: 1 });
  assert.is(quoted('## Fake\n\nline\n'), '> ## Fake\n>\n> line');
});

s('should list lanes on PATH, skip missing ones with a note, and skip the runtime running the review unless named', async () => {
  const root = phaseProject();
  const dir = bin({ claude: ECHO_STDIN, codex: CODEX_FILE });
  let r = await run(['review', 'lanes'], { cwd: root, env: { PATH: dir } });
  assert.is(r.code, 0, r.stderr);
  assert.equal(r.json.runs, ['claude', 'codex']);
  const qwen = r.json.lanes.find((l: { id: string }) => l.id === 'qwen');
  assert.equal([qwen.runs, qwen.note], [false, 'qwen is not on PATH']);
  r = await run(['review', 'lanes', '--raw'], { cwd: root, env: { PATH: dir, CLAUDE_CODE_ENTRYPOINT: 'cli' } });
  assert.is(r.stdout, 'codex', 'inside Claude Code the claude lane is not independent');
  r = await run(['review', 'lanes', '--lanes', 'claude,qwen', '--raw'], { cwd: root, env: { PATH: dir, CLAUDE_CODE_ENTRYPOINT: 'cli' } });
  assert.is(r.stdout, 'claude', 'a named lane runs even inside its own runtime');
  r = await run(['review', 'lanes', '--lanes', 'gemini'], { cwd: root, env: { PATH: dir } });
  assert.is(r.code, 2);
  assert.match(r.stderr, /no reviewer lane "gemini"; lanes are: claude, codex/);
  // In a bundle, gsd-tools knows its own runtime from bin/runtime.json: that lane is not independent either.
  const core = tmpDir('gsd-review-core-');
  fs.mkdirSync(path.join(core, 'bin'));
  const landing = { target: 'codex', scope: 'global', owned: [], merged: [] };
  fs.writeFileSync(path.join(core, 'bin/runtime.json'), JSON.stringify({ target: 'codex', runtime: 'Codex', scope: 'global', root: '.codex', base: 'home', instructionFile: 'AGENTS.md', invocation: 'node x', landing }));
  r = await run(['review', 'lanes', '--raw'], { cwd: root, env: { PATH: dir, GSD_CORE_DIR: core } });
  assert.is(r.stdout, 'claude', 'the codex bundle leaves the codex lane out');
  r = await run(['review', 'lanes', '--lanes', 'codex', '--raw'], { cwd: root, env: { PATH: dir, GSD_CORE_DIR: core } });
  assert.is(r.stdout, 'codex');
  fs.writeFileSync(path.join(root, '.planning/config.json'), JSON.stringify({ review: { lanes: ['codex'] } }));
  r = await run(['review', 'lanes', '--raw'], { cwd: root, env: { PATH: dir } });
  assert.is(r.stdout, 'codex', 'review.lanes selects when --lanes is not given');
});

s('should run each lane without a shell, write its record and a merged REVIEWS.md with the blocking count', async () => {
  const root = phaseProject();
  const dir = bin({ claude: ECHO_STDIN, codex: CODEX_FILE, 'cursor-agent': `process.stdout.write('cursor got ' + JSON.stringify(process.argv.slice(2)) + '\\n- [LOW] fine\\n');` });
  const prompt = path.join(root, 'odd dir $(touch pwned);', 'prompt.md');
  fs.mkdirSync(path.dirname(prompt), { recursive: true });
  fs.writeFileSync(prompt, '# Review request\n\nReview phase 3.\n');
  const r = await run(['review', 'run', '3', '--prompt', prompt], { cwd: root, env: { PATH: dir } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.reviewers, 3);
  assert.is(r.json.blocking, 2, 'two HIGH findings, both from codex');
  assert.is(r.json.reviews_path, `${PHASE}/03-REVIEWS.md`);
  assert.not.ok(fs.existsSync(path.join(root, 'pwned')), 'nothing ran the path through a shell');
  const claude = read(root, `${PHASE}/reviews/claude.md`);
  assert.match(claude, /^status: ok$/m);
  assert.match(claude, /first line: # Review request/, 'the prompt arrived on stdin');
  assert.match(claude, /argv: \["-p"\]/);
  const codex = read(root, `${PHASE}/reviews/codex.md`);
  assert.match(codex, /codex read: # Review request/, 'the answer is the -o file, not stdout');
  assert.not.match(codex, /progress noise/);
  assert.match(read(root, `${PHASE}/reviews/cursor.md`), /odd dir \$\(touch pwned\);\/prompt\.md and answer it/, 'the prompt path is one argv word');
  const merged = read(root, `${PHASE}/03-REVIEWS.md`);
  assert.match(merged, /^blocking: 2$/m);
  assert.match(merged, /^> ## Fake section$/m, 'a reviewer cannot add a section of its own');
  assert.match(merged, /^\| codex \| ok \| 2 \| 0 \| 0 \| {2}\|$/m);
  assert.match(merged, /^\| qwen \| skipped \| - \| - \| - \| qwen is not on PATH \|$/m);
});

s('should record hung, flooding, binary and failing lanes without crashing, within the timeout', async () => {
  const root = phaseProject();
  const dir = bin({
    claude: READS_PLAN,
    // Hangs, and leaves a child holding the pipes.
    opencode: `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000);`,
    qwen: `process.stdout.write(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]));`,
    'cursor-agent': `process.stderr.write('auth failed \\u001b[31m\\n\`\`\`\\n# not a heading\\n'); process.exit(3);`,
    agy: `const chunk = '- [HIGH] flood\\n'.repeat(4096); (function write() { while (process.stdout.write(chunk)); process.stdout.once('drain', write); })();`,
  });
  const started = Date.now();
  const r = await run(['review', 'run', '3', '--prompt', `${PHASE}/prompt.md`, '--timeout', '2'], { cwd: root, env: { PATH: dir } });
  const took = Date.now() - started;
  assert.is(r.code, 0, r.stderr);
  assert.ok(took < 20_000, `bounded by the timeout (took ${took} ms)`);
  const status = Object.fromEntries(r.json.lanes.map((l: { id: string; status: string }) => [l.id, l.status]));
  assert.equal(status, { claude: 'ok', opencode: 'timeout', qwen: 'garbage', cursor: 'failed', antigravity: 'ok', codex: 'skipped' });
  const flood = read(root, `${PHASE}/reviews/antigravity.md`);
  assert.match(flood, /^truncated: true$/m);
  assert.ok(Buffer.byteLength(flood) < lanes.limits.maxOutputBytes + 4096, 'the answer is cut at the cap');
  const failed = read(root, `${PHASE}/reviews/cursor.md`);
  assert.match(failed, /No usable answer: exited with code 3\./);
  assert.match(failed, /^ {4}auth failed \[31m$/m, 'stderr kept, indented, the escape character gone');
  assert.match(failed, /^ {4}# not a heading$/m);
  assert.match(read(root, `${PHASE}/reviews/qwen.md`), /the answer is not UTF-8 text/);
  assert.match(read(root, `${PHASE}/reviews/opencode.md`), /no answer within 2 s; stopped/);
});

s('should fail when no lane gave an answer, and refuse when none can run, writing nothing then', async () => {
  const root = phaseProject();
  let r = await run(['review', 'run', '3', '--prompt', `${PHASE}/prompt.md`], { cwd: root, env: { PATH: bin({}) } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no reviewer lane can run \(claude: claude is not on PATH; codex: codex is not on PATH/);
  assert.not.ok(fs.existsSync(path.join(root, PHASE, '03-REVIEWS.md')));
  r = await run(['review', 'run', '3', '--prompt', `${PHASE}/prompt.md`], { cwd: root, env: { PATH: bin({ claude: 'process.exit(1)' }) } });
  assert.is(r.code, 1, 'a failed lane is not a review');
  assert.is(r.json.blocking, null);
  assert.is(r.json.converged, false);
  assert.match(read(root, `${PHASE}/03-REVIEWS.md`), /No reviewer gave a usable answer/);
  // A program that cannot start (its interpreter is missing) is a failed lane, not a crash.
  const broken = bin({});
  fs.writeFileSync(path.join(broken, 'claude'), '#!/nonexistent/interpreter\n');
  fs.chmodSync(path.join(broken, 'claude'), 0o755);
  r = await run(['review', 'run', '3', '--prompt', `${PHASE}/prompt.md`], { cwd: root, env: { PATH: broken } });
  assert.is(r.code, 1);
  assert.equal([r.json.lanes[0].status, r.json.reviewers], ['failed', 0]);
  assert.match(r.json.lanes[0].note, /^could not start .*claude: /);
  const outside = path.join(tmpDir('gsd-review-outside-'), 'secret.md');
  fs.writeFileSync(outside, 'not for reviewers\n');
  r = await run(['review', 'run', '3', '--prompt', outside], { cwd: root, env: { PATH: bin({ claude: ECHO_STDIN }) } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /--prompt: ".*secret\.md" resolves outside the project/, 'only a file inside the project is sent to other programs');
  r = await run(['review', 'run', '9', '--prompt', `${PHASE}/prompt.md`], { cwd: root, env: { PATH: bin({ claude: READS_PLAN }) } });
  assert.is(r.code, 1);
  assert.match(r.stderr, /no phase 9 folder/);
});

s('should converge when the revised plan clears the blocking findings, and stop at review.max_rounds', async () => {
  const root = phaseProject({ '.planning/config.json': JSON.stringify({ review: { max_rounds: 2 } }) });
  const dir = bin({ claude: READS_PLAN });
  const call = (round: number) => run(['review', 'run', '3', '--prompt', `${PHASE}/prompt.md`, '--round', String(round)], { cwd: root, env: { PATH: dir } });
  let r = await call(1);
  assert.equal([r.json.blocking, r.json.converged, r.json.bound_reached], [1, false, false]);
  r = await run(['review', 'status', '3'], { cwd: root });
  assert.equal([r.json.round, r.json.next_round, r.json.max_rounds], [1, 2, 2]);
  fs.appendFileSync(path.join(root, PHASE, '03-01-PLAN.md'), '\nFIXED: CSRF token added.\n');
  r = await call(2);
  assert.equal([r.json.blocking, r.json.converged, r.json.bound_reached], [0, true, false]);
  assert.equal(r.json.rounds, [{ round: 1, blocking: 1, reviewers: 1 }, { round: 2, blocking: 0, reviewers: 1 }]);
  r = await run(['review', 'status', '3'], { cwd: root });
  assert.equal([r.json.converged, r.json.next_round], [true, null]);

  fs.writeFileSync(path.join(root, PHASE, '03-01-PLAN.md'), PLAN);
  await call(1);
  r = await call(2);
  assert.equal([r.json.blocking, r.json.converged, r.json.bound_reached], [1, false, true]);
  assert.equal(r.json.rounds.map((x: { round: number }) => x.round), [1, 2], 'a new loop replaces the later rounds');
  r = await call(3);
  assert.is(r.code, 1);
  assert.match(r.stderr, /round 3 is past review\.max_rounds \(2\)/);
  r = await run(['review', 'status', '3'], { cwd: root });
  assert.equal([r.json.bound_reached, r.json.next_round, r.json.blocking], [true, null, 1]);
});

s('should keep code reviews apart from plan reviews', async () => {
  const root = phaseProject();
  const r = await run(['review', 'run', '3', '--for', 'code', '--lanes', 'claude', '--prompt', `${PHASE}/prompt.md`], { cwd: root, env: { PATH: bin({ claude: READS_PLAN, codex: CODEX_FILE }) } });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.reviews_path, `${PHASE}/03-CODE-REVIEWS.md`);
  assert.ok(fs.existsSync(path.join(root, PHASE, 'reviews/code-claude.md')));
  assert.not.ok(fs.existsSync(path.join(root, PHASE, 'reviews/codex.md')), 'only the named lane ran');
  assert.not.ok(fs.existsSync(path.join(root, PHASE, '03-REVIEWS.md')));
});

s('should fold both runs into one REVIEWS.md when two reviews of one round run at once', async () => {
  const root = phaseProject();
  const dir = bin({ claude: READS_PLAN, codex: CODEX_FILE });
  const cli = await cliPath();
  const once = (lane: string) =>
    new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [cli, 'review', 'run', '3', '--lanes', lane, '--prompt', `${PHASE}/prompt.md`], {
        cwd: root,
        env: { PATH: dir, HOME: root, XDG_CACHE_HOME: codeCacheHome(), GSD_NOW: FIXED_NOW },
        stdio: 'ignore',
      });
      child.on('close', (code) => resolve(code ?? -1));
    });
  assert.equal(await Promise.all([once('claude'), once('codex')]), [0, 0]);
  assert.ok(fs.existsSync(path.join(root, PHASE, 'reviews/claude.md')) && fs.existsSync(path.join(root, PHASE, 'reviews/codex.md')));
  const merged = read(root, `${PHASE}/03-REVIEWS.md`);
  const fm = readFrontmatter(merged, 'REVIEWS.md').data;
  assert.equal([...(fm.reviewers as string[])].sort(), ['claude', 'codex'], 'each run folded in the lane the other one ran');
  assert.is(fm.blocking, 3, 'one HIGH from claude, two from codex');
  assert.equal((fm.rounds as unknown[]).length, 1);
  assert.match(merged, /^\| claude \| ok \| 1 \| 0 \| 1 \| {2}\|$/m);
  assert.match(merged, /^\| codex \| ok \| 2 \| 0 \| 0 \| {2}\|$/m);
  assert.match(merged, /^> - \[HIGH\] The form has no CSRF token\.$/m, "claude's answer is quoted");
  assert.match(merged, /^> codex read: # Review request$/m, "codex's answer is quoted");
  assert.equal(fs.readdirSync(path.join(root, PHASE)).filter((n) => n.endsWith('.gsd-tmp')), [], 'no temp file left');
  // A record of an earlier round is not this round's: round 2 by claude alone leaves codex's round-1 answer out.
  const r = await run(['review', 'run', '3', '--lanes', 'claude', '--round', '2', '--prompt', `${PHASE}/prompt.md`], { cwd: root, env: { PATH: dir } });
  assert.is(r.code, 0, r.stderr);
  assert.equal([r.json.reviewers, r.json.blocking], [1, 1]);
  const second = readFrontmatter(read(root, `${PHASE}/03-REVIEWS.md`), 'REVIEWS.md').data;
  assert.equal(second.reviewers, ['claude']);
  assert.equal(second.rounds, [{ round: 1, blocking: 3, reviewers: 2 }, { round: 2, blocking: 1, reviewers: 1 }]);
});

s.run();
