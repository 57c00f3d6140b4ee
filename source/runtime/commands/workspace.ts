// workspace new | list | remove: one folder holding a worktree (or clone) of
// several repositories and one `.planning/`, for work that spans them. The
// folder's WORKSPACE.json says what was made, so `remove` undoes exactly that.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bool, list as listFlag, str } from '../cli/parse.ts';
import type { Handler } from '../cli/handler.ts';
import type { Ctx } from '../core/context.ts';
import { CliError, refused } from '../core/errors.ts';
import { exists, isDir, readTextIfExists, writeAtomic } from '../core/fs.ts';
import { git } from '../core/git.ts';
import { parseJson } from '../core/json.ts';
import { PLANNING, checkWorkstreamName } from '../planning/layout.ts';

const MANIFEST = 'WORKSPACE.json';

interface WorkspaceRepo {
  name: string;
  source: string;
  path: string;
}

interface WorkspaceManifest {
  version: 1;
  name: string;
  strategy: 'worktree' | 'clone';
  branch: string;
  created: string;
  repos: WorkspaceRepo[];
}

function workspacesDir(ctx: Ctx): string {
  const configured = ctx.env.GSD_WORKSPACES_DIR?.trim();
  return configured ? path.resolve(ctx.cwd, configured) : path.join(ctx.env.HOME ?? os.homedir(), 'gsd-workspaces');
}

function readManifest(dir: string): WorkspaceManifest | null {
  const file = path.join(dir, MANIFEST);
  const text = readTextIfExists(file);
  if (text === null) return null;
  const m = parseJson(text, file) as WorkspaceManifest;
  if (!m || m.version !== 1 || typeof m.name !== 'string' || !Array.isArray(m.repos)) throw new CliError('failed', `${file}: expected a workspace manifest (version 1, name, repos)`);
  return m;
}

function gitTop(ctx: Ctx, dir: string): string {
  const r = git(ctx, ['rev-parse', '--show-toplevel'], { cwd: dir });
  if (!r.ok) throw new CliError('invalid-args', `workspace new: --repos ${dir} is not a git repository`);
  return fs.realpathSync(r.stdout.trim());
}

const dirty = (ctx: Ctx, dir: string) => isDir(dir) && git(ctx, ['status', '--porcelain'], { cwd: dir }).stdout.trim() !== '';

const create: Handler = (inv, ctx) => {
  const name = checkWorkstreamName(inv.args.name!, 'workspace');
  const strategy = (str(inv, '--strategy') ?? 'worktree') as 'worktree' | 'clone';
  const branch = str(inv, '--branch') ?? `workspace/${name}`;
  if (!git(ctx, ['check-ref-format', '--branch', branch], { cwd: ctx.cwd }).ok) throw new CliError('invalid-args', `workspace new: --branch "${branch}" is not a valid branch name`);
  const dest = str(inv, '--path') ? path.resolve(ctx.cwd, str(inv, '--path')!) : path.join(workspacesDir(ctx), name);
  if (exists(dest)) throw refused(`workspace new: ${dest} already exists`);
  const sources = listFlag(inv, '--repos')!.map((r) => gitTop(ctx, path.resolve(ctx.cwd, r)));
  const repos: WorkspaceRepo[] = sources.map((source) => ({ name: path.basename(source), source, path: path.basename(source) }));
  const seen = new Set<string>();
  for (const r of repos) {
    if (seen.has(r.name)) throw new CliError('invalid-args', `workspace new: two repositories are named "${r.name}"; each needs its own folder name`);
    seen.add(r.name);
  }
  fs.mkdirSync(dest, { recursive: true });
  const made: WorkspaceRepo[] = [];
  try {
    for (const r of repos) {
      const target = path.join(dest, r.path);
      const step =
        strategy === 'worktree'
          ? git(ctx, ['worktree', 'add', '-b', branch, target], { cwd: r.source })
          : git(ctx, ['clone', '--quiet', r.source, target], { cwd: dest });
      if (!step.ok) throw new CliError('failed', `workspace new: ${strategy} of ${r.source} failed: ${step.stderr.trim()}`);
      made.push(r);
      if (strategy === 'clone') {
        const co = git(ctx, ['checkout', '--quiet', '-b', branch], { cwd: target });
        if (!co.ok) throw new CliError('failed', `workspace new: branch ${branch} in ${target}: ${co.stderr.trim()}`);
      }
    }
    fs.mkdirSync(path.join(dest, PLANNING), { recursive: true });
    const manifest: WorkspaceManifest = { version: 1, name, strategy, branch, created: ctx.now().toISOString(), repos };
    writeAtomic(path.join(dest, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
    // Leave nothing half made: the worktrees through git (so the repositories forget them), then the folder.
    for (const r of made) if (strategy === 'worktree') git(ctx, ['worktree', 'remove', '--force', path.join(dest, r.path)], { cwd: r.source });
    fs.rmSync(dest, { recursive: true, force: true });
    throw error;
  }
  return {
    data: { created: true, name, path: dest, strategy, branch, repos: repos.map((r) => ({ ...r, path: path.join(dest, r.path) })), next_command: '/gsd-new-project' },
    raw: dest,
  };
};

const list: Handler = (_inv, ctx) => {
  const base = workspacesDir(ctx);
  const rows: { name: string; path: string; strategy: string; branch: string; repos: string[]; has_project: boolean }[] = [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(base).sort();
  } catch {
    // no workspaces folder yet
  }
  for (const n of names) {
    const dir = path.join(base, n);
    const m = isDir(dir) ? readManifest(dir) : null;
    if (!m) continue;
    rows.push({ name: m.name, path: dir, strategy: m.strategy, branch: m.branch, repos: m.repos.map((r) => r.name), has_project: exists(path.join(dir, PLANNING, 'PROJECT.md')) });
  }
  return { data: { workspaces_dir: base, workspaces: rows, count: rows.length }, raw: rows.map((r) => `${r.name}\t${r.repos.join(', ')}\t${r.path}`).join('\n') };
};

const remove: Handler = (inv, ctx) => {
  const name = checkWorkstreamName(inv.args.name!, 'workspace');
  const dir = path.join(workspacesDir(ctx), name);
  const m = readManifest(dir);
  if (!m || m.name !== name) throw new CliError('not-found', `no workspace "${name}" in ${workspacesDir(ctx)} (a folder with ${MANIFEST})`);
  const force = bool(inv, '--force');
  const unclean = m.repos.filter((r) => dirty(ctx, path.join(dir, r.path))).map((r) => r.name);
  if (unclean.length && !force) throw refused(`workspace remove ${name}: uncommitted changes in ${unclean.join(', ')}; commit them or pass --force`, { dirty: unclean });
  const kept: string[] = [];
  for (const r of m.repos) {
    const target = path.join(dir, r.path);
    if (m.strategy === 'worktree' && isDir(r.source)) {
      const rm = git(ctx, ['worktree', 'remove', ...(force ? ['--force'] : []), target], { cwd: r.source });
      if (!rm.ok && isDir(target)) throw new CliError('failed', `workspace remove ${name}: git worktree remove ${target}: ${rm.stderr.trim()}`);
      kept.push(`${r.source} (branch ${m.branch})`);
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  // Branches stay: their commits may be all that is left of the work.
  return { data: { removed: true, name, path: dir, branches_kept: kept, discarded_changes: force ? unclean : [] } };
};

export const handlers: Record<string, Handler> = {
  'workspace new': create,
  'workspace list': list,
  'workspace remove': remove,
};
