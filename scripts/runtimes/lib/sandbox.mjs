// Fresh fake homes and projects, and runs with no network but loopback.
//
// Every program runs inside `unshare -n -p -f`: a new network namespace whose
// only interface is loopback, so "offline" is enforced, not assumed, and a
// new PID namespace, so nothing it starts outlives the run. A program that
// insists on a model provider gets a base URL on 127.0.0.1; where a listing is
// only visible in the request a program would send, a stub server started
// inside the same namespace (fake-endpoint.mjs) records that request and
// answers with a one-word reply. Nothing leaves the machine.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FAKE_ENDPOINT = fileURLToPath(new URL('./fake-endpoint.mjs', import.meta.url));

// Runs in the namespace: loopback up, the optional stub, then the program.
const WRAPPER = `
ip link set lo up || { echo "gsd-runtime-tests: cannot bring up loopback in the network namespace" >&2; exit 97; }
stub_config="$1"; ready="$2"; shift 2
stub=
if [ -n "$stub_config" ]; then
  "$GSD_STUB_NODE" "$GSD_STUB_SCRIPT" "$stub_config" </dev/null >/dev/null 2>&1 &
  stub=$!
  i=0
  while [ ! -e "$ready" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
fi
unset GSD_STUB_NODE GSD_STUB_SCRIPT
"$@"
rc=$?
[ -n "$stub" ] && kill "$stub" 2>/dev/null
exit $rc
`;

