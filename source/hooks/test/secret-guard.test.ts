import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bundle, project, runOf, tmpDir, type Run } from '../../runtime/test/helpers.ts';
import { secretReadGuard, isSecretPath, bashReadsSecret } from '../secret-read-guard.ts';
import { checkCommand } from '../lib/secret/check.ts';
import { SecretPatterns, defaultPatterns, literal } from '../lib/secret/patterns.ts';
import { LINKS, LEGITIMATE, PROJECT, SECRET_READS, type Case } from './secret-corpus.ts';
import patternsJson from '../secret-patterns.json' with { type: 'json' };
import AjvModule from 'ajv';

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('secret-guard');
const ID = 'gsd-secret-read-guard';

/** The scratch project of the corpus: its files, then its links. */
function corpusProject(): string {
  const root = project(PROJECT);
  for (const [link, target] of Object.entries(LINKS)) fs.symlinkSync(target, path.join(root, link));
  return root;
}

function payload(c: Case, cwd: string): Record<string, unknown> {
  // A PowerShell case arrives as GitHub Copilot CLI sends its powershell tool: the runtime's name beside the normalized one.
  return { hook_event_name: 'PreToolUse', tool_name: c.tool, tool_input: c.input, cwd, ...(c.shell === 'powershell' ? { toolName: 'powershell' } : {}) };
}

async function refusal(c: Case, cwd: string): Promise<string | null> {
  const r = await secretReadGuard(payload(c, cwd));
  if (r.exitCode !== 2) return null;
  return String((r.stdout as { hookSpecificOutput: { permissionDecisionReason: string } }).hookSpecificOutput.permissionDecisionReason);
}

async function hook(event: unknown, opts: { stdin?: string; args?: string[] } = {}): Promise<Run & { ms: number }> {
  const file = path.join(await bundle(), 'hooks', `${ID}.cjs`);
  const tmp = tmpDir();
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [file, ...(opts.args ?? [])], { input: opts.stdin ?? JSON.stringify(event), encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, TMP: tmp, TEMP: tmp }, timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { ...runOf(r), ms };
}

s(`should refuse every one of the ${SECRET_READS.length} secret reads and none of the ${LEGITIMATE.length} legitimate calls`, async () => {
  assert.ok(SECRET_READS.length >= 150, 'at least 150 attempts');
  assert.ok(LEGITIMATE.length >= 60, 'at least 60 legitimate calls');
  for (const shell of ['bash', 'powershell'] as const) {
    assert.ok(SECRET_READS.filter((c) => c.shell === shell).length >= 40, `${shell} attempts`);
    assert.ok(LEGITIMATE.filter((c) => c.shell === shell).length >= 15, `${shell} legitimate commands`);
  }
  const root = corpusProject();
  const missed: string[] = [];
  const missedBoth: string[] = [];
  for (const c of SECRET_READS) {
    if ((await refusal(c, root)) === null) missed.push(`${c.shell ?? c.tool}: ${c.label}: ${JSON.stringify(c.input)}`);
    // A runtime that does not say which shell runs the command: both grammars, and a refusal by either holds.
    if (c.tool === 'Bash' && (await checkCommand(String(c.input.command), 'both', { cwd: root })).length === 0) missedBoth.push(c.label);
  }
  const falseBlocks: string[] = [];
  for (const c of LEGITIMATE) {
    const r = await refusal(c, root);
    if (r !== null) falseBlocks.push(`${c.shell ?? c.tool}: ${c.label}: ${JSON.stringify(c.input)} -> ${r}`);
  }
  // Informational: a Windows runtime that does not name its shell gets both readings, and some Bash reads oddly as PowerShell.
  let bothRefused = 0;
  const shellCases = LEGITIMATE.filter((c) => c.tool === 'Bash');
  for (const c of shellCases) if ((await checkCommand(String(c.input.command), 'both', { cwd: root })).length > 0) bothRefused++;
  console.log(`secret guard corpus, both grammars at once: ${shellCases.length} legitimate shell commands, ${bothRefused} refused`);
  console.log(
    `secret guard corpus: ${SECRET_READS.length} secret reads tried, ${SECRET_READS.length - missed.length} caught, ${missed.length} missed` +
      ` (${SECRET_READS.filter((c) => c.shell === 'bash').length} Bash, ${SECRET_READS.filter((c) => c.shell === 'powershell').length} PowerShell, ${SECRET_READS.filter((c) => c.tool !== 'Bash').length} Read/Grep);` +
      ` ${LEGITIMATE.length} legitimate calls tried, ${falseBlocks.length} false blocks`,
  );
  assert.equal(missed, [], 'missed secret reads');
  assert.equal(missedBoth, [], 'missed when read with both grammars');
  assert.equal(falseBlocks, [], 'legitimate calls refused');
});

