// Cline's hook dispatcher (source/hooks/cline-dispatcher.ts): the per-event
// files a Cline bundle holds, installed into a scratch project inside a
// "type": "module" package and run as Cline runs them (the file itself, from
// another working directory, a Cline payload on stdin), and the dispatcher's
// own rules on a stand-in for the hook processes.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { formatDiagnostic } from '../../../compiler/diagnostics.ts';
import { compile, emitBundles, REPO_ROOT, type Compiled } from '../../../compiler/pipeline.ts';
import { tmpDir } from '../../runtime/test/helpers.ts';
import { answerOfRun, BUDGET_MS, dispatch, type DispatchedHook, type HookRun } from '../cline-dispatcher.ts';

const s = suite('cline dispatcher');

let compiled: Compiled;

s.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
});

/** A Cline bundle written into a fresh project (local scope), with a secret and a readme beside it. */
function installLocal(): string {
  const { bundles, diagnostics } = emitBundles(compiled, [{ target: 'cline', scope: 'local' }]);
  assert.equal(diagnostics.map((d) => formatDiagnostic(d)), []);
  const project = tmpDir('gsd-cline-dispatch-');
  for (const [file, entry] of bundles.get('cline/local')!) {
    const target = path.join(project, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, entry.contents, entry.executable ? { mode: 0o755 } : {});
  }
  fs.mkdirSync(path.join(project, '.planning'), { recursive: true });
  fs.writeFileSync(path.join(project, '.env'), 'SECRET=1\n');
  fs.writeFileSync(path.join(project, 'README.md'), '# project\n');
  fs.writeFileSync(path.join(project, 'todo.txt'), 'one\n');
  // Node loads an extensionless file inside a "type": "module" package as an ES module.
  fs.writeFileSync(path.join(project, 'package.json'), '{ "type": "module" }\n');
  return project;
}

const preToolUse = (project: string, toolName: string, parameters: Record<string, unknown>) => ({
  clineVersion: '3.40.0',
  hookName: 'PreToolUse',
  timestamp: '1',
  taskId: 'task-1',
  workspaceRoots: [project],
  userId: 'u',
  preToolUse: { toolName, parameters },
});

/** Runs an event file as Cline does, from a working directory that is not the project; Cline's reply. */
function runEvent(project: string, event: string, payload: unknown): { cancel?: boolean; errorMessage?: string; contextModification?: string } {
  const run = spawnSync(path.join(project, '.clinerules', 'hooks', event), { cwd: tmpDir('gsd-cline-cwd-'), input: JSON.stringify(payload), encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: tmpDir('gsd-cline-home-') }, timeout: 60_000 });
  assert.is(run.status, 0, `${event}: exit ${run.status}, stderr ${run.stderr}`);
  const lines = run.stdout.trim().split('\n');
  assert.is(lines.length, 1, `one reply line: ${run.stdout}`);
  return JSON.parse(lines[0]!) as { cancel?: boolean; errorMessage?: string; contextModification?: string };
}

/** Replaces an installed hook script with one that crashes on start (node exits 1). */
function crash(project: string, id: string): void {
  fs.writeFileSync(path.join(project, '.cline', 'hooks', `${id}.cjs`), "throw new Error('hook crashed');\n");
}

s('should write each event file as a launcher of the bundled dispatcher, which only Cline bundles carry', () => {
  const { bundles } = emitBundles(compiled, [{ target: 'cline', scope: 'local' }, { target: 'cline', scope: 'global' }, { target: 'claude', scope: 'local' }]);
  const imports: Record<string, [string, string]> = { 'cline/local': ['.clinerules/hooks/PreToolUse', '.cline/hooks/gsd-cline-dispatcher.cjs'], 'cline/global': ['.cline/hooks/PreToolUse', '.cline/hooks/gsd-cline-dispatcher.cjs'] };
  for (const [key, [launcher, dispatcher]] of Object.entries(imports)) {
    const tree = bundles.get(key)!;
    const text = String(tree.get(launcher)?.contents ?? '');
    assert.ok(tree.get(launcher)?.executable, `${key}: ${launcher} is executable`);
    assert.ok(text.split('\n').length < 60, `${key}: the launcher is short (${text.split('\n').length} lines)`);
    assert.not.match(text, /\brequire\(|__dirname|import\.meta/, `${key}: nothing only one module system has`);
    const specifier = /import\("([^"]+)"\)/.exec(text)?.[1];
    assert.is(specifier && path.posix.join(path.posix.dirname(launcher), specifier), dispatcher, `${key}: the launcher loads the dispatcher the bundle holds`);
    assert.ok(tree.get(dispatcher)?.generated, `${key}: ${dispatcher} is built code`);
    assert.match(text, /"failClosed": true/, `${key}: the secret guard's crash policy travels as data`);
  }
  assert.not.ok([...bundles.get('claude/local')!.keys()].some((file) => file.includes('cline-dispatcher')), 'no other runtime ships it');
});

