// Checks on built bundles: no other runtime's root leaks into this one, and
// every file and frontmatter value is within the limits the runtime documents
// (sizes, value patterns, and text the runtime would rewrite).
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { emittedFrontmatter, frontmatterScalar, type EmittedFrontmatter } from '../emit/emitted-frontmatter.ts';
import { byteLengthOf, digestOf, factsOf, keptFact, type LeakHit, type LimitHit, type TreeFile, type VirtualTree } from '../emit/virtual-tree.ts';
import type { IrNode } from '../ir/types.ts';
import type { Limit, Target, TargetScope } from '../targets/target-types.ts';
import { escapeRegExp, foldedPath, literalFinder } from '../util/text.ts';
import { DEFAULT_PAYLOAD } from '../load/layout.ts';

/** Folders under another runtime's root that only a GSD install puts there (the corpus's payload folder first). */
function gsdPayload(payload: string): string {
  return `(?:${escapeRegExp(payload)}|skills/gsd-|agents/gsd-|agents/subagents|commands/gsd|command/gsd|hooks/gsd|workflows/gsd-)`;
}

export interface ForeignRoots {
  /** One pattern for every foreign root, so each file is scanned once. */
  pattern: RegExp;
  /** Which runtime a matched text belongs to. */
  ownerOf: (matched: string) => string;
  /** Where the next root starts (every match contains one, at most LONGEST_PREFIX after the match's start). */
  nextRoot: (text: string, from?: number) => number;
  /** `pattern`, sticky: tried only at the few starts a root found by nextRoot allows. */
  sticky: RegExp;
  /** Whether a match can start with this UTF-16 code unit (a prefix's or a root's first): other starts are not tried. */
  canStart: (code: number) => boolean;
}

/** What the pattern allows before a root, each optional. */
const ROOT_PREFIXES = ['~/', '$HOME/', './'];
/** The longest of them: `$HOME/`. */
const LONGEST_PREFIX = Math.max(...ROOT_PREFIXES.map((prefix) => prefix.length));
const NEWLINE = 10;

/**
 * What counts as a leak in `own`'s bundles: the canonical source root
 * `.claude` anywhere (outside the claude target), and any other target's root
 * followed by a GSD payload folder.
 */
export function foreignRoots(own: Target, all: readonly Target[], payload: string = DEFAULT_PAYLOAD): ForeignRoots {
  // What the roots are made of, as a key: a resident build (watch) makes the same ones on every rebuild, each with its
  // finder's tables and patterns (a tenth of a one-edit rebuild's emit).
  const rootsOf = (target: Target) => Object.values(target.definition.scopes).map((scope) => (scope as TargetScope).root);
  const key = JSON.stringify([payload, rootsOf(own), all.map((target) => (target === own ? null : [target.definition.name, rootsOf(target)]))]);
  let made = madeRoots.get(key);
  if (made === undefined) {
    if (madeRoots.size >= MADE_ROOTS_KEPT) madeRoots.clear();
    madeRoots.set(key, (made = makeForeignRoots(own, all, payload)));
  }
  return made;
}

/** foreignRoots made, by what they are made of; a handful per target set, cleared past MADE_ROOTS_KEPT. */
const madeRoots = new Map<string, ForeignRoots>();
const MADE_ROOTS_KEPT = 256;

function makeForeignRoots(own: Target, all: readonly Target[], payload: string): ForeignRoots {
  const GSD_PAYLOAD = gsdPayload(payload);
  const ownRoots = new Set(Object.values(own.definition.scopes).map((scope) => (scope as TargetScope).root));
  const owners: { root: string; owner: string }[] = [];
  const alternatives: string[] = [];
  if (!ownRoots.has('.claude')) {
    alternatives.push('(?<![\\w-])\\.claude(?=\\/|(?![\\w.-]))');
    owners.push({ root: '.claude', owner: 'the canonical source (Claude Code)' });
  }
  const seen = new Set<string>(['.claude', '.', '']);
  for (const target of all) {
    if (target === own) continue;
    for (const scope of Object.values(target.definition.scopes) as TargetScope[]) {
      if (ownRoots.has(scope.root) || seen.has(scope.root)) continue;
      seen.add(scope.root);
      alternatives.push(`(?<![\\w.-])(?:${ROOT_PREFIXES.map(escapeRegExp).join('|')})?${escapeRegExp(scope.root)}/${GSD_PAYLOAD}`);
      owners.push({ root: scope.root, owner: target.definition.name });
    }
  }
  // Longest roots first, so `.gemini/antigravity` is not reported as `.gemini`.
  owners.sort((a, b) => b.root.length - a.root.length);
  const source = alternatives.length > 0 ? alternatives.join('|') : '(?!)';
  const firsts = new Set([...ROOT_PREFIXES, ...owners.map(({ root }) => root)].map((text) => text.charCodeAt(0)));
  return {
    pattern: new RegExp(source, 'g'),
    sticky: new RegExp(source, 'y'),
    ownerOf: (matched) => owners.find(({ root }) => matched.includes(root))?.owner ?? 'another runtime',
    nextRoot: literalFinder(owners.map(({ root }) => root)),
    canStart: (code) => firsts.has(code),
  };
}

