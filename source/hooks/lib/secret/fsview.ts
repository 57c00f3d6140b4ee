// What the secret guard asks of the file system: where a path really points
// (symlinks followed, at most MAX_LINKS of them), what a glob expands to, and
// which secret files a directory tree holds. Every look is bounded; an error
// means "unknown", never an exception.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** At least what any OS follows (Linux 40, Windows 63): a longer chain fails there too, and is refused here when it could be secret. */
export const MAX_LINKS = 64;

/** realPath's answer for a chain of links longer than MAX_LINKS or a loop. */
export const TOO_MANY_LINKS = '\u0000too-many-links';
const MAX_WALK = 20000;
const MAX_DEPTH = 12;
/** Folders a tree walk passes over: tools' stores, never the user's secrets. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);

/** `p` (relative to `cwd`, `~` for the home folder) as an absolute path. */
export function absolute(p: string, cwd: string): string {
  let s = p;
  if (s === '~' || s.startsWith('~/') || s.startsWith('~\\')) s = path.join(os.homedir(), s.slice(1));
  return path.resolve(cwd, s);
}

/**
 * The real path of `p`: each component's symlink followed, at most MAX_LINKS
 * in all; null when the path does not exist, a link loops or a look fails.
 */
export function realPath(p: string, cwd: string): string | null {
  let parts = absolute(p, cwd).split(path.sep).filter(Boolean);
  let cur = path.parse(absolute(p, cwd)).root;
  let links = 0;
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(cur, parts[i]!);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(next);
    } catch {
      return null;
    }
    if (st.isSymbolicLink()) {
      if (++links > MAX_LINKS) return TOO_MANY_LINKS;
      let target: string;
      try {
        target = fs.readlinkSync(next);
      } catch {
        return null;
      }
      const resolved = path.resolve(cur, target);
      const root = path.parse(resolved).root;
      parts = [...resolved.split(path.sep).filter(Boolean), ...parts.slice(i + 1)];
      cur = root;
      i = -1;
      continue;
    }
    cur = next;
  }
  if (process.platform === 'win32') {
    // Short 8.3 names and junctions: the native call knows them.
    try {
      return fs.realpathSync.native(cur);
    } catch {
      return cur;
    }
  }
  return cur;
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Files under `root` (breadth first, at most MAX_WALK entries) for which
 * `pick` says yes, as paths relative to root. `null` when root is not a
 * directory. Symlinks to files are reported by their real path too.
 */
export function walk(root: string, pick: (rel: string, abs: string) => boolean, limit = 8, followLinks = true): string[] | null {
  if (!isDir(root)) return null;
  const found: string[] = [];
  const queue: [string, number][] = [['', 0]];
  let seen = 0;
  for (let q = 0; q < queue.length && seen < MAX_WALK && found.length < limit; q++) {
    const [rel, depth] = queue[q]!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > MAX_WALK || found.length >= limit) break;
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      const abs = path.join(root, childRel);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && depth < MAX_DEPTH) queue.push([childRel, depth + 1]);
        continue;
      }
      if (pick(childRel, abs)) found.push(childRel);
      else if (e.isSymbolicLink() && followLinks) {
        const real = realPath(abs, root);
        if (real && pick(childRel, real)) found.push(childRel);
      }
    }
  }
  return found;
}

/** Names in `dir` (for glob expansion); empty on error, at most 5000. */
export function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).slice(0, 5000);
  } catch {
    return [];
  }
}