s('should let an ordinary read through and refuse a secret read, as Cline asks', () => {
  const project = installLocal();
  const plain = runEvent(project, 'PreToolUse', preToolUse(project, 'read_file', { path: path.join(project, 'README.md') }));
  assert.equal(plain, { cancel: false });
  const secret = runEvent(project, 'PreToolUse', preToolUse(project, 'read_file', { path: path.join(project, '.env') }));
  assert.is(secret.cancel, true);
  assert.match(secret.errorMessage ?? '', /\.env/);
  // The CLI's read_files sends its list as JSON text: each file is checked.
  const several = runEvent(project, 'PreToolUse', preToolUse(project, 'read_files', { files: JSON.stringify([{ path: path.join(project, 'README.md') }, { path: path.join(project, '.env') }]) }));
  assert.is(several.cancel, true, 'the secret among several files is refused');
});

s('should block when a hook set to block cannot run, and let the call through when an allow-policy hook crashes', () => {
  const project = installLocal();
  // The read guard (crash policy allow) advises on an edit of a file not read first.
  const edit = preToolUse(project, 'write_to_file', { path: path.join(project, 'todo.txt'), content: 'two\n' });
  assert.match(runEvent(project, 'PreToolUse', edit).contextModification ?? '', /GSD read guard/);
  crash(project, 'gsd-read-guard');
  assert.equal(runEvent(project, 'PreToolUse', edit), { cancel: false }, 'a crashed allow-policy hook lets the call through');
  crash(project, 'gsd-secret-read-guard');
  const read = runEvent(project, 'PreToolUse', preToolUse(project, 'read_file', { path: path.join(project, 'README.md') }));
  assert.is(read.cancel, true, 'a crashed deny-policy hook refuses even an ordinary read');
  assert.match(read.errorMessage ?? '', /gsd-secret-read-guard could not run \(exit 1\) and is set to block/);
});

s('should refuse when the dispatcher is missing or the payload unreadable and a hook is set to block, and pass otherwise', () => {
  const project = installLocal();
  const broken = spawnSync(path.join(project, '.clinerules', 'hooks', 'PreToolUse'), { input: '{"hookName": "PreToolUse", ', encoding: 'utf8', timeout: 60_000 });
  assert.is(JSON.parse(broken.stdout).cancel, true, `a cut-off payload: ${broken.stdout}`);
  fs.rmSync(path.join(project, '.cline', 'hooks', 'gsd-cline-dispatcher.cjs'));
  const pre = JSON.parse(spawnSync(path.join(project, '.clinerules', 'hooks', 'PreToolUse'), { input: '{}', encoding: 'utf8' }).stdout) as { cancel: boolean; errorMessage: string };
  assert.is(pre.cancel, true);
  assert.match(pre.errorMessage, /dispatcher could not be loaded/);
  const post = JSON.parse(spawnSync(path.join(project, '.clinerules', 'hooks', 'PostToolUse'), { input: '{}', encoding: 'utf8' }).stdout) as unknown;
  assert.equal(post, { cancel: false }, 'PostToolUse holds no hook set to block');
});

// The dispatcher's rules, on a stand-in for the hook processes.

const guard: DispatchedHook = { id: 'guard', matcher: 'Read|Bash', timeout: 10, failClosed: true, command: 'guard' };
const advisor: DispatchedHook = { id: 'advisor', matcher: 'Write|Edit', timeout: 5, command: 'advisor' };