/**
 * Hits by the SHA-256 of the text (the manifest has hashed every file: a
 * digest is a short key where the text was one to hash again, and keeps no
 * text alive), with whether the file was verbatim (not scanned).
 */
type ScannedTexts = Map<string, { verbatim: boolean | undefined; hits: LeakHit[] }>;

/** One bundle's leak check: its files' hits, each text scanned once. */
export interface LeakScan {
  /** The foreign roots a file of the bundle names, before the bundle's own folders exempt any (kept in its facts). */
  hitsOf(file: TreeFile): LeakHit[];
  /**
   * A hit's diagnostic message: made only for a hit that is reported (most are
   * the bundle's own folders, and a message's source position reads the node's
   * text up to the token: 5,416 hits in an --all build of the upstream corpus).
   */
  messageOf(hit: LeakHit, file: TreeFile): string;
}

/**
 * The last bundle's scanned texts, for the next bundle checked against the
 * same roots: a target's two scopes are checked one after the other, with the
 * same roots, and a quarter of their files are the same text. Only the last
 * bundle's are kept.
 */
let lastScan: { roots: ForeignRoots; allowed: readonly RegExp[]; hits: ScannedTexts } | null = null;

/** A new bundle's leak check; it becomes the last one, whose texts the next bundle's finds. */
export function leakScan(roots: ForeignRoots, nodesByPath: ReadonlyMap<string, IrNode>, allowed: readonly RegExp[] = []): LeakScan {
  const last = lastScan !== null && lastScan.roots === roots && lastScan.allowed === allowed ? lastScan.hits : null;
  const scanned: ScannedTexts = new Map();
  lastScan = { roots, allowed, hits: scanned };
  const scan = (file: TreeFile): LeakHit[] => {
    if (typeof file.contents !== 'string') return leakHits(file, roots, allowed);
    const digest = digestOf(file);
    const known = scanned.get(digest) ?? last?.get(digest);
    const hits = known !== undefined && known.verbatim === file.verbatim ? known.hits : leakHits(file, roots, allowed);
    scanned.set(digest, { verbatim: file.verbatim, hits });
    return hits;
  };
  // Read once per file: a reused file's are in its facts (the cache key holds every input of this check), and so are an encoded one's.
  // A delta's manifest (its bytes, or its text) has its hits but on its changed lines, which are scanned (leaksBeside).
  return {
    hitsOf: (file) => {
      if (file.facts?.leaksBeside) return (factsOf(file).leaks = hitsBeside(file, roots, allowed));
      return file.reused || file.encoded ? keptFact(file, 'leaks') : (factsOf(file).leaks = scan(file));
    },
    messageOf: (hit, file) => {
      const origin = file.source === undefined ? ' (built code)' : sourcePosition(nodesByPath.get(file.source), hit.token);
      return `expected paths under this bundle's own root, found "${hit.token}" (a root of ${roots.ownerOf(hit.matched)})${origin}`;
    },
  };
}

export function checkEmittedPaths(bundle: string, tree: VirtualTree, scan: LeakScan): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [path, file] of tree) {
    for (const hit of scan.hitsOf(file)) {
      // A folder this bundle itself places files in (Codex's skills live under .agents/, Antigravity's root) is its own.
      if (!placesUnder(tree, hit.matched)) diagnostics.push(diagnostic(`${bundle}/${path}`, hit.line, hit.column, 'emit-foreign-path', scan.messageOf(hit, file)));
    }
  }
  return diagnostics;
}

