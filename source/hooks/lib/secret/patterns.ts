// Secret file patterns and the matcher behind the secret guard.
//
// A shell word is not always a plain string: `.env*`, `$f`, `"$HOME"/.ssh/x`
// stand for sets of strings. A word here is a list of atoms (a character, a
// glob `*`/`?`/`[...]`, or `any`, an unknown stretch such as an unresolved
// variable), and "could this word name a secret?" is whether the word's
// language meets a secret pattern's. Both sides are small nondeterministic
// automata and the question is answered by a breadth-first walk over pairs
// of their states: time proportional to the product of their lengths, never
// a backtracking regular expression built from the attacker's text.
//
// Matching is case-insensitive on every platform: macOS and Windows file
// systems are, and on Linux a case-insensitive mount (WSL's /mnt/c, a macOS
// volume in a container) would otherwise let `.ENV` through; refusing `.ENV`
// on a case-sensitive disk costs nothing.
import data from '../../secret-patterns.json' with { type: 'json' };

/** A set of characters: `ranges` as [lo, hi, lo, hi, ...] code points; `neg` means every character but those. */
export interface CharSet {
  neg: boolean;
  ranges: number[];
}

export type Atom =
  | { k: 'c'; c: number }
  | { k: 'any' }
  | { k: 'star'; dot: boolean }
  | { k: 'one'; dot: boolean }
  | { k: 'set'; set: CharSet };

/** One shell word as the set of strings it can become. */
export type Pattern = Atom[];

const code = (s: string) => s.codePointAt(0)!;
const SLASH = code('/');
const BACKSLASH = code('\\');
const DOT = code('.');

const one = (c: number): CharSet => ({ neg: false, ranges: [c, c] });
const ANY_CHAR: CharSet = { neg: true, ranges: [] };
const NOT_SEP: CharSet = { neg: true, ranges: [BACKSLASH, BACKSLASH, SLASH, SLASH] };
const NOT_SEP_DOT: CharSet = { neg: true, ranges: [DOT, DOT, BACKSLASH, BACKSLASH, SLASH, SLASH].slice() };
const setOf = (chars: string): CharSet => {
  const cs = [...new Set([...chars].map(code))].sort((a, b) => a - b);
  return { neg: false, ranges: cs.flatMap((c) => [c, c]) };
};
/** Characters that end one path component. */
const SEP = setOf('/\\');
/** Where a file name can start inside a longer word: after a separator, `=` (`if=.env`), `@` (`-F f=@.env`), `:` (`HEAD:.env`), quotes, spaces, brackets... */
const LEAD = setOf('/\\=@:\'"`()[]{}<>|&;, \t\r\n');
/** What can follow a file name inside a longer word (`.env;type=text/plain`, `.env:/app/.env`). */
const TRAIL = setOf(':\'"`()[]{}<>|&;, \t\r\n');
/** Characters that split literal text into tokens before matching (quotes, spaces, brackets, operators). */
const HARD = new Set([...'\'"`()[]{}<>|&;, \t\r\n'].map(code));
const SOFT_LEAD = new Set([...'=@:'].map(code));

function has(set: CharSet, c: number): boolean {
  let inside = false;
  for (let i = 0; i < set.ranges.length; i += 2) if (c >= set.ranges[i]! && c <= set.ranges[i + 1]!) inside = true;
  return inside !== set.neg;
}

function covered(neg: number[], x: number): number {
  for (let i = 0; i < neg.length; i += 2) if (x >= neg[i]! && x <= neg[i + 1]!) return neg[i + 1]!;
  return -1;
}

function overlaps(a: CharSet, b: CharSet): boolean {
  if (a.neg && b.neg) return true;
  if (!a.neg && !b.neg) {
    for (let i = 0; i < a.ranges.length; i += 2)
      for (let j = 0; j < b.ranges.length; j += 2) if (a.ranges[i]! <= b.ranges[j + 1]! && b.ranges[j]! <= a.ranges[i + 1]!) return true;
    return false;
  }
  const [pos, neg] = a.neg ? [b, a] : [a, b];
  for (let i = 0; i < pos.ranges.length; i += 2) {
    let x = pos.ranges[i]!;
    const hi = pos.ranges[i + 1]!;
    for (let guard = 0; x <= hi && guard <= neg.ranges.length; guard++) {
      const end = covered(neg.ranges, x);
      if (end < 0) return true;
      x = end + 1;
    }
  }
  return false;
}