s('should say why it refuses', async () => {
  const root = corpusProject();
  const why = async (command: string) => (await checkCommand(command, 'bash', { cwd: root }))[0] ?? '';
  assert.match(await why('cat .env'), /cat is given \.env, which can name a secret file \(\.env\)/);
  assert.match(await why('cat "$X"'), /only known at run time/);
  assert.match(await why('cat .e*'), /a pattern that can match it/);
  assert.match(await why('cat innocent.txt'), /through a link/);
  assert.match(await why('grep -r KEY .'), /whose tree holds secret files/);
  assert.match(await why('bash -c "$CODE"'), /only known at run time/);
  assert.match(await why("python3 -c \"print(open('.e'+'nv').read())\""), /file name built at run time/);
  assert.match(await why('eval "$(printf x)"'), /eval runs code that is only known at run time/);
});

s('should resolve links before matching, with a bound on how many', async () => {
  const root = project({ '.env': 'K=1\n', 'ok.txt': 'fine\n' });
  fs.symlinkSync('.env', path.join(root, 'innocent.txt'));
  fs.symlinkSync('ok.txt', path.join(root, 'alias.txt'));
  fs.mkdirSync(path.join(root, 'sub'));
  fs.symlinkSync('../innocent.txt', path.join(root, 'sub', 'again.md'));
  for (let i = 1; i <= 70; i++) fs.symlinkSync(i === 70 ? '.env' : `long${i + 1}`, path.join(root, `long${i}`));
  fs.symlinkSync('loopB', path.join(root, 'loopA'));
  fs.symlinkSync('loopA', path.join(root, 'loopB'));
  fs.symlinkSync('missing-target', path.join(root, 'dangling'));
  const read = async (file_path: string) => (await secretReadGuard({ tool_name: 'Read', tool_input: { file_path }, cwd: root })).exitCode ?? 0;
  assert.is(await read('innocent.txt'), 2);
  assert.is(await read(path.join(root, 'innocent.txt')), 2, 'absolute path');
  assert.is(await read('sub/again.md'), 2, 'two links deep');
  assert.is(await read('long1'), 2, 'a chain longer than the bound is refused');
  assert.is(await read('long40'), 2, 'a chain within the bound is followed to .env');
  assert.is(await read('loopA'), 2, 'a loop is refused: it cannot be read anyway');
  assert.is(await read('alias.txt'), 0, 'a link to an ordinary file');
  assert.is(await read('dangling'), 0, 'a dangling link names nothing secret');
  assert.is(await read('nowhere/at/all.txt'), 0);
  assert.is((await checkCommand('cat sub/again.md', 'bash', { cwd: root })).length, 1);
  assert.is((await checkCommand('head sub/*.md', 'bash', { cwd: root })).length, 1, 'a glob that expands to a link');
  assert.is((await checkCommand('Get-Content sub\\again.md', 'powershell', { cwd: root })).length, 1);
});

s('should keep the default patterns whatever a project configures, and add the project\'s own', async () => {
  const schema = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', 'secret-patterns.schema.json'), 'utf8')) as object;
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  assert.ok(validate(patternsJson), JSON.stringify(validate.errors));
  const config = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', '..', 'schemas', 'config.schema.json'), 'utf8'));
  const key = config.properties.security.properties.secret_patterns;
  assert.equal(key.default, []);
  assert.ok(key.description.length > 20);
  const hostile = project({
    '.planning/config.json': JSON.stringify({ security: { secret_patterns: ['!.env', '*.vault', '', 42, '(a+)+$'], secret_exempt: ['.env'] } }),
    '.env': 'K=1\n',
    'prod.vault': 'x\n',
  });
  const bashCall = (command: string) => secretReadGuard({ tool_name: 'Bash', tool_input: { command }, cwd: hostile });
  assert.is((await bashCall('cat .env')).exitCode, 2, 'a project cannot exempt .env');
  assert.is((await bashCall('cat prod.vault')).exitCode, 2, 'a project pattern is added');
  assert.is((await bashCall('cat README.md')).exitCode, 0);
  assert.is((await secretReadGuard({ tool_name: 'Read', tool_input: { file_path: 'x.vault' }, cwd: hostile })).exitCode, 2);
});

s('should match patterns in time linear in the text, whatever the pattern', () => {
  const p = new SecretPatterns(['*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b', '[[[[[[[[', '****************************x']);
  const word = literal('a'.repeat(3000));
  const started = Date.now();
  assert.is(p.wordMatch(word), null);
  assert.is(p.textMatch(`${'a'.repeat(5000)} ${'y '.repeat(2000)}`), null);
  assert.ok(Date.now() - started < 20_000, 'no backtracking blow-up');
  assert.is(p.pathMatch(`dir/${'a'.repeat(15)}b`), '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b');
});

