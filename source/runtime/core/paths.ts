// Where the project is, and keeping every path a user passes inside it.
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from './errors.ts';
import { isDir, readTextIfExists } from './fs.ts';
import { PLANNING } from '../planning/layout.ts';

const MAX_WALK = 12;

/**
 * The project root: the nearest ancestor of `start` (itself included) holding
 * a `.planning/` directory. Inside a linked git worktree that has no
 * `.planning/`, the main worktree is used, found by reading `.git` files
 * rather than spawning git. Null when no project is found.
 */
export function findProjectRoot(start: string): string | null {
  let dir = path.resolve(start);
  for (let i = 0; i < MAX_WALK; i++) {
    if (isDir(path.join(dir, PLANNING))) return dir;
    const main = mainWorktreeOf(dir);
    if (main && main !== dir && isDir(path.join(main, PLANNING))) return main;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

/** For a linked worktree (`.git` is a file), the main worktree's directory. */
export function mainWorktreeOf(dir: string): string | null {
  const dotGit = path.join(dir, '.git');
  let st: fs.Stats;
  try {
    st = fs.statSync(dotGit);
  } catch {
    return null;
  }
  if (!st.isFile()) return null;
  const text = readTextIfExists(dotGit) ?? '';
  const m = /^gitdir:\s*(.+)$/m.exec(text);
  if (!m) return null;
  const gitdir = path.resolve(dir, m[1]!.trim());
  const common = readTextIfExists(path.join(gitdir, 'commondir'));
  const commonDir = common ? path.resolve(gitdir, common.trim()) : null;
  if (!commonDir || path.basename(commonDir) !== '.git') return null;
  return path.dirname(commonDir);
}

function realpathOrParent(p: string): string {
  const missing: string[] = [];
  let cur = p;
  for (;;) {
    try {
      const real = fs.realpathSync(cur);
      return missing.length ? path.join(real, ...missing.reverse()) : real;
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return p;
      missing.push(path.basename(cur));
      cur = parent;
    }
  }
}

/**
 * Resolve a user-supplied path against `root` and refuse anything that leaves
 * it: NUL bytes, `..` segments, absolute paths outside the root, and symlinks
 * that point outside (checked on the real path of the nearest existing parent).
 */
export function confine(root: string, userPath: string, label = 'path'): string {
  if (userPath === '' || userPath.includes('\0')) throw new CliError('refused', `${label}: empty path or NUL byte`);
  if (userPath.split(/[\\/]+/).includes('..')) {
    throw new CliError('refused', `${label}: "${userPath}" contains "..", which is not allowed`);
  }
  const abs = path.resolve(root, userPath);
  const realRoot = realpathOrParent(root);
  const real = realpathOrParent(abs);
  const inside = (base: string, p: string) => p === base || p.startsWith(base.endsWith(path.sep) ? base : base + path.sep);
  if (!inside(realRoot, real) && !inside(path.resolve(root), abs)) {
    throw new CliError('refused', `${label}: "${userPath}" resolves outside the project (${root})`);
  }
  if (!inside(realRoot, real)) {
    throw new CliError('refused', `${label}: "${userPath}" resolves through a symlink to ${real}, outside the project`);
  }
  return abs;
}

/** POSIX form of `p` relative to `root`, for output. */
export function rel(root: string, p: string): string {
  const r = path.relative(root, p);
  return r.split(path.sep).join('/') || '.';
}
