// docs list | stale: the project's own documents (outside .planning/) with
// their kind, and the ones that name a file changed since a commit, so
// /gsd-docs-update knows what to check and /gsd-ingest-docs what to read.
// Sorting rules are data (planning/doc-kinds.json); logic in planning/docs.ts.
import fs from 'node:fs';
import path from 'node:path';
import { str } from '../cli/parse.ts';
import { CliError, notFound } from '../core/errors.ts';
import { git } from '../core/git.ts';
import { confine } from '../core/paths.ts';
import { DOC_KINDS, listDocs, mentions } from '../planning/docs.ts';
import type { Handler } from '../cli/handler.ts';

const MAX_DOC_BYTES = 1024 * 1024;

function underOf(inv: Parameters<Handler>[0], root: string): string | null {
  const under = str(inv, '--under');
  if (under === undefined) return null;
  const abs = confine(root, under, '--under');
  return path.relative(root, abs).split(path.sep).join('/') || null;
}

const list: Handler = (inv, ctx) => {
  const { docs, truncated } = listDocs(ctx, underOf(inv, ctx.root));
  const counts: Record<string, number> = {};
  for (const d of docs) counts[d.kind] = (counts[d.kind] ?? 0) + 1;
  const planning = docs.filter((d) => d.planning);
  return {
    data: { count: docs.length, truncated, counts, planning_count: planning.length, precedence: DOC_KINDS.precedence, docs },
    raw: docs.map((d) => `${d.kind}\t${d.path}`).join('\n'),
  };
};

// A ref is a name git resolves, never an option: no leading '-', no spaces or control characters.
const REF = /^[A-Za-z0-9_][A-Za-z0-9_.\/~^@{}-]{0,199}$/;

const stale: Handler = (inv, ctx) => {
  const since = str(inv, '--since')!;
  if (!REF.test(since)) throw new CliError('invalid-args', `--since "${since}": expected a commit, tag or branch name such as HEAD~5 or v1.2`);
  const commit = git(ctx, ['rev-parse', '--verify', '--quiet', `${since}^{commit}`]);
  if (!commit.ok) throw notFound(`--since "${since}" is not a commit of this repository`);
  const base = commit.stdout.trim();
  const diff = git(ctx, ['diff', '--name-only', '--no-renames', '-z', base, 'HEAD', '--']);
  if (!diff.ok) throw new CliError('failed', `git diff ${since}..HEAD failed: ${diff.stderr.trim()}`);
  const changedAll = diff.stdout.split('\0').filter(Boolean).sort();
  const { docs, truncated } = listDocs(ctx, underOf(inv, ctx.root));
  const docSet = new Set(docs.map((d) => d.path));
  // Code and config that changed; documents that changed are reported apart (already touched).
  const changed = changedAll.filter((f) => !docSet.has(f) && !f.startsWith('.planning/'));
  const result = [];
  for (const doc of docs) {
    if (doc.bytes > MAX_DOC_BYTES) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(ctx.root, doc.path), 'utf8');
    } catch {
      continue;
    }
    const hits = mentions(text, changed);
    if (hits.length) result.push({ path: doc.path, kind: doc.kind, mentions: hits });
  }
  return {
    data: { since, base: base.slice(0, 12), changed_count: changed.length, changed, docs_changed: changedAll.filter((f) => docSet.has(f)), stale_count: result.length, stale: result, checked: docs.length, truncated },
    raw: result.map((d) => `${d.path}: ${d.mentions.map((m) => m.file).join(', ')}`).join('\n') || 'no document names a changed file',
  };
};

export const handlers: Record<string, Handler> = { 'docs list': list, 'docs stale': stale };