s('should translate Cline\'s call into one Claude Code input per command, matched by the Claude Code tool name', () => {
  const seen: { id: string; input: Record<string, unknown>; cwd: string; timeoutMs: number }[] = [];
  const run = (hook: DispatchedHook, input: string, cwd: string, timeoutMs: number): HookRun => {
    seen.push({ id: hook.id, input: JSON.parse(input) as Record<string, unknown>, cwd, timeoutMs });
    return { status: 0, stdout: '' };
  };
  const reply = dispatch({ PreToolUse: [guard, advisor] }, JSON.stringify(preToolUse('/p', 'run_commands', { commands: '["ls", "cat .env"]' })), true, run);
  assert.equal(reply, { cancel: false });
  assert.equal(seen.map((call) => [call.id, call.input['tool_name'], (call.input['tool_input'] as Record<string, unknown>)['command'], call.input['hook_event_name'], call.input['session_id'], call.cwd, call.timeoutMs]), [
    ['guard', 'Bash', 'ls', 'PreToolUse', 'task-1', '/p', 10_000],
    ['guard', 'Bash', 'cat .env', 'PreToolUse', 'task-1', '/p', 10_000],
  ]);
  // TaskStart is Claude Code's SessionStart; the prompt of UserPromptSubmit becomes `prompt`.
  const inputs: Record<string, unknown>[] = [];
  const record = (_hook: DispatchedHook, input: string): HookRun => (inputs.push(JSON.parse(input) as Record<string, unknown>), { status: 0, stdout: '' });
  const any: DispatchedHook = { id: 'any', timeout: 10, command: 'any' };
  dispatch({ TaskStart: [any] }, JSON.stringify({ hookName: 'TaskStart', taskId: 't', taskStart: {} }), true, record);
  dispatch({ UserPromptSubmit: [any] }, JSON.stringify({ hookName: 'UserPromptSubmit', userPromptSubmit: { prompt: 'plan phase 2' } }), true, record);
  assert.equal(inputs.map((input) => [input['hook_event_name'], input['prompt']]), [['SessionStart', undefined], ['UserPromptSubmit', 'plan phase 2']]);
});

s('should fold every refusal and every advice into Cline\'s reply', () => {
  const answers: Record<string, HookRun> = {
    guard: { status: 2, stderr: 'no secrets\n' },
    advisor: { status: 0, stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'read it first' } }) },
    blocker: { status: 0, stdout: JSON.stringify({ decision: 'block', reason: 'not now' }) },
  };
  const run = (hook: DispatchedHook): HookRun => answers[hook.id]!;
  const all: DispatchedHook[] = [{ ...guard, matcher: 'Write' }, advisor, { id: 'blocker', timeout: 10, command: 'b' }];
  const write = JSON.stringify(preToolUse('/p', 'write_to_file', { path: 'a.md', content: 'x' }));
  assert.equal(dispatch({ PreToolUse: all }, write, true, run), { cancel: true, errorMessage: 'no secrets\nnot now', contextModification: 'read it first' });
  assert.equal(dispatch({ PreToolUse: [advisor] }, write, true, run), { cancel: false, contextModification: 'read it first' });
  assert.equal(dispatch({ PreToolUse: [advisor] }, JSON.stringify(preToolUse('/p', 'read_file', { path: 'a.md' })), true, run), { cancel: false }, 'the matcher names no Read');
});

s('should treat a hook that did not answer by its failClosed mark, and keep every call inside Cline\'s budget', () => {
  for (const run of [{ status: null, signal: 'SIGTERM' }, { status: 1 }, { status: 0, stdout: 'not json' }, { status: null, error: new Error('spawn failed') }] as HookRun[]) {
    assert.is(answerOfRun(run, guard).exitCode, 2, JSON.stringify(run));
    assert.is(answerOfRun(run, advisor).exitCode, 0, JSON.stringify(run));
  }
  // The budget is spent by the first hook: the guard after it could not run, so the call is refused.
  let clock = 0;
  const slow: DispatchedHook = { id: 'slow', timeout: 30, command: 'slow' };
  const timeouts: number[] = [];
  const run = (_hook: DispatchedHook, _input: string, _cwd: string, timeoutMs: number): HookRun => {
    timeouts.push(timeoutMs);
    clock += timeoutMs;
    return { status: 0, stdout: '' };
  };
  const reply = dispatch({ PreToolUse: [slow, guard] }, JSON.stringify(preToolUse('/p', 'read_file', { path: 'a' })), true, run, () => clock);
  assert.equal(timeouts, [BUDGET_MS], 'the slow hook gets what is left of the budget, not its 30 s');
  assert.is(reply['cancel'], true);
  assert.match(String(reply['errorMessage']), /guard could not run/);
});

s.run();