/**
 * Two paths of a bundle that are one file where case or Unicode form is not
 * told apart (macOS, Windows: Notes.md and notes.md, é composed and
 * decomposed), a folder on the way included: the path met second is reported,
 * with the first. One map of folded forms (NFC, lower case) per bundle, over
 * the tree's paths only, a reused file's too (every build checks the whole
 * tree: it costs no text); each folder is folded once, when first met.
 */
export function checkPathCollisions(bundle: string, tree: VirtualTree): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  /** Folded form → the first path met with it: a file (a key of the tree), or a folder. */
  const firsts = new Map<string, string>();
  /** Folders met, as written. */
  const folders = new Set<string>();
  const meet = (path: string, file: string) => {
    const folded = foldedPath(path);
    const first = firsts.get(folded);
    if (first === undefined) firsts.set(folded, path);
    else if (first !== path) diagnostics.push(pathCollision(bundle, tree, path, first, file));
  };
  // The last file's folder: a tree's files come folder by folder, so most files are in it, and nothing is sliced for them.
  let folder = '';
  for (const file of tree.keys()) {
    const parent = file.lastIndexOf('/');
    if (parent > 0 && !(parent === folder.length && file.startsWith(folder))) {
      folder = file.slice(0, parent);
      if (!folders.has(folder)) {
        // Its folders from the top: those met before are skipped.
        for (let slash = file.indexOf('/'); slash !== -1 && slash <= parent; slash = file.indexOf('/', slash + 1)) {
          const above = slash === parent ? folder : file.slice(0, slash);
          if (folders.has(above)) continue;
          folders.add(above);
          meet(above, file);
        }
      }
    }
    meet(file, file);
  }
  return diagnostics;
}

/** The diagnostic of `path` (a file, or a folder of `file`), one file with `first` where case or Unicode form is not told apart. */
function pathCollision(bundle: string, tree: VirtualTree, path: string, first: string, file: string): Diagnostic {
  const own = tree.get(path);
  const other = tree.get(first);
  const one = own === undefined && other === undefined ? 'one folder' : 'one file';
  // A folder's is reported at the file met in it, and ends with where that file came from, as emit-foreign-path's do.
  const origin = own === undefined ? originOf(tree.get(file)!) : '';
  return diagnostic(
    `${bundle}/${file}`,
    1,
    1,
    'emit-path-collision',
    `expected paths that stay apart where case or Unicode form is not told apart (macOS, Windows), found ${described(path, own)} and ${described(first, other)}: ${one} there, differing only in ${difference(path, first)}${origin}`,
  );
}

/** A path as a collision names it: a file with where it came from, or a folder. */
function described(path: string, file: TreeFile | undefined): string {
  return file === undefined ? `folder "${path}"` : `"${path}"${originOf(file)}`;
}

/** How two colliding paths differ: a name in two Unicode forms prints the same, so the message says so. */
function difference(a: string, b: string): string {
  if (a.normalize('NFC') === b.normalize('NFC')) return 'Unicode form';
  return a.toLowerCase() === b.toLowerCase() ? 'case' : 'case and Unicode form';
}

/** " from <source>" for a file rendered from the corpus, " (built code)" for one that was not. */
function originOf(file: TreeFile): string {
  return file.source === undefined ? ' (built code)' : ` from ${file.source}`;
}

/**
 * leakHits of a file whose hits are known on every line but a few
 * (facts.leaksBeside): each of those lines is scanned alone (no hit spans a
 * line), and its hits moved to where it is.
 */
function hitsBeside(file: TreeFile, roots: ForeignRoots, allowed: readonly RegExp[]): LeakHit[] {
  const { hits, lines } = file.facts!.leaksBeside!;
  delete file.facts!.leaksBeside;
  const found = [...hits];
  for (const { line, text } of lines) {
    for (const hit of leakHits({ contents: text }, roots, allowed)) found.push({ ...hit, line });
  }
  // In text order, as a scan of the whole file finds them.
  return found.sort((a, b) => a.line - b.line);
}

