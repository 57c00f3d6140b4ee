// pr-branch <name>: a branch for review that holds the current branch's code
// changes without its .planning/ changes. Built with git plumbing only: each
// commit since the merge base is copied with its own tree minus .planning/
// (the merge base's .planning/ is kept, so the review diff shows none), its
// author, committer, dates and message; commits that changed nothing but
// planning files are left out. The user's branch, HEAD, index and working tree
// are never touched, and the new ref is created only if it does not exist.
import { bool, str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, refused, usage } from '../core/errors.ts';
import { git, repoInfo, workRoot, type RepoInfo } from '../core/git.ts';
import type { Handler } from '../cli/handler.ts';
// The whole planning folder (every workstream's included): the review branch leaves all of it out.
import { PLANNING } from '../planning/layout.ts';


function must(ctx: Ctx, info: RepoInfo, args: string[], what: string, opts: { input?: string; env?: Record<string, string> } = {}): string {
  const r = git(ctx, args, { cwd: info.top, ...opts });
  if (!r.ok) throw new CliError('failed', `${what} failed: git ${args[0]}: ${r.stderr || `exit ${r.code}`}`);
  return r.stdout;
}

/** The object id `rev` names, or null when it names nothing. */
function oid(ctx: Ctx, info: RepoInfo, rev: string): string | null {
  const r = git(ctx, ['rev-parse', '-q', '--verify', '--end-of-options', rev], { cwd: info.top });
  return r.ok ? r.stdout.trim() : null;
}

/** The base to branch from: --base, else origin's default branch, else main or master. */
function baseRef(ctx: Ctx, info: RepoInfo, given: string | undefined): string {
  if (given !== undefined) {
    if (!oid(ctx, info, `${given}^{commit}`)) throw usage(`--base "${given}" is not a commit in this repository`);
    return given;
  }
  const remote = git(ctx, ['symbolic-ref', '-q', '--short', 'refs/remotes/origin/HEAD'], { cwd: info.top });
  if (remote.ok && remote.stdout.trim()) return remote.stdout.trim();
  for (const b of ['main', 'master']) if (oid(ctx, info, `refs/heads/${b}`)) return b;
  throw usage('no base branch found (no origin/HEAD, main or master): pass --base <branch>');
}

/** The top-level entries of `commit`'s tree, as `ls-tree -z` writes them. */
function topEntries(ctx: Ctx, info: RepoInfo, commit: string): string[] {
  return must(ctx, info, ['ls-tree', '-z', commit], 'reading a tree').split('\0').filter((e) => e !== '');
}

const isPlanning = (entry: string) => entry.slice(entry.indexOf('\t') + 1) === PLANNING;

/** The tree of `commit` with its .planning entry replaced by `planning` (the base's entry as it is, or none). */
function treeWithout(ctx: Ctx, info: RepoInfo, commit: string, planning: string | null): string {
  const entries = topEntries(ctx, info, commit).filter((e) => !isPlanning(e));
  if (planning) entries.push(planning);
  return must(ctx, info, ['mktree', '-z'], 'writing a tree', { input: entries.map((e) => `${e}\0`).join('') }).trim();
}

const prBranch: Handler = (inv, ctx) => {
  const info = repoInfo(ctx, workRoot(ctx));
  if (!info) throw new CliError('not-found', `${ctx.root} is not inside a git repository`);
  const name = inv.args.name!;
  if (!git(ctx, ['check-ref-format', '--branch', name], { cwd: info.top }).ok || name.startsWith('-')) throw usage(`"${name}" is not a valid branch name`);
  if (oid(ctx, info, `refs/heads/${name}`)) throw refused(`branch ${name} already exists; pick another name or delete it first`);
  const head = oid(ctx, info, 'HEAD^{commit}');
  if (!head) throw refused('HEAD has no commit yet');
  const base = baseRef(ctx, info, str(inv, '--base'));
  // By object id from here on: a ref name never reaches git's option parser.
  const baseCommit = oid(ctx, info, `${base}^{commit}`);
  if (!baseCommit) throw usage(`base "${base}" does not name a commit: pass --base <branch>`);
  const mergeBase = must(ctx, info, ['merge-base', baseCommit, head], `finding where ${base} and HEAD part`).trim();
  const list = must(ctx, info, ['rev-list', '--reverse', '--first-parent', `${mergeBase}..${head}`], 'listing commits').split('\n').filter(Boolean);
  const basePlanning = topEntries(ctx, info, mergeBase).find(isPlanning) ?? null;
  let parent = mergeBase;
  let parentTree = treeWithout(ctx, info, mergeBase, basePlanning);
  const commits: { commit: string; subject: string; kind: 'code' | 'planning' | 'mixed' | 'empty'; copy: string | null }[] = [];
  for (const c of list) {
    const [an, ae, ad, cn, ce, cd, ...msg] = must(ctx, info, ['show', '-s', '--format=%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B', '--date=raw', c], 'reading a commit').split('\0');
    const message = msg.join('\0').replace(/\n+$/, '\n');
    const tree = treeWithout(ctx, info, c, basePlanning);
    const planningChanged = oid(ctx, info, `${c}:${PLANNING}`) !== oid(ctx, info, `${c}^1:${PLANNING}`);
    const codeChanged = tree !== parentTree;
    const kind = codeChanged ? (planningChanged ? 'mixed' : 'code') : planningChanged ? 'planning' : 'empty';
    const subject = message.split('\n')[0] ?? '';
    if (!codeChanged) {
      commits.push({ commit: c, subject, kind, copy: null });
      continue;
    }
    // The copy keeps the original's identity and dates, so the same history always gives the same branch.
    const env = { GIT_AUTHOR_NAME: an!, GIT_AUTHOR_EMAIL: ae!, GIT_AUTHOR_DATE: ad!, GIT_COMMITTER_NAME: cn!, GIT_COMMITTER_EMAIL: ce!, GIT_COMMITTER_DATE: cd! };
    const copy = must(ctx, info, ['commit-tree', tree, '-p', parent, '-F', '-'], 'writing a commit', { input: message, env }).trim();
    commits.push({ commit: c, subject, kind, copy });
    parent = copy;
    parentTree = tree;
  }
  const included = commits.filter((c) => c.copy).length;
  const data = { branch: name, base, merge_base: mergeBase, head, tip: included ? parent : null, commits, included, left_out: commits.length - included, planning_kept_from_base: basePlanning !== null };
  if (included === 0) throw refused(`no code changes between ${base} and HEAD: every commit since ${mergeBase.slice(0, 12)} only changed ${PLANNING}/ (or nothing)`, data);
  if (bool(inv, '--dry-run')) return { data: { ...data, dry_run: true, created: false } };
  // Create only: an empty old value makes git refuse when the branch appeared meanwhile.
  const r = git(ctx, ['update-ref', '-m', 'gsd pr-branch', `refs/heads/${name}`, parent, ''], { cwd: info.top });
  if (!r.ok) throw refused(`branch ${name} was not created: ${r.stderr}`);
  return { data: { ...data, dry_run: false, created: true }, raw: name };
};

export const handlers: Record<string, Handler> = { 'pr-branch': prBranch };
