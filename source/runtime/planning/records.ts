// Records: one Markdown file per item (todo, seed, thread, debug session)
// with a small YAML frontmatter, kept in a folder under .planning/. The verbs
// that manage them share these helpers: a unique file name, lookup by name or
// unique suffix, reading the frontmatter leniently for listings, and a move
// between folders that never leaves two copies or none.
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../core/context.ts';
import { CliError, notFound, usage } from '../core/errors.ts';
import { exists, listDir, readText, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { readFrontmatter, withFrontmatter, type Frontmatter, type YamlMap } from '../md/frontmatter.ts';

export interface Rec {
  /** File name without `.md`. */
  id: string;
  /** Absolute path. */
  file: string;
  text: string;
  fm: YamlMap;
  /** Null when the frontmatter did not parse (listings warn and go on). */
  parsed: Frontmatter | null;
}

/** Record files of `dir`, sorted by name; `skip` names files that live there but are not records. */
export function recordFiles(dir: string, skip: readonly string[] = []): string[] {
  // Sorted by id, so `x` comes before `x-2` (by file name, `-` sorts before `.`).
  return listDir(dir)
    .filter((n) => n.endsWith('.md') && !skip.includes(n))
    .map((n) => n.slice(0, -3))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((id) => path.join(dir, `${id}.md`));
}

/** Run `fn` under the planning lock, which every record change takes (names are picked inside it). */
export const withPlanningLock = <T>(ctx: Ctx, fn: () => T): T => withLock(ctx.planningPath('.lock'), fn);

/** The record's text with `changes` merged into its frontmatter (untouched keys keep their spelling) and `body` (default: unchanged). */
export function rewriteRecord(rec: Rec, changes: YamlMap, body = rec.parsed!.split.body): string {
  return withFrontmatter({ ...rec.fm, ...changes }, body, rec.parsed!.split.yaml === null ? undefined : rec.parsed!);
}

/** Strict read: a frontmatter error is the caller's error. */
export function readRecord(ctx: Ctx, file: string): Rec {
  const text = readText(file);
  const parsed = readFrontmatter(text, ctx.rel(file));
  return { id: path.basename(file, '.md'), file, text, fm: parsed.data, parsed };
}

/** Lenient read for listings: a broken frontmatter becomes a warning and an empty map. */
export function peekRecord(ctx: Ctx, file: string): Rec {
  try {
    return readRecord(ctx, file);
  } catch (error) {
    ctx.warn((error as Error).message);
    return { id: path.basename(file, '.md'), file, text: readText(file), fm: {}, parsed: null };
  }
}

export function textField(fm: YamlMap, key: string): string | null {
  const v = fm[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** The record's title: frontmatter `title`, else its first H1, else its id. */
export function recordTitle(rec: Rec): string {
  return textField(rec.fm, 'title') ?? /^#\s+(.+)$/m.exec(rec.text)?.[1]?.trim() ?? rec.id;
}

/**
 * A file name `<base>.md` not taken in any of `dirs` (then `<base>-2.md`, …).
 * Call under the planning lock so two writers cannot pick the same name.
 */
export function freeName(base: string, dirs: readonly string[]): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? `${base}.md` : `${base}-${n}.md`;
    if (!dirs.some((d) => exists(path.join(d, name)))) return name;
  }
}

/**
 * The record in `dir` called `id`: its exact file name, or the one name that
 * ends with `-<id>` or starts with `<id>-` (so a slug finds a dated file and
 * `SEED-003` or the first words of a slug find theirs).
 */
export function findRecord(ctx: Ctx, dir: string, id: string, what: string, skip: readonly string[] = []): string {
  const want = id.replace(/\.md$/, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(want)) throw usage(`${what} "${id}" is not a file name (letters, digits, ".", "_" and "-")`);
  const names = recordFiles(dir, skip).map((f) => path.basename(f, '.md'));
  if (names.includes(want)) return path.join(dir, `${want}.md`);
  const hits = names.filter((n) => n.endsWith(`-${want}`) || n.startsWith(`${want}-`));
  if (hits.length > 1) throw new CliError('invalid-args', `${what} "${id}" matches ${hits.length} files in ${ctx.rel(dir)}: ${hits.join(', ')}; give the full name`);
  if (hits.length === 0) {
    throw notFound(`no ${what} "${id}" in ${ctx.rel(dir)}${names.length ? `; there are: ${names.join(', ')}` : ''}`);
  }
  return path.join(dir, `${hits[0]}.md`);
}

/**
 * Write `text` as the new content of `from` and move it into `toDir`. The
 * content is written in place first (atomic), then renamed (atomic on one
 * file system), so a crash leaves either the old or the new file, never both.
 */
export function moveRecord(from: string, toDir: string, text: string): string {
  const to = path.join(toDir, path.basename(from));
  if (exists(to)) throw new CliError('refused', `${to} already exists; not overwriting it`);
  writeAtomic(from, text);
  fs.mkdirSync(toDir, { recursive: true });
  fs.renameSync(from, to);
  return to;
}

/** Trimmed, single-spaced text of a variadic title argument. */
export function titleArg(text: string): string {
  const title = text.trim().replace(/\s+/g, ' ');
  if (!title) throw usage('the title is empty');
  return title;
}

/** The Markdown body under a record's frontmatter: an H1 and the optional text. */
export function recordBody(title: string, body: string | undefined): string {
  return `\n# ${title}\n${body?.trim() ? `\n${body.trim()}\n` : ''}`;
}