s('should refuse what it cannot check: an oversized command, a parse it gives up on', async () => {
  const huge = `cat ${'notes.txt '.repeat(30_000)}`;
  assert.match((await checkCommand(huge, 'bash')).join(' '), /too long to check/);
  assert.match((await checkCommand(`cat ${'a'.repeat(300_000)} .env`, 'bash')).join(' '), /too long to check/);
  assert.equal(await checkCommand(`echo ${'word '.repeat(2000)}`, 'bash'), [], 'a long harmless command passes');
  assert.match((await checkCommand("cat '.env", 'bash')).join(' '), /does not parse here/);
});

s('should keep the old exports: isSecretPath and bashReadsSecret', async () => {
  for (const p of ['.env', 'app/.env', '.env.local', '.secrets', '/x/.secrets.json', 'C:\\app\\.ENV', '~/.ssh/id_rsa', 'k8s/service-account-ci.json']) assert.ok(isSecretPath(p), p);
  for (const p of ['.env.example', '.env.sample', 'env.ts', '.environment', 'src/.envrc.md', 'dotenv.js', '.env/bin/activate', 'id_rsa.pub']) assert.not.ok(isSecretPath(p), p);
  assert.ok(defaultPatterns().pathMatch('.env.production'));
  assert.is(await bashReadsSecret('echo "add .env to .gitignore"'), null);
  assert.match((await bashReadsSecret('cat .env | grep DB')) ?? '', /\.env/);
});

s('should run as the bundled hook: parsers embedded, answers in time, crashes refused', async () => {
  const files = await bundle();
  const hookFile = path.join(files, 'hooks', `${ID}.cjs`);
  const size = fs.statSync(hookFile).size;
  assert.ok(size > 500_000, 'the grammars are inside the secret guard');
  const others = fs.readdirSync(path.join(files, 'hooks')).filter((f) => f !== `${ID}.cjs`);
  for (const f of others) {
    const text = fs.readFileSync(path.join(files, 'hooks', f), 'utf8');
    assert.not.ok(text.includes('inflateRawSync') || text.length > 300_000, `${f} carries no parser (${text.length} bytes)`);
  }
  const root = corpusProject();
  const call = (tool_name: string, tool_input: Record<string, unknown>, extra: Record<string, unknown> = {}) => hook({ hook_event_name: 'PreToolUse', tool_name, tool_input, cwd: root, ...extra });
  let r = await call('Bash', { command: 'cat .env' });
  assert.is(r.code, 2);
  assert.is(r.json.hookSpecificOutput.permissionDecision, 'deny');
  assert.match(r.stderr, /GSD secret guard: this command is blocked: cat is given \.env/);
  const times: number[] = [];
  for (const command of ['npm test', 'git status && git diff --stat', 'cp .env.example .env', 'grep -r TODO src/']) {
    r = await call('Bash', { command });
    assert.is(r.code, 0, command);
    assert.is(r.stdout, '');
    times.push(r.ms);
  }
  r = await call('Bash', { command: "f=.env; bash -c 'cat \"$1\"' _ $f" });
  assert.is(r.code, 2, 'nested shells in the bundle');
  r = await call('Bash', { command: 'cat innocent.txt' });
  assert.is(r.code, 2, 'a link, resolved in the bundle');
  r = await call('Read', { file_path: 'docs/notes.md' });
  assert.is(r.code, 2);
  r = await call('Bash', { command: "Get-Content -LiteralPath '.env'" }, { toolName: 'powershell' });
  assert.is(r.code, 2, `PowerShell grammar in the bundle: ${r.stderr}`);
  r = await call('Bash', { command: 'Get-Content README.md' }, { toolName: 'powershell' });
  assert.is(r.code, 0);
  // Copilot CLI's own payload, through --runtime.
  r = await hook({ toolName: 'powershell', toolArgs: JSON.stringify({ command: 'gc .env' }), cwd: root }, { args: ['--runtime', 'copilot'] });
  assert.ok(r.code === 2 || /deny/.test(r.stdout), `copilot: ${r.stdout} ${r.stderr}`);
  // A crash inside the guard (nesting deeper than the stack) is a refusal, not a pass.
  const deep = `echo ${'$(echo '.repeat(3000)}hi${')'.repeat(3000)}`;
  r = await call('Bash', { command: deep });
  assert.is(r.code, 2);
  assert.match(r.stderr, /policy is to block/);
  r = await hook(null, { stdin: '{not json' });
  assert.is(r.code, 2);
  console.log(`secret guard hook: ${(size / 1024).toFixed(0)} KiB; wall time per Bash call ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
});

s.run();