/** The foreign roots one file names, before the bundle's own folders exempt any. */
export function leakHits(file: TreeFile, roots: ForeignRoots, allowed: readonly RegExp[]): LeakHit[] {
  // Every text file, built code included (the runtime CLI and hooks are the same in every bundle, so
  // they must name no runtime's root); not corpus files shipped byte for byte, which nothing rewrites.
  if (typeof file.contents !== 'string' || file.verbatim) return [];
  const text = file.contents;
  const hits: LeakHit[] = [];
  // The pattern's lookbehinds cost at every position it is tried, and most files name no foreign root:
  // it is tried only at the starts a root allows, from the earliest, as a scan from the line's start would.
  let scanned = 0;
  const lineOf = lineCounter(text);
  for (let at = roots.nextRoot(text); at !== -1; at = roots.nextRoot(text, at + 1)) {
    // Starts are tried from LONGEST_PREFIX before the root, not past its line's start: only that stretch is searched
    // for a line break (built code's lines run to megabytes, with many roots named on one).
    let first = Math.max(scanned, at - LONGEST_PREFIX, 0);
    for (let back = at - 1; back >= first; back -= 1) {
      if (text.charCodeAt(back) === NEWLINE) {
        first = back + 1;
        break;
      }
    }
    let match: RegExpExecArray | null = null;
    for (let start = first; start <= at && match === null; start += 1) {
      if (!roots.canStart(text.charCodeAt(start))) continue;
      roots.sticky.lastIndex = start;
      match = roots.sticky.exec(text);
    }
    if (match === null) continue;
    scanned = match.index + match[0].length;
    const lineStart = text.lastIndexOf('\n', match.index - 1) + 1;
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 ? text.length : newline;
    const column = match.index - lineStart;
    if (allowed.length > 0) {
      const lineText = text.slice(lineStart, lineEnd);
      if (allowed.some((pattern) => coversColumn(globalTwin(pattern), lineText, column))) continue;
    }
    const token = wordAround(text, match.index, lineStart, lineEnd);
    hits.push({ line: lineOf(match.index), column: token.column, matched: match[0], token: token.text });
  }
  return hits;
}

/** Each allowed pattern's global form, made once: a build tests thousands of matched roots against the same few. */
const globalTwins = new WeakMap<RegExp, RegExp>();
function globalTwin(pattern: RegExp): RegExp {
  let twin = globalTwins.get(pattern);
  if (twin === undefined) globalTwins.set(pattern, (twin = new RegExp(pattern.source, 'g')));
  return twin;
}

/** Whether a match of `pattern` (global) in `line` covers `column`; its matches come in order, so none after the column is looked at. */
function coversColumn(pattern: RegExp, line: string, column: number): boolean {
  pattern.lastIndex = 0;
  for (let hit = pattern.exec(line); hit !== null && hit.index <= column; hit = pattern.exec(line)) {
    if (column < hit.index + hit[0].length) return true;
    // An empty match would be found again at the same place.
    if (hit[0].length === 0) pattern.lastIndex += 1;
  }
  return false;
}

/**
 * The 1-based line of each offset asked for, the offsets in ascending order (a
 * scan's matches): the line breaks are counted once over the text, not again
 * from its start for every match.
 */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  let counted = 0;
  return (offset) => {
    for (let next = text.indexOf('\n', counted); next !== -1 && next < offset; next = text.indexOf('\n', next + 1)) {
      line += 1;
      counted = next + 1;
    }
    return line;
  };
}

/** Whether some file of the bundle lies under the matched root-relative path. */
function placesUnder(tree: VirtualTree, matched: string): boolean {
  const prefix = ROOT_PREFIXES.find((candidate) => matched.startsWith(candidate)) ?? '';
  const folder = matched.slice(prefix.length);
  for (const file of tree.keys()) if (file.startsWith(folder)) return true;
  return false;
}

/** " from <source>:line:col" where the token (or its last path part) appears in the source. */
function sourcePosition(node: IrNode | undefined, token: string): string {
  if (!node) return '';
  for (const needle of [token, token.slice(token.lastIndexOf('/') + 1)]) {
    const offset = needle ? node.text.indexOf(needle) : -1;
    if (offset >= 0) {
      const before = node.text.slice(0, offset);
      return ` from ${node.path}:${before.split('\n').length}:${offset - before.lastIndexOf('\n')}`;
    }
  }
  return ` from ${node.path}`;
}