/** Lower-case a character set (ASCII letters; other letters are lower-cased one by one). */
export function foldSet(set: CharSet): CharSet {
  const out = [...set.ranges];
  for (let i = 0; i < set.ranges.length; i += 2) {
    const lo = Math.max(set.ranges[i]!, 65);
    const hi = Math.min(set.ranges[i + 1]!, 90);
    if (lo <= hi) out.push(lo + 32, hi + 32);
  }
  return { neg: set.neg, ranges: out };
}

export function lower(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c < 128) return c;
  const s = String.fromCodePoint(c).toLowerCase();
  return [...s].length === 1 ? s.codePointAt(0)! : c;
}

/** A plain string as a pattern of characters. */
export function literal(s: string): Pattern {
  return [...s].map((ch) => ({ k: 'c', c: code(ch) }) as Atom);
}

export const isLiteral = (p: Pattern): boolean => p.every((a) => a.k === 'c');
export const textOf = (p: Pattern): string => p.map((a) => (a.k === 'c' ? String.fromCodePoint(a.c) : a.k === 'any' ? '\u2026' : a.k === 'star' ? '*' : a.k === 'one' ? '?' : '[…]')).join('');

// ---------------------------------------------------------------------------
// Automata. A state machine is a list of states; each state has character
// transitions (set → target) and epsilon moves.

interface Nfa {
  /** `syntax`: the move reads a character as command syntax (a quote, `=`, `;`...), which only a literal character of the word can be. */
  trans: { set: CharSet; to: number; syntax?: boolean }[][];
  eps: number[][];
  start: number[];
  accept: boolean[];
}

function nfa(): Nfa & { add(): number } {
  const m: Nfa & { add(): number } = {
    trans: [],
    eps: [],
    start: [],
    accept: [],
    add() {
      m.trans.push([]);
      m.eps.push([]);
      m.accept.push(false);
      return m.trans.length - 1;
    },
  };
  return m;
}

/** Parse a glob (`*`, `?`, `[...]`, `[!...]`, `\x`) into tokens of one component each; `/` splits components. */
function globTokens(glob: string): (CharSet | 'star')[][] {
  const comps: (CharSet | 'star')[][] = [[]];
  const chars = [...glob];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    const cur = comps[comps.length - 1]!;
    if (ch === '/' || ch === '\\') {
      if (cur.length > 0) comps.push([]);
    } else if (ch === '*') {
      if (cur[cur.length - 1] !== 'star') cur.push('star');
    } else if (ch === '?') cur.push(NOT_SEP);
    else if (ch === '[') {
      const parsed = bracket(chars, i);
      if (parsed) {
        cur.push(foldSet(parsed.set));
        i = parsed.end;
      } else cur.push(one(code('[')));
    } else cur.push(one(lower(code(ch))));
  }
  return comps.filter((c) => c.length > 0);
}

/** A bracket expression starting at chars[i] === '[': its set and the index of its `]`, or null when unterminated. */
export function bracket(chars: readonly string[], i: number): { set: CharSet; end: number } | null {
  let j = i + 1;
  let neg = false;
  if (chars[j] === '!' || chars[j] === '^') {
    neg = true;
    j++;
  }
  const ranges: number[] = [];
  let first = true;
  for (; j < chars.length && j < i + 256; j++) {
    const ch = chars[j]!;
    if (ch === ']' && !first) return { set: { neg, ranges }, end: j };
    first = false;
    if (ch === '[' && chars[j + 1] === ':') {
      // [:alpha:] and friends: any letter or digit, conservatively.
      const close = chars.indexOf(']', j + 2);
      if (close < 0) return null;
      ranges.push(48, 57, 65, 90, 97, 122, 95, 95, 45, 46);
      j = close;
      continue;
    }
    const lo = code(ch);
    if (chars[j + 1] === '-' && chars[j + 2] !== undefined && chars[j + 2] !== ']') {
      const hi = code(chars[j + 2]!);
      ranges.push(Math.min(lo, hi), Math.max(lo, hi));
      j += 2;
    } else ranges.push(lo, lo);
  }
  return null;
}

