// gsd-check-update (SessionStart). The passive update check: the hook reads
// the cached answer, tells the agent in one line when a newer GSD release is
// out, and, when the answer is older than its time to live, starts a detached
// worker (this same script with --update-worker, no stdio) and returns at
// once; the session never waits for the network. The worker asks the
// registry npm is configured with (npm_config_registry, else `npm config get
// registry` run in the home folder, so a cloned project's .npmrc cannot pick
// it) for the package's dist-tag (../update-check.json), reads at most
// maxBytes within timeoutMs, follows at most maxRedirects, and caches what it
// found (lib/update.ts). Any failure (offline, a timeout, an oversized or
// malformed answer, a version that is not SemVer, a redirect loop) is cached
// as a failed check with no newer version, retried after retryHours. Off with
// GSD_NO_UPDATE_CHECK=1, npm's offline mode, or hooks.update_check false in
// the project's .planning/config.json. Crash policy: allow.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { advise, allow, projectRoot, runHook, writeJsonFile, type HookAnswer, type HookInput } from './lib/hook.ts';
import { cappedBody } from './lib/capped-body.ts';
import { cachedUpdate, cacheFile, disabledBy, isFresh, isNewer, readCache, readRelease, SETTINGS, version, type CacheRecord, type Release, type UpdateSettings } from './lib/update.ts';

type Env = Record<string, string | undefined>;

export const WORKER_FLAG = '--update-worker';

export interface HookOptions {
  hooksDir: string;
  env?: Env;
  now?: number;
  /** Starts the worker; the default spawns this script detached. */
  startWorker?: () => void;
  settings?: UpdateSettings;
}

/** Takes the check's lock (O_EXCL), replacing one left by a crashed worker; false when another check is running. */
export function takeLock(file: string, nowMs: number, staleMs: number): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      let mtime: number;
      try {
        mtime = fs.lstatSync(file).mtimeMs;
      } catch {
        continue;
      }
      if (nowMs - mtime < staleMs) return false;
      try {
        fs.unlinkSync(file);
      } catch {
        return false;
      }
    }
  }
  return false;
}

export function checkUpdateHook(input: HookInput, opts: HookOptions): HookAnswer {
  const env = opts.env ?? process.env;
  const settings = opts.settings ?? SETTINGS;
  const root = projectRoot(typeof input.cwd === 'string' ? input.cwd : undefined);
  if (disabledBy(env, root, settings)) return allow();
  const release = readRelease(opts.hooksDir);
  if (!release) return allow();
  const file = cacheFile(opts.hooksDir, env);
  const record = readCache(file);
  const now = opts.now ?? Date.now();
  if (!isFresh(record, release, now, settings)) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      if (takeLock(`${file}.lock`, now, settings.lockStaleMs)) (opts.startWorker ?? (() => startWorker(env)))();
    } catch {
      // no cache folder, no check: the session goes on
    }
  }
  const latest = cachedUpdate(record, release);
  if (!latest) return allow();
  const how = release.updateCommand ? `; ${release.updateCommand} installs it` : '';
  return advise('SessionStart', `GSD ${latest} is out (installed: ${release.version})${how}. Mention it to the user once, briefly, when it fits; do not act on it unasked.`);
}

/** This script again, detached, with no stdio: the hook's process and its pipes end now, the worker goes on alone. */
function startWorker(env: Env): void {
  const script = typeof __filename === 'string' ? __filename : null;
  if (!script) return;
  const child = spawn(process.execPath, [script, WORKER_FLAG], { detached: true, stdio: 'ignore', env: env as NodeJS.ProcessEnv, cwd: os.homedir(), windowsHide: true });
  child.on('error', () => undefined);
  child.unref();
}

// ------------------------------------------------------------------ worker

export interface WorkerOptions {
  hooksDir: string;
  env?: Env;
  now?: () => number;
  settings?: UpdateSettings;
  /** The registry npm is configured with; the default asks npm. */
  npmRegistry?: () => Promise<string | null>;
}

/** npm's registry, from the environment npm sets for its children, else from npm itself (in the home folder). */
export function npmRegistry(env: Env, timeoutMs: number): Promise<string | null> {
  const fromEnv = env.npm_config_registry ?? env.NPM_CONFIG_REGISTRY;
  if (fromEnv) return Promise.resolve(fromEnv);
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['config', 'get', 'registry'],
      { cwd: os.homedir(), env: env as NodeJS.ProcessEnv, timeout: timeoutMs, maxBuffer: 4096, windowsHide: true, shell: process.platform === 'win32' },
      (error, stdout) => resolve(error ? null : String(stdout).trim() || null),
    );
  });
}

