// A project's own documents: the Markdown files outside .planning/, each
// sorted into a kind by the globs of doc-kinds.json, and which of them name a
// file that changed since a commit (the candidates /gsd-docs-update checks).
// Files come from git (tracked and untracked, .gitignore honoured) or, without
// git, from a bounded walk.
import fs from 'node:fs';
import path from 'node:path';
import kindsJson from './doc-kinds.json' with { type: 'json' };
import type { Ctx } from '../core/context.ts';
import { isDir, listDir } from '../core/fs.ts';
import { git } from '../core/git.ts';
import { firstMatch } from '../core/glob.ts';

interface DocKinds {
  ignore: string[];
  kinds: Record<string, string[]>;
  planning_kinds: string[];
  precedence: string[];
  extensions: string[];
  max_files: number;
}
export const DOC_KINDS = kindsJson as unknown as DocKinds;
const MAX_READ = 256 * 1024;

export interface Doc {
  path: string;
  kind: string;
  /** An ADR, PRD or spec: input for /gsd-ingest-docs. */
  planning: boolean;
  bytes: number;
  title: string | null;
}

export function kindOf(file: string): string {
  for (const [kind, globs] of Object.entries(DOC_KINDS.kinds)) if (firstMatch(globs, file)) return kind;
  return 'doc';
}

const isDocName = (file: string) => DOC_KINDS.extensions.some((ext) => file.toLowerCase().endsWith(ext));

/** Candidate paths, relative to the root, POSIX, sorted. */
function candidatePaths(ctx: Ctx, root: string): string[] {
  const listed = git(ctx, ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root });
  if (listed.ok) return [...new Set(listed.stdout.split('\0').filter(Boolean))].sort();
  const out: string[] = [];
  const walk = (dir: string, rel: string, depth: number) => {
    for (const name of listDir(dir)) {
      if (out.length > DOC_KINDS.max_files * 4) return;
      const relPath = rel ? `${rel}/${name}` : name;
      const abs = path.join(dir, name);
      if (isDir(abs)) {
        if (depth > 0 && !name.startsWith('.')) walk(abs, relPath, depth - 1);
      } else out.push(relPath);
    }
  };
  walk(root, '', 6);
  return out.sort();
}

function titleOf(text: string): string | null {
  return /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1]?.slice(0, 200) ?? null;
}

/** The project's documents under `under` (a relative folder, or everything), at most max_files. */
export function listDocs(ctx: Ctx, under: string | null): { docs: Doc[]; truncated: boolean } {
  const root = ctx.root;
  const prefix = under ? `${under.replace(/\/+$/, '')}/` : '';
  const files = candidatePaths(ctx, root).filter((f) => isDocName(f) && (prefix === '' || f.startsWith(prefix)) && !firstMatch(DOC_KINDS.ignore, f));
  const docs: Doc[] = [];
  for (const file of files.slice(0, DOC_KINDS.max_files)) {
    let bytes = 0;
    let head = '';
    try {
      const abs = path.join(root, file);
      const st = fs.lstatSync(abs);
      if (!st.isFile()) continue; // a symlink or a deleted file is not a document here
      bytes = st.size;
      const fd = fs.openSync(abs, 'r');
      try {
        const buf = Buffer.alloc(Math.min(bytes, MAX_READ));
        fs.readSync(fd, buf, 0, buf.length, 0);
        head = buf.toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      continue;
    }
    const kind = kindOf(file);
    docs.push({ path: file, kind, planning: DOC_KINDS.planning_kinds.includes(kind), bytes, title: titleOf(head) });
  }
  return { docs, truncated: files.length > DOC_KINDS.max_files };
}

/** Where a document names a changed file: by its path, or by its file name when that name is unique among the changes. */
export function mentions(text: string, changed: readonly string[]): { file: string; by: 'path' | 'name' }[] {
  const names = new Map<string, number>();
  for (const f of changed) names.set(path.posix.basename(f), (names.get(path.posix.basename(f)) ?? 0) + 1);
  const out: { file: string; by: 'path' | 'name' }[] = [];
  for (const file of changed) {
    if (text.includes(file)) out.push({ file, by: 'path' });
    else {
      const name = path.posix.basename(file);
      if (names.get(name) === 1 && name.includes('.') && hasToken(text, name)) out.push({ file, by: 'name' });
    }
  }
  return out;
}

const TOKEN_CHAR = /[A-Za-z0-9_.\/-]/;
function hasToken(text: string, token: string): boolean {
  for (let i = text.indexOf(token); i >= 0; i = text.indexOf(token, i + 1)) {
    const before = text[i - 1];
    const after = text[i + token.length];
    // `src/x.ts` inside a longer path counts as that path only when it is the whole token.
    if ((before === undefined || !TOKEN_CHAR.test(before) || before === '/') && (after === undefined || !TOKEN_CHAR.test(after) || (after === '.' && !TOKEN_CHAR.test(text[i + token.length + 1] ?? ' ')))) return true;
  }
  return false;
}