type Mode = 'anchored' | 'loose';

/**
 * A secret pattern as an automaton over lower-cased text. `anchored`: the
 * pattern's components are the path's last ones (`(any/)? P /*`). `loose`:
 * the file name may sit inside a longer word (`if=.env`, `f=@.env;type=x`,
 * code text), so it may start after any LEAD character and be followed by a
 * TRAIL character and anything.
 */
function compile(glob: string, mode: Mode): Nfa {
  const m = nfa();
  const pre = m.add();
  const begin = m.add();
  m.start.push(pre, begin);
  m.trans[pre]!.push({ set: ANY_CHAR, to: pre }, { set: SEP, to: begin });
  if (mode === 'loose') m.trans[pre]!.push({ set: LEAD, to: begin, syntax: true });
  let cur = begin;
  const comps = globTokens(glob);
  comps.forEach((comp, ci) => {
    if (ci > 0) {
      const next = m.add();
      m.trans[cur]!.push({ set: SEP, to: next });
      cur = next;
    }
    for (const tok of comp) {
      if (tok === 'star') m.trans[cur]!.push({ set: NOT_SEP, to: cur });
      else {
        const next = m.add();
        m.trans[cur]!.push({ set: tok, to: next });
        cur = next;
      }
    }
  });
  m.accept[cur] = true;
  // Trailing separators (`.env/`, `.env/.`) and, as Windows reads them, trailing dots and spaces.
  const tail = m.add();
  m.accept[tail] = true;
  m.trans[cur]!.push({ set: setOf('/\\. '), to: tail });
  m.trans[tail]!.push({ set: setOf('/\\. '), to: tail });
  if (mode === 'loose') {
    const rest = m.add();
    m.accept[rest] = true;
    m.trans[cur]!.push({ set: TRAIL, to: rest, syntax: true });
    m.trans[tail]!.push({ set: TRAIL, to: rest, syntax: true });
    m.trans[rest]!.push({ set: ANY_CHAR, to: rest });
  }
  return m;
}

function closure(m: Nfa, states: number[]): number[] {
  const seen = new Set(states);
  const stack = [...states];
  while (stack.length) for (const t of m.eps[stack.pop()!]!) if (!seen.has(t)) (seen.add(t), stack.push(t));
  return [...seen];
}