/** The dist-tag's manifest URL under the registry; null for a registry that is not an http(s) URL without credentials. */
export function manifestUrl(registry: string, pkg: string, tag: string): URL | null {
  let base: URL;
  try {
    base = new URL(registry.endsWith('/') ? registry : `${registry}/`);
  } catch {
    return null;
  }
  if ((base.protocol !== 'https:' && base.protocol !== 'http:') || base.username || base.password) return null;
  base.search = '';
  base.hash = '';
  return new URL(`${pkg.replace('/', '%2f')}/${tag}`, base);
}

class CheckFailed extends Error {}

/**
 * One GET with a budget for the whole exchange: at most maxRedirects
 * redirects (to http or https only), a body read chunk by chunk and dropped
 * past maxBytes whatever Content-Length says, everything within timeoutMs.
 */
export async function boundedGet(url: URL, settings: Pick<UpdateSettings, 'timeoutMs' | 'maxBytes' | 'maxRedirects'>, fetchImpl: typeof fetch = globalThis.fetch): Promise<string> {
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let at = url;
  for (let hop = 0; ; hop++) {
    const res = await fetchImpl(at, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => undefined);
      const location = res.headers.get('location');
      if (!location) throw new CheckFailed(`HTTP ${res.status} without a location`);
      if (hop >= settings.maxRedirects) throw new CheckFailed(`more than ${settings.maxRedirects} redirects`);
      const next = new URL(location, at);
      if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new CheckFailed(`a redirect to ${next.protocol}`);
      at = next;
      continue;
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new CheckFailed(`expected HTTP 200, found ${res.status}`);
    }
    const body = await cappedBody(res, settings.maxBytes);
    if (body === null) throw new CheckFailed(`an answer over ${settings.maxBytes} bytes`);
    return body;
  }
}

/** The dist-tag's version out of the manifest text, or why there is none. */
export function latestOf(text: string, settings: UpdateSettings = SETTINGS): { latest: string } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v) => (key === '__proto__' || key === 'constructor' ? undefined : v));
  } catch {
    return { problem: 'expected a JSON manifest, found malformed JSON' };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'expected a JSON object' };
  const v = (value as { version?: unknown }).version;
  if (!version(v, settings)) return { problem: `expected a SemVer "version", found ${typeof v === 'string' ? `${JSON.stringify(v.slice(0, 40))}${v.length > 40 ? '…' : ''}` : typeof v}` };
  return { latest: v as string };
}

/**
 * The worker: asks, and writes the record atomically (the old record stays
 * whole until the new one replaces it). Never throws; the lock goes at the end.
 */
export async function runCheck(opts: WorkerOptions, fetchImpl: typeof fetch = globalThis.fetch): Promise<CacheRecord | null> {
  const env = opts.env ?? process.env;
  const settings = opts.settings ?? SETTINGS;
  const now = opts.now ?? Date.now;
  const file = cacheFile(opts.hooksDir, env);
  try {
    const release: Release | null = readRelease(opts.hooksDir);
    if (!release) return null;
    let latest: string | null = null;
    let problem: string | undefined;
    try {
      const registry = await (opts.npmRegistry ?? (() => npmRegistry(env, settings.npmConfigTimeoutMs)))();
      const url = registry ? manifestUrl(registry, settings.package, settings.distTag) : null;
      if (!url) throw new CheckFailed(registry ? 'npm\'s registry is not an http(s) URL without credentials' : 'no npm registry configured (or npm not found)');
      const found = latestOf(await boundedGet(url, settings, fetchImpl), settings);
      if ('latest' in found) latest = found.latest;
      else problem = found.problem;
    } catch (error) {
      const e = error as Error;
      problem = e instanceof CheckFailed ? e.message : e?.name === 'TimeoutError' || e?.name === 'AbortError' ? `no answer within ${settings.timeoutMs} ms` : `network error (${String((e as { cause?: { code?: string; message?: string } })?.cause?.code ?? (e as { cause?: { message?: string } })?.cause?.message ?? e?.message ?? e).slice(0, 80)})`;
    }
    const record: CacheRecord = { checked_at: new Date(now()).toISOString(), installed: release.version, latest, update_available: isNewer(latest, release.version), ...(problem ? { problem } : {}) };
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeJsonFile(file, record);
    return record;
  } catch {
    return null;
  } finally {
    try {
      fs.unlinkSync(`${file}.lock`);
    } catch {
      // none, or taken over
    }
  }
}

if (typeof require !== 'undefined' && require.main === module) {
  const hooksDir = path.dirname(__filename);
  if (process.argv.includes(WORKER_FLAG)) {
    // A hard stop whatever hangs: the worker never outlives its budgets by much.
    setTimeout(() => process.exit(0), SETTINGS.timeoutMs + SETTINGS.npmConfigTimeoutMs + 2000).unref();
    void runCheck({ hooksDir }).finally(() => process.exit(0));
  } else void runHook('gsd-check-update', 'allow', (input) => checkUpdateHook(input, { hooksDir }));
}
