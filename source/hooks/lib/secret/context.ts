// What both shell analyses share: the patterns, the working directory, the
// variables seen so far, the refusals found, and the checks of one word
// against the patterns and the file system.
import os from 'node:os';
import path from 'node:path';
import { literal, isLiteral, textOf, type Atom, type Pattern, type SecretPatterns } from './patterns.ts';
import { MAX_LINKS, TOO_MANY_LINKS, absolute, isDir, listDir, realPath, walk } from './fsview.ts';
import type { Shell } from './parsers.ts';

export interface Ctx {
  shell: Shell;
  patterns: SecretPatterns;
  cwd: string;
  /** Folders an earlier `cd` in the same command line may have moved to (paths are checked from each). */
  cwds: string[];
  /** Variable name → the values it may hold (every assignment seen adds one). */
  vars: Map<string, Pattern[]>;
  refusals: string[];
  depth: number;
  /** IFS was assigned: every unquoted expansion may split anywhere. */
  ifs: boolean;
  /** dotglob/globdots seen: `*` matches a leading dot. */
  dotglob: boolean;
  /** The command is checked under both grammars (a Windows runtime that does not name its shell). */
  both?: boolean;
  /** Recursive parse of nested code (bash -c, eval, pwsh -Command); set by the caller. */
  nested(shell: Shell, code: string, ctx: Ctx): void;
}

export const MAX_DEPTH = 6;
export const MAX_ALTERNATIVES = 64;
export const ANY: Atom = { k: 'any' };
/** A value that is never a file name of its own (a user name, a hash, a number): a NUL, which no path holds. */
export const OPAQUE: Pattern = literal('\u0000');

/** Past this, a check gives up and refuses: the hook must answer inside its 10 s, and a runtime may let a call through a hook that does not. */
export const BUDGET_MS = 5000;
let deadline = Number.POSITIVE_INFINITY;

export class OutOfTime extends Error {}

export function startClock(ms = BUDGET_MS): void {
  deadline = Date.now() + ms;
}

export function checkClock(): void {
  if (Date.now() > deadline) throw new OutOfTime('out of time');
}

export function refuse(ctx: Ctx, reason: string): void {
  if (ctx.refusals.length < 20 && !ctx.refusals.includes(reason)) ctx.refusals.push(reason);
}

export function child(ctx: Ctx, shell: Shell = ctx.shell): Ctx {
  return { ...ctx, shell, depth: ctx.depth + 1, vars: new Map(ctx.vars) };
}

export function addVar(ctx: Ctx, name: string, values: Pattern[]): void {
  const cur = ctx.vars.get(name) ?? [];
  const next = [...cur, ...values];
  ctx.vars.set(name, next.length > MAX_ALTERNATIVES ? [[ANY]] : next);
}

/** A short text for messages. */
export function show(p: Pattern): string {
  const t = textOf(p).replace(/\u0000/g, '…');
  return t.length > 80 ? `${t.slice(0, 77)}...` : t;
}

export const hasGlob = (p: Pattern): boolean => p.some((a) => a.k === 'star' || a.k === 'one' || a.k === 'set');
export const hasAny = (p: Pattern): boolean => p.some((a) => a.k === 'any');

/**
 * The secret a word may name, or null: its text against the patterns, then,
 * for a plain path that exists, its real path (a symlink with an innocent
 * name), and for a glob, what it expands to here.
 */
export function wordSecret(ctx: Ctx, word: Pattern): string | null {
  const hit = ctx.patterns.wordMatch(word);
  if (hit) return hit;
  if (isLiteral(word)) {
    // PowerShell takes \ as a separator on every platform.
    const text = ctx.shell === 'powershell' && process.platform !== 'win32' ? textOf(word).split('\\').join('/') : textOf(word);
    if (text.includes('\u0000') || text.length > 4096 || text === '') return null;
    for (const cwd of [ctx.cwd, ...ctx.cwds]) {
      const real = realPath(text, cwd);
      if (real === TOO_MANY_LINKS) return `more than ${MAX_LINKS} links to follow`;
      if (real && real !== absolute(text, cwd)) {
        const m = ctx.patterns.pathMatch(real);
        if (m) return `${m} (through a link)`;
      }
    }
    return null;
  }
  if (hasGlob(word) && !hasAny(word)) {
    for (const cwd of [ctx.cwd, ...ctx.cwds]) {
      const here = { ...ctx, cwd };
      for (const file of expandGlob(here, word)) {
        const real = realPath(file, cwd);
        const m = ctx.patterns.pathMatch(file) ?? (real ? ctx.patterns.pathMatch(real) : null);
        if (m) return `${m} (${file})`;
      }
    }
  }
  return null;
}

/** Check a word a command reads; refuse when it may name a secret. */
export function checkRead(ctx: Ctx, word: Pattern, what: string): boolean {
  checkClock();
  // The verdict is settled; a few reasons are enough to show.
  if (ctx.refusals.length >= 3) return false;
  const hit = wordSecret(ctx, word);
  if (!hit) return false;
  const unknown = hasAny(word) ? ' (part of it is only known at run time)' : hasGlob(word) ? ' (a pattern that can match it)' : '';
  refuse(ctx, `${what} ${show(word)}, which can name a secret file (${hit})${unknown}`);
  return true;
}