/** Does some string of `word` match the automaton? Breadth-first over (word position, automaton state, at-component-start). */
function meets(word: Pattern, m: Nfa): boolean {
  const n = word.length;
  const key = (i: number, j: number, st: boolean) => (i * m.trans.length + j) * 2 + (st ? 1 : 0);
  const seen = new Set<number>();
  const queue: [number, number, boolean][] = [];
  const push = (i: number, j: number, st: boolean) => {
    // A word position before a `*` or `any` may also skip it (they match the empty string).
    for (let k = i; k <= n; k++) {
      const id = key(k, j, st);
      if (!seen.has(id)) {
        seen.add(id);
        queue.push([k, j, st]);
      }
      const a = word[k];
      if (!a || (a.k !== 'any' && a.k !== 'star')) break;
    }
  };
  for (const j of closure(m, m.start)) push(0, j, true);
  for (let q = 0; q < queue.length; q++) {
    const [i, j, st] = queue[q]!;
    if (i === n && m.accept[j]) return true;
    const a = word[i];
    if (!a) continue;
    let set: CharSet;
    let stay = false;
    switch (a.k) {
      case 'c':
        set = one(lower(a.c));
        break;
      case 'set':
        set = foldSet(a.set);
        break;
      case 'one':
        set = a.dot && st ? NOT_SEP_DOT : NOT_SEP;
        break;
      case 'star':
        set = a.dot && st ? NOT_SEP_DOT : NOT_SEP;
        stay = true;
        break;
      default:
        set = ANY_CHAR;
        stay = true;
    }
    for (const t of m.trans[j]!) {
      if (t.syntax && a.k !== 'c') continue;
      if (!overlaps(set, t.set)) continue;
      const nst = (has(set, SLASH) && has(t.set, SLASH)) || (has(set, BACKSLASH) && has(t.set, BACKSLASH));
      for (const to of closure(m, [t.to])) {
        if (stay) push(i, to, nst);
        push(i + 1, to, nst);
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// The pattern sets.

interface Entry {
  pattern: string;
  why: string;
}

interface Compiled {
  glob: string;
  anchored: Nfa;
  loose: Nfa;
  /** The pattern's runs of plain characters, lower-cased: a plain path it matches holds each of them. */
  runs: string[];
}

/** Maximal stretches of plain characters in a glob (no `*`, `?`, `[...]`, separators). */
function literalRuns(glob: string): string[] {
  const runs: string[] = [];
  let cur = '';
  let inClass = false;
  for (const ch of glob) {
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '*' || ch === '?' || ch === '/' || ch === '\\' || ch === '[') {
      if (cur) runs.push(cur);
      cur = '';
      if (ch === '[') inClass = true;
    } else cur += ch.toLowerCase();
  }
  if (cur) runs.push(cur);
  return runs;
}

/** Can this plain, lower-cased path match the pattern at all? A cheap test before the automaton. */
const mayMatch = (c: Compiled, lowered: string): boolean => c.runs.every((r) => lowered.includes(r));

const DEFAULTS = data as unknown as { secrets: Entry[]; exempt: Entry[] };

function compileAll(globs: readonly string[]): Compiled[] {
  return globs.map((glob) => ({ glob, anchored: compile(glob, 'anchored'), loose: compile(glob, 'loose'), runs: literalRuns(glob) }));
}

export class SecretPatterns {
  readonly secrets: Compiled[];
  readonly exempt: Compiled[];
  constructor(extra: readonly string[] = []) {
    this.secrets = compileAll([...DEFAULTS.secrets.map((e) => e.pattern), ...extra]);
    this.exempt = compileAll(DEFAULTS.exempt.map((e) => e.pattern));
  }

  /** Folders whose files are secret by name (`.ssh` of `.ssh/*`, `.aws` of `.aws/credentials`): the pattern when `p` names one. */
  dirMatch(p: string): string | null {
    const norm = normalizePath(p);
    if (norm === '') return null;
    const w = literal(norm);
    for (const s of this.secrets) {
      const cut = s.glob.lastIndexOf('/');
      if (cut <= 0) continue;
      this.dirs.set(s.glob, this.dirs.get(s.glob) ?? compile(s.glob.slice(0, cut), 'anchored'));
      if (meets(w, this.dirs.get(s.glob)!)) return s.glob;
    }
    return null;
  }

  private readonly dirs = new Map<string, Nfa>();

  /** The secret pattern a plain path matches (after the exemptions), or null. */
  pathMatch(p: string): string | null {
    const norm = lastComponents(normalizePath(p));
    if (norm === '') return null;
    const w = literal(norm);
    const lowered = norm.toLowerCase();
    const hit = this.secrets.find((s) => mayMatch(s, lowered) && meets(w, s.anchored));
    if (!hit) return null;
    return this.exempt.some((e) => mayMatch(e, lowered) && meets(w, e.anchored)) ? null : hit.glob;
  }

  /**
   * Could this word name a secret? For a plain string: every token of it
   * (split at quotes, spaces and brackets, and at `=`, `@`, `:` inside a
   * token) is checked as a path. For a word with globs or unknown parts: the
   * word's language against each pattern, loosely anchored; an exemption
   * counts only when the word ends in a literal path that is exempt whatever
   * comes before it (`$HOME/.ssh/id_rsa.pub`).
   */
  wordMatch(whole: Pattern): string | null {
    if (isLiteral(whole)) return this.textMatch(textOf(whole));
    // Only a word's end can meet a pattern's end: a long word keeps its last stretch behind an unknown (which covers any start).
    const word: Pattern = whole.length > MAX_WORD ? [{ k: 'any' }, ...whole.slice(-MAX_WORD)] : whole;
    const hit = this.secrets.find((s) => meets(word, s.loose));
    if (!hit) return null;
    let k = word.length;
    while (k > 0 && word[k - 1]!.k === 'c') k--;
    const tail = textOf(word.slice(k));
    const cut = Math.max(tail.indexOf('/'), tail.indexOf('\\'));
    if (cut >= 0 && ![...tail].some((ch) => HARD.has(code(ch)) || ch === ':')) {
      const w = literal(normalizePath(tail));
      if (this.exempt.some((e) => meets(w, e.anchored)) && !this.secrets.some((s) => meets(w, s.anchored) && !this.exempt.some((e) => meets(w, e.anchored)))) return null;
    }
    return hit.glob;
  }

  /** The first secret pattern any token of free text names (code strings, here-documents), or null. */
  textMatch(text: string): string | null {
    for (const token of tokens(text)) {
      const chars = [...token];
      const starts = [0];
      const ends = [chars.length];
      chars.forEach((ch, i) => {
        if (SOFT_LEAD.has(code(ch))) starts.push(i + 1);
        if (ch === ':') ends.push(i);
      });
      if (starts.length * ends.length > 64) return this.pathMatch(token) ?? (this.secrets.some((s) => meets(literal(token), s.loose)) ? 'secret' : null);
      for (const s of starts)
        for (const e of ends) {
          if (s >= e) continue;
          const hit = this.pathMatch(chars.slice(s, e).join(''));
          if (hit) return hit;
        }
    }
    return null;
  }
}

const MAX_WORD = 1024;
/** Patterns match the last few components of a path; a file name is never longer than this. */
const MAX_COMPONENTS = 8;
const MAX_NAME = 1024;

/**
 * The part of a path that matching can see: its last MAX_COMPONENTS
 * components. A last component longer than any file name can be names no file
 * (and so no secret): the empty string.
 */
function lastComponents(p: string): string {
  const parts = p.split('/');
  const last = parts[parts.length - 1] ?? '';
  // Windows drops trailing dots and spaces (`.env   ` opens .env): keep one of them, which the patterns allow.
  let end = last.length;
  while (end > 0 && (last[end - 1] === '.' || last[end - 1] === ' ')) end--;
  if (end > MAX_NAME) return '';
  parts[parts.length - 1] = last.slice(0, Math.min(last.length, end + 1));
  return parts.slice(-MAX_COMPONENTS).join('/');
}

/** Split text at quotes, spaces, brackets and operators; tokens keep path characters. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const ch of text) {
    if (HARD.has(code(ch))) {
      if (cur) out.push(cur);
      cur = '';
    } else cur += ch;
    if (out.length > 20000) break;
  }
  if (cur) out.push(cur);
  return out;
}

/** A path's text as matched: backslashes as slashes, `//`, `/./` and a trailing `/` or `/.` folded. */
export function normalizePath(p: string): string {
  let s = p.replace(/\\/g, '/');
  const parts = s.split('/');
  const out: string[] = [];
  parts.forEach((part, i) => {
    if (part === '' && i > 0) return;
    if (part === '.' && (i > 0 || parts.length > 1)) return;
    out.push(part);
  });
  s = out.join('/');
  return s;
}

let defaults: SecretPatterns | undefined;
export function defaultPatterns(): SecretPatterns {
  defaults ??= new SecretPatterns();
  return defaults;
}

/** Patterns a project adds: strings of printable characters, bounded in size and number. */
export function extraPatterns(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200 && [...v].every((ch) => code(ch) >= 32))
    .slice(0, 100);
}
