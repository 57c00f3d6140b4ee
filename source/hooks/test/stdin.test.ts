// Hooks never hang: a runtime that keeps the hook's stdin open (or trickles
// bytes into it forever) still gets an answer before the hook's registered
// timeout, and that answer is the hook's crash policy when no whole payload
// arrived. Runs the built hook processes, the way the runtimes do.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../../compiler/pipeline.ts';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { bundle, tmpDir } from '../../runtime/test/helpers.ts';
import { hookDeadlines, readStdin, registeredTimeout } from '../lib/hook.ts';
import { PassThrough } from 'node:stream';
import hooksJson from '../hooks.json' with { type: 'json' };

const s = suite('hook stdin deadline');

interface Outcome {
  code: number | null;
  killed: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Spawns a built hook and feeds it with `feed`; the stdin pipe is never closed. Killed at the hook's registered timeout. */
async function runOpen(id: string, feed: (stdin: NodeJS.WritableStream) => () => void, args: string[] = []): Promise<Outcome> {
  const file = path.join(await bundle(), 'hooks', `${id}.cjs`);
  const limitMs = (registeredTimeout(id) ?? 5) * 1000;
  const tmp = tmpDir();
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [file, ...args], { cwd: tmp, env: { PATH: process.env.PATH ?? '', TMPDIR: tmp }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => undefined);
    const stop = feed(child.stdin);
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      stop();
      resolve({ code, killed, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const silent = () => () => undefined;
const trickle = (stdin: NodeJS.WritableStream) => {
  const timer = setInterval(() => stdin.write(' '), 50);
  stdin.write('{"tool_name": "Read", "tool_input": {"file_path": ".env"');
  return () => clearInterval(timer);
};
const whole = (payload: unknown) => (stdin: NodeJS.WritableStream) => {
  stdin.write(JSON.stringify(payload));
  return () => undefined;
};

const hookIds = [...new Set((hooksJson as { id: string }[]).map((h) => h.id))];
const policyOf = (id: string) => (hooksJson as { id: string; crashPolicy: string }[]).find((h) => h.id === id)!.crashPolicy;

s(`should answer every one of the ${hookIds.length} hooks by its crash policy when stdin stays open and silent`, async () => {
  const outcomes = await Promise.all(hookIds.map((id) => runOpen(id, silent)));
  for (const [i, id] of hookIds.entries()) {
    const out = outcomes[i]!;
    assert.not.ok(out.killed, `${id} was still running at its registered timeout (${registeredTimeout(id)} s)`);
    if (policyOf(id) === 'deny') {
      assert.is(out.code, 2, `${id} (policy deny) exit code`);
      assert.match(out.stderr, /policy is to block: no payload arrived on stdin before the deadline/, id);
    } else assert.is(out.code, 0, `${id} (policy allow) exit code; stderr: ${out.stderr}`);
    assert.ok(out.ms < hookDeadlines(id).answerMs + 1000, `${id} answered after ${out.ms} ms`);
  }
  console.log(`  stdin left open: ${hookIds.length} hooks answered in ${Math.min(...outcomes.map((o) => o.ms))}-${Math.max(...outcomes.map((o) => o.ms))} ms (registered timeouts 5-10 s)`);
});

s('should deny by policy when the payload trickles in forever and never completes', async () => {
  const out = await runOpen('gsd-secret-read-guard', trickle);
  assert.not.ok(out.killed);
  assert.is(out.code, 2);
  assert.match(out.stderr, /policy is to block/);
});

s('should give the real answer at once when a whole payload arrives and the pipe stays open', async () => {
  const denied = await runOpen('gsd-secret-read-guard', whole({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '.env' } }));
  assert.is(denied.code, 2);
  assert.match(denied.stdout, /"permissionDecision":"deny"/);
  assert.not.match(denied.stderr, /policy is to block/, 'the guard itself answered, not the deadline');
  const allowed = await runOpen('gsd-secret-read-guard', whole({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'README.md' } }));
  assert.is(allowed.code, 0);
  // Both answered without waiting for the stdin deadline.
  assert.ok(denied.ms < hookDeadlines('gsd-secret-read-guard').stdinMs && allowed.ms < hookDeadlines('gsd-secret-read-guard').stdinMs, `${denied.ms} ms, ${allowed.ms} ms`);
});

s("should render the policy answer in the runtime's own terms", async () => {
  const out = await runOpen('gsd-secret-read-guard', silent, ['--runtime', 'cursor']);
  assert.not.ok(out.killed);
  assert.is(JSON.parse(out.stdout).permission, 'deny');
});

s('should report a stream cut by the deadline or the size cap as incomplete', async () => {
  const open = new PassThrough();
  open.write('{"a": 1');
  const cut = await readStdin(50, open);
  assert.equal(cut, { text: '{"a": 1', complete: false });
  const closed = new PassThrough();
  closed.end('{"a": 1}\n');
  assert.equal(await readStdin(1000, closed), { text: '{"a": 1}\n', complete: true });
  const big = new PassThrough();
  const read = readStdin(2000, big);
  for (let i = 0; i < 5; i++) big.write(Buffer.alloc(1024 * 1024, 0x20));
  assert.is((await read).complete, false);
});

s('should give stdin at most a third of the registered timeout and answer by four fifths', () => {
  for (const id of hookIds) {
    const { stdinMs, answerMs } = hookDeadlines(id);
    const timeoutMs = registeredTimeout(id)! * 1000;
    assert.ok(stdinMs <= timeoutMs / 3 && stdinMs <= 3000 && answerMs <= (timeoutMs * 4) / 5 && stdinMs < answerMs, id);
  }
});

s('should answer by the crash policy at four fifths of the timeout when the hook itself stalls after its payload arrived', async () => {
  // A hook stuck in its own work (a hung file system): the payload is whole and stdin closed, the handler never returns
  // and keeps the process alive. The watchdog answers by the policy and exits, before the runtime's timeout.
  const id = 'gsd-secret-read-guard';
  assert.is(policyOf(id), 'deny');
  const dir = tmpDir();
  const script = path.join(dir, 'stalled-hook.ts');
  const hookModule = pathToFileURL(path.join(REPO_ROOT, 'source/hooks/lib/hook.ts')).href;
  writeFileSync(script, `import { runHook } from ${JSON.stringify(hookModule)};\nawait runHook(${JSON.stringify(id)}, 'deny', () => new Promise(() => { setInterval(() => {}, 1000); }));\n`);
  const { answerMs } = hookDeadlines(id);
  const timeoutMs = registeredTimeout(id)! * 1000;
  const started = Date.now();
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(path.join(REPO_ROOT, 'compiler/bin/register.mjs')).href, script], {
    cwd: dir,
    input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'notes.md' } }),
    encoding: 'utf8',
    timeout: timeoutMs * 3,
  });
  const ms = Date.now() - started;
  assert.is(child.status, 2, child.stderr);
  assert.match(child.stderr, new RegExp(`GSD hook failed and its policy is to block: no answer within ${answerMs} ms`));
  // Never a claim about speed: only that the watchdog, not the end of the work, ended it (it never ends).
  assert.ok(ms >= answerMs, `answered after ${ms} ms, before its deadline of ${answerMs} ms`);
});

s.run();