/** Expand a glob word against the file system (bounded): matching paths relative to cwd, as typed. */
export function expandGlob(ctx: Ctx, word: Pattern): string[] {
  const comps: Pattern[] = [[]];
  for (const a of word) {
    if (a.k === 'c' && (a.c === 47 || (ctx.shell === 'powershell' && a.c === 92))) comps.push([]);
    else comps[comps.length - 1]!.push(a);
  }
  let bases: string[] = [textOf(comps[0]!).length === 0 && word[0]?.k === 'c' && word[0].c === 47 ? '/' : ''];
  let start = bases[0] === '/' ? 1 : 0;
  const out: string[] = [];
  for (let i = start; i < comps.length && bases.length > 0 && bases.length < 2000; i++) {
    const comp = comps[i]!;
    const last = i === comps.length - 1;
    const next: string[] = [];
    for (const base of bases) {
      if (isLiteral(comp)) {
        next.push(base ? (base.endsWith('/') ? base + textOf(comp) : `${base}/${textOf(comp)}`) : textOf(comp));
        continue;
      }
      const dir = absolute(base || '.', ctx.cwd);
      for (const name of listDir(dir)) {
        if (globName(ctx, comp, name)) next.push(base ? (base.endsWith('/') ? base + name : `${base}/${name}`) : name);
      }
    }
    bases = next;
    if (last) out.push(...bases);
  }
  start = 0;
  return out.slice(0, 2000);
}

function globName(ctx: Ctx, comp: Pattern, name: string): boolean {
  // One component: a tiny matcher over atoms, iterative with a position set (no backtracking blow-up).
  const chars = [...name];
  let states = new Set<number>([0]);
  const close = (s: Set<number>) => {
    for (const i of [...s]) for (let k = i; k < comp.length && (comp[k]!.k === 'star' || comp[k]!.k === 'any'); k++) s.add(k + 1);
    return s;
  };
  states = close(states);
  for (let ci = 0; ci < chars.length; ci++) {
    const ch = chars[ci]!;
    const c = ch.codePointAt(0)!;
    const next = new Set<number>();
    for (const i of states) {
      const a = comp[i];
      if (!a) continue;
      const dotBlocked = ci === 0 && ch === '.' && !ctx.dotglob && ctx.shell !== 'powershell';
      if (a.k === 'c' && (a.c === c || String.fromCodePoint(a.c).toLowerCase() === ch.toLowerCase())) next.add(i + 1);
      else if (a.k === 'one' && !(a.dot && dotBlocked)) next.add(i + 1);
      else if (a.k === 'star' && !(a.dot && dotBlocked)) next.add(i);
      else if (a.k === 'any') next.add(i);
      else if (a.k === 'set') {
        let inside = false;
        for (let r = 0; r < a.set.ranges.length; r += 2) {
          const lo = a.set.ranges[r]!;
          const hi = a.set.ranges[r + 1]!;
          const lc = ch.toLowerCase().codePointAt(0)!;
          const uc = ch.toUpperCase().codePointAt(0)!;
          if ((c >= lo && c <= hi) || (lc >= lo && lc <= hi) || (uc >= lo && uc <= hi)) inside = true;
        }
        if (inside !== a.set.neg) next.add(i + 1);
      }
    }
    states = close(next);
    if (states.size === 0) return false;
  }
  return states.has(comp.length);
}

/** Does `glob` (an include/exclude filter) match the file name `name`? */
export function filterMatches(ctx: Ctx, glob: Pattern, name: string): boolean {
  return globName({ ...ctx, dotglob: true }, glob.filter((a) => !(a.k === 'c' && a.c === 47)), name);
}

export interface TreeRules {
  /** Only files whose base name matches one of these (grep --include, rg -g, a Grep glob). */
  include?: Pattern[];
  exclude?: Pattern[];
  /** Hidden files and folders are passed over (ripgrep's default). */
  skipHidden?: boolean;
  /** The command reads what links in the tree point to (grep -R, zip, diff -r); otherwise links are passed over. */
  followLinks?: boolean;
}

/**
 * A folder a command reads recursively: refuse when the tree holds a secret
 * file the command's own filters let through.
 */
export function checkTree(ctx: Ctx, word: Pattern, what: string, rules: TreeRules = {}): boolean {
  if (!isLiteral(word)) return false;
  const text = textOf(word);
  if (text.includes('\u0000')) return false;
  const dir = ctx.patterns.dirMatch(text);
  if (dir) {
    refuse(ctx, `${what} ${text}, a folder of secret files (${dir})`);
    return true;
  }
  const root = realPath(text, ctx.cwd) ?? absolute(text, ctx.cwd);
  if (!isDir(root)) return false;
  const found = walk(root, (rel, abs) => {
    if (rules.skipHidden && rel.split('/').some((part) => part.startsWith('.'))) return false;
    const base = path.basename(rel);
    if (rules.include && rules.include.length > 0 && !rules.include.some((g) => filterMatches(ctx, g, base))) return false;
    if (rules.exclude && rules.exclude.some((g) => filterMatches(ctx, g, base))) return false;
    return ctx.patterns.pathMatch(rel) !== null || ctx.patterns.pathMatch(abs) !== null;
  }, 3, rules.followLinks ?? false);
  if (!found || found.length === 0) return false;
  const shown = text === '.' || text === '' ? 'the current folder' : text;
  refuse(ctx, `${what} ${shown}, whose tree holds secret files (${found.join(', ')}); name the files or folders to read, or filter them out`);
  return true;
}

export const HOME_TEXT = (): string => os.homedir();

/** A plain word naming an existing folder. */
export function isDirWord(ctx: Ctx, word: Pattern): boolean {
  if (!isLiteral(word)) return false;
  const t = textOf(word);
  return isDir(realPath(t, ctx.cwd) ?? absolute(t, ctx.cwd));
}