let isolation;
/** The command prefix that isolates the network, or throws saying why none works. */
export function networkIsolation() {
  if (isolation) return isolation;
  // -p -f: a PID namespace too, so a daemon a program leaves behind (Cline's hub) ends with the run.
  for (const prefix of [['unshare', '-n', '-p', '-f'], ['unshare', '-r', '-n', '-p', '-f']]) {
    const probe = spawnSync(prefix[0], [...prefix.slice(1), 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
    if (probe.status === 0) return (isolation = prefix);
  }
  throw new Error(
    'cannot run the programs offline: `unshare -n -p -f` (root) and `unshare -r -n -p -f` (user namespaces) both failed, and `ip` must exist (iproute2). The suite does not run programs with network access.',
  );
}

/** A fresh folder with home/, project/ (a git repository) and tmp/. */
export function makeSandbox(parent, name) {
  const dir = mkdtempSync(path.join(parent, `${name}-`));
  const home = path.join(dir, 'home');
  const project = path.join(dir, 'project');
  const tmp = path.join(dir, 'tmp');
  for (const d of [home, project, tmp]) mkdirSync(d, { recursive: true });
  const git = spawnSync('git', ['init', '-q', project], { encoding: 'utf8' });
  if (git.status !== 0) throw new Error(`git init ${project} failed: ${git.stderr}`);
  return { dir, home, project, tmp };
}

/**
 * Lays a built bundle (a tree laid out relative to home or project) into place:
 * the files its gsd-file-manifest.json lists (not the manifest and README.txt
 * beside them), or the whole tree when there is no manifest.
 */
export function layBundle(bundleDir, dest) {
  if (!existsSync(bundleDir)) throw new Error(`no bundle at ${bundleDir}`);
  const manifest = path.join(bundleDir, 'gsd-file-manifest.json');
  if (!existsSync(manifest)) {
    cpSync(bundleDir, dest, { recursive: true });
    return;
  }
  for (const { path: file } of JSON.parse(readFileSync(manifest, 'utf8')).files) {
    mkdirSync(path.dirname(path.join(dest, file)), { recursive: true });
    cpSync(path.join(bundleDir, file), path.join(dest, file));
  }
}

export function removeSandbox(box) {
  rmSync(box.dir, { recursive: true, force: true });
}

function baseEnv(box, extra) {
  return {
    PATH: process.env.PATH,
    HOME: box.home,
    USER: process.env.USER ?? 'gsd',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: box.tmp,
    ...extra,
  };
}

function spawnOffline(argv, { box, cwd, env = {}, stub }) {
  const ready = path.join(box.tmp, `stub-${process.hrtime.bigint()}.ready`);
  const stubConfig = stub ? JSON.stringify({ ...stub, ready }) : '';
  const prefix = networkIsolation();
  return spawn(prefix[0], [...prefix.slice(1), 'bash', '-c', WRAPPER, 'gsd-offline', stubConfig, ready, ...argv], {
    cwd: cwd ?? box.project,
    env: { ...baseEnv(box, env), GSD_STUB_NODE: process.execPath, GSD_STUB_SCRIPT: FAKE_ENDPOINT },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/**
 * Runs one program to completion. Resolves { code, stdout, stderr, ms, timedOut }.
 * `input` is written to stdin, which is then closed.
 */
export function runOffline(argv, { box, cwd, env, input = '', timeoutMs = 60_000, stub } = {}) {
  const started = Date.now();
  const child = spawnOffline(argv, { box, cwd, env, stub });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.on('error', () => {});
  child.stdin.end(input);
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

/**
 * Starts a program that speaks newline-delimited JSON on stdio (JSON-RPC,
 * ACP, stream-json). `send` writes one message; `waitFor(pred)` resolves with
 * the first message (already received or still to come) that matches.
 */
export function startSession(argv, { box, cwd, env, timeoutMs = 60_000, stub } = {}) {
  const started = Date.now();
  const child = spawnOffline(argv, { box, cwd, env, stub });
  const messages = [];
  const waiters = [];
  let stderr = '';
  let rawStdout = '';
  let buffer = '';
  let exited = null;
  child.stdin.on('error', () => {});
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => {
    rawStdout += d;
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('{')) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      messages.push(message);
      for (const waiter of [...waiters]) {
        if (waiter.pred(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          clearTimeout(waiter.timer);
          waiter.resolve(message);
        }
      }
    }
  });
  const hardTimer = setTimeout(() => killGroup(child), timeoutMs);
  const done = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(hardTimer);
      exited = { code: code ?? signal, ms: Date.now() - started };
      for (const waiter of waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`${waiter.what}: the program exited (${exited.code}) first; stderr: ${tail(stderr)}`));
      }
      resolve({ ...exited, stderr, stdout: rawStdout, messages });
    });
  });
  let nextId = 0;
  const session = {
    messages,
    get stderr() {
      return stderr;
    },
    send(message) {
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
    waitFor(pred, what = 'a reply', ms = 30_000) {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      if (exited) return Promise.reject(new Error(`${what}: the program exited (${exited.code}) first; stderr: ${tail(stderr)}`));
      return new Promise((resolve, reject) => {
        const waiter = { pred, resolve, reject, what };
        waiter.timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`${what}: no reply in ${ms / 1000} s; stderr: ${tail(stderr)}`));
        }, ms);
        waiters.push(waiter);
      });
    },
    /** JSON-RPC 2.0 request; resolves with the response message. */
    async request(method, params, ms) {
      const id = ++nextId;
      session.send({ jsonrpc: '2.0', id, method, params });
      return session.waitFor((m) => m.id === id && ('result' in m || 'error' in m), `${method}`, ms);
    },
    notify(method, params) {
      session.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
    },
    /** Closes stdin and waits; kills the program if it lingers. */
    async close(graceMs = 3000) {
      child.stdin.end();
      const timer = setTimeout(() => killGroup(child), graceMs);
      const result = await done;
      clearTimeout(timer);
      return result;
    },
    kill() {
      killGroup(child);
      return done;
    },
    done,
  };
  return session;
}

/** Requests the stub recorded (one JSON object per request). */
export function stubRequests(logFile) {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const entry = JSON.parse(line);
      try {
        entry.json = JSON.parse(entry.body);
      } catch {
        entry.json = null;
      }
      return entry;
    });
}

export function tail(text, lines = 4) {
  return text.trim().split('\n').slice(-lines).join(' | ').slice(0, 600);
}