/** The whitespace-delimited word containing `index` within its line [lineStart, lineEnd), e.g. `/etc/.claude/settings.json`, and its 1-based column. */
function wordAround(text: string, index: number, lineStart: number, lineEnd: number): { text: string; column: number } {
  let start = index;
  while (start > lineStart && !/[\s`'"(]/.test(text[start - 1]!)) start -= 1;
  let end = index;
  while (end < lineEnd && !/[\s`'")]/.test(text[end]!)) end += 1;
  return { text: text.slice(start, end).replace(/[.,;:]+$/, ''), column: start - lineStart + 1 };
}

/** One bundle's limits: a file's findings, in the order the target lists its limits (kept in its facts). */
export type LimitCheck = (path: string, file: TreeFile) => LimitHit[];

/** The LimitCheck of a bundle's limits, each file pattern compiled once. */
export function limitCheck(limits: readonly Limit[]): LimitCheck {
  const compiled = limits.map((limit) => ({ limit, files: new RegExp(limit.files) }));
  // A reused file's findings are in its facts (the cache key holds the target's limits), and so are an encoded one's.
  return (path, file) => (file.reused || file.encoded ? keptFact(file, 'limits') : (factsOf(file).limits = limitHits(path, file, compiled)));
}

export function checkLimits(bundle: string, tree: VirtualTree, hitsOf: LimitCheck): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const [path, file] of tree) {
    for (const hit of hitsOf(path, file)) diagnostics.push(diagnostic(`${bundle}/${path}`, hit.line, hit.column, 'limit-exceeded', hit.message));
  }
  return diagnostics;
}

/** Every limit one file breaks, in the order the target lists its limits. */
function limitHits(path: string, file: TreeFile, limits: readonly { limit: Limit; files: RegExp }[]): LimitHit[] {
  const hits: LimitHit[] = [];
  // Several limits read the same frontmatter: parsed once, when first needed.
  let parsed: EmittedFrontmatter | null | undefined;
  const frontmatterValue = (text: string, key: string) => valueOf((parsed === undefined ? (parsed = emittedFrontmatter(text)) : parsed), key);
  for (const { limit, files } of limits) {
    if (!files.test(path)) continue;
    const bytes = byteLengthOf(file);
    if (limit.maxBytes !== undefined && bytes > limit.maxBytes) hits.push({ line: 1, column: 1, message: `expected at most ${limit.maxBytes} bytes (${limit.reason}), found ${bytes}` });
    if (typeof file.contents !== 'string') continue;
    if (limit.frontmatterKey && limit.maxChars !== undefined) {
      const value = frontmatterValue(file.contents, limit.frontmatterKey);
      if (value && [...value.text].length > limit.maxChars) {
        hits.push({ line: value.line, column: value.column, message: `expected "${limit.frontmatterKey}" of at most ${limit.maxChars} characters (${limit.reason}), found ${[...value.text].length}` });
      }
    }
    if (limit.frontmatterKey && limit.pattern !== undefined) {
      const value = frontmatterValue(file.contents, limit.frontmatterKey);
      if (value && !new RegExp(limit.pattern).test(value.text)) {
        hits.push({ line: value.line, column: value.column, message: `expected "${limit.frontmatterKey}" matching /${limit.pattern}/ (${limit.reason}), found "${value.text}"` });
      }
    }
    if (limit.forbidden !== undefined) hits.push(...forbiddenText(file.contents, limit.forbidden, limit.reason));
  }
  return hits;
}

/** One diagnostic per match of `forbidden` in the body (the text after a leading frontmatter block). */
function forbiddenText(text: string, forbidden: string, reason: string): LimitHit[] {
  const bodyStart = /^---\n[\s\S]*?\n---\n/.exec(text)?.[0].length ?? 0;
  const hits: LimitHit[] = [];
  const lineOf = lineCounter(text);
  for (const match of text.slice(bodyStart).matchAll(new RegExp(forbidden, 'g'))) {
    const offset = bodyStart + match.index;
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    hits.push({ line: lineOf(offset), column: offset - lineStart + 1, message: `expected text the runtime keeps as written (${reason}), found "${match[0]}"` });
  }
  return hits;
}

function valueOf(frontmatter: EmittedFrontmatter | null, key: string): { text: string; line: number; column: number } | null {
  const scalar = frontmatterScalar(frontmatter, key);
  if (!scalar || typeof scalar.value !== 'string') return null;
  const { line, col } = frontmatter!.lineCounter.linePos(scalar.range?.[0] ?? 0);
  return { text: scalar.value, line: line + 1, column: col };
}
