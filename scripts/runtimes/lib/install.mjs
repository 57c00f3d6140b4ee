// Pinned installs of the runtimes' programs, cached outside the repository.
// Each package lands in <cache>/<key>@<version>/ through `npm install --prefix`;
// it is installed into <dir>.partial first and renamed when npm succeeds, so a
// folder that exists is a complete install and is reused as it is.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CACHE_ROOT =
  process.env.GSD_RUNTIMES_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'gsd-build-runtimes');

/** Where a pinned package lives: { key, name, version } → folder. */
export function packageDir(pkg) {
  return path.join(CACHE_ROOT, `${pkg.key}@${pkg.version}`);
}

/** The installed package's own folder (node_modules/<name>). */
export function packageRoot(pkg) {
  return path.join(packageDir(pkg), 'node_modules', ...pkg.name.split('/'));
}

function npm(args, { cwd, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, out: `${out}${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal ? `killed after ${timeoutMs / 1000} s` : code, out });
    });
  });
}

function installedVersion(pkg) {
  try {
    return JSON.parse(readFileSync(path.join(packageRoot(pkg), 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/**
 * Makes sure a pinned package is in the cache. Returns { ok, cached, message }.
 * A missing package needs the registry; when it cannot be reached the result
 * says so (the suite then fails: it never passes without the program).
 */
export async function ensurePackage(pkg, log = () => {}) {
  const dir = packageDir(pkg);
  if (existsSync(dir)) {
    const version = installedVersion(pkg);
    if (version === pkg.version) return { ok: true, cached: true, message: `cached ${dir}` };
    return { ok: false, cached: true, message: `${dir} holds ${pkg.name} ${version ?? '(nothing)'}, expected ${pkg.version}; delete the folder to reinstall` };
  }
  mkdirSync(CACHE_ROOT, { recursive: true });
  const spec = `${pkg.name}@${pkg.version}`;
  // Ask the registry first, so an unreachable registry is reported as such, not as an install error.
  const view = await npm(['view', spec, 'version', '--fetch-retries=1', '--fetch-timeout=30000'], { cwd: CACHE_ROOT, timeoutMs: 90_000 });
  if (view.code !== 0 || view.out.trim().split('\n').pop().trim() !== pkg.version) {
    const lines = view.out.trim().split('\n');
    const reason = lines.find((line) => /ECONN|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|network|E404|404/i.test(line)) ?? lines.slice(-2).join(' | ');
    return {
      ok: false,
      cached: false,
      message: `${spec} is not in the cache and the npm registry could not provide it (npm view exited ${view.code}): ${reason.trim()}`,
    };
  }
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  log(`installing ${spec} into ${dir}`);
  // cwd is the cache root: `npm install cline` takes a folder named cline in the cwd for the package.
  const install = await npm(['install', '--prefix', partial, '--no-audit', '--no-fund', '--loglevel=error', spec], { cwd: CACHE_ROOT, timeoutMs: 600_000 });
  writeFileSync(`${partial}.log`, install.out);
  if (install.code !== 0) {
    return { ok: false, cached: false, message: `npm install ${spec} exited ${install.code} (log: ${partial}.log): ${install.out.trim().split('\n').slice(-3).join(' | ')}` };
  }
  renameSync(partial, dir);
  const version = installedVersion(pkg);
  if (version !== pkg.version) return { ok: false, cached: false, message: `npm installed ${pkg.name} ${version}, expected ${pkg.version}` };
  return { ok: true, cached: false, message: `installed ${dir}` };
}
