// Codebase drift: how much of the repository's structure changed since the
// codebase map (.planning/codebase/*.md) was made. The map's documents carry
// `last_mapped_commit` and `mapped_paths` in their frontmatter; the paths
// added in last_mapped_commit..HEAD are sorted into four kinds by the globs of
// drift-patterns.json. Detection never fails: anything it cannot read becomes
// status "unknown" with the reason.
import path from 'node:path';
import patternsJson from './drift-patterns.json' with { type: 'json' };
import type { Ctx } from '../core/context.ts';
import { listDir, readTextIfExists } from '../core/fs.ts';
import { git, repoInfo } from '../core/git.ts';
import { firstMatch } from '../core/glob.ts';
import { readFrontmatter } from '../md/frontmatter.ts';

export const DRIFT_KINDS = ['new_top_level_folders', 'entry_points', 'migrations', 'route_modules'] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];
export type DriftAction = 'warn' | 'auto-remap';

interface Patterns {
  ignore: string[];
  entry_points: Record<string, string[]>;
  migrations: Record<string, string[]>;
  route_modules: Record<string, string[]>;
}
const PATTERNS = patternsJson as unknown as Patterns;
const globsOf = (group: Record<string, string[]>) => Object.values(group).flat();

/** What the map says about itself: the commit it describes and the paths it covers ([] = the whole repository). */
export interface MapStamp {
  commit: string | null;
  paths: string[];
  /** Documents whose stamp differs from the one used (a partial refresh). */
  others: { file: string; commit: string }[];
  documents: string[];
}

export type Findings = Record<DriftKind, string[]>;

/** The stamp of one map document: `last_mapped_commit` read as text (a hash of digits must not turn into a number). */
function stampOf(text: string, file: string): { commit: string | null; paths: string[] } {
  let data: Record<string, unknown> = {};
  let lines: string[] = [];
  try {
    const fm = readFrontmatter(text, file);
    data = fm.data as Record<string, unknown>;
    lines = (fm.split.yaml ?? '').split(/\r?\n/);
  } catch {
    return { commit: null, paths: [] };
  }
  const line = lines.find((l) => l.startsWith('last_mapped_commit:'));
  const raw = line === undefined ? '' : line.slice('last_mapped_commit:'.length).trim().replace(/^["']|["']$/g, '');
  const commit = raw === '' || raw === 'none' || raw === 'null' || raw.includes('{{') ? null : raw;
  return { commit, paths: pathList(data.mapped_paths) };
}

/** `mapped_paths` as written: a YAML list or a comma-separated string; "." or empty means the whole repository. */
export function pathList(value: unknown): string[] {
  const items = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(',') : [];
  const clean = items.map((p) => p.trim().replace(/^\.\//, '').replace(/\/+$/, '')).filter((p) => p !== '');
  return clean.includes('.') ? [] : [...new Set(clean)].sort();
}

/** Read the stamp of the map in `<planning>/codebase/`; STRUCTURE.md's wins when documents disagree. */
export function readMapStamp(ctx: Ctx): MapStamp {
  const dir = ctx.planningPath('codebase');
  const documents = listDir(dir).filter((n) => n.endsWith('.md')).sort();
  const stamps = documents.map((n) => ({ file: n, ...stampOf(readTextIfExists(path.join(dir, n)) ?? '', ctx.rel(path.join(dir, n))) })).filter((s) => s.commit !== null);
  const chosen = stamps.find((s) => s.file === 'STRUCTURE.md') ?? stamps[0];
  if (!chosen) return { commit: null, paths: [], others: [], documents };
  return {
    commit: chosen.commit,
    paths: chosen.paths,
    others: stamps.filter((s) => s.commit !== chosen.commit).map((s) => ({ file: s.file, commit: s.commit! })),
    documents,
  };
}

const within = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);

/**
 * Sort added paths into the four kinds. `before` holds the top-level names
 * that existed at the mapped commit; `mapped` the paths the map covers ([]:
 * everything). A new top-level folder counts when no mapped path covers it;
 * the other kinds count only inside what was mapped.
 */
export function classifyDrift(added: readonly string[], before: ReadonlySet<string>, mapped: readonly string[], patterns: Patterns = PATTERNS): Findings {
  const out: Findings = { new_top_level_folders: [], entry_points: [], migrations: [], route_modules: [] };
  const covered = (file: string) => mapped.length === 0 || mapped.some((m) => within(file, m));
  const folders = new Set<string>();
  for (const file of [...added].sort()) {
    if (firstMatch(patterns.ignore, file)) continue;
    const slash = file.indexOf('/');
    if (slash > 0) {
      const top = file.slice(0, slash);
      if (!before.has(top) && !mapped.some((m) => within(top, m))) folders.add(top);
    }
    if (!covered(file)) continue;
    if (firstMatch(globsOf(patterns.entry_points), file)) out.entry_points.push(file);
    else if (firstMatch(globsOf(patterns.migrations), file)) out.migrations.push(file);
    else if (firstMatch(globsOf(patterns.route_modules), file)) out.route_modules.push(file);
  }
  out.new_top_level_folders = [...folders].sort();
  return out;
}

/** Where a remap should look: the top-level folder of every finding (a root-level file: the file itself). */
export function remapPaths(findings: Findings): string[] {
  const tops = DRIFT_KINDS.flatMap((k) => findings[k]).map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : f));
  return [...new Set(tops)].sort();
}

export type DriftReport =
  | { status: 'unknown'; reason: string; mapped_commit: string | null }
  | { status: 'clean' | 'drifted'; mapped_commit: string; head: string; mapped_paths: string[]; findings: Findings };

/** Gather the facts from git: the stamp, the commit range, the added paths. Never throws for a repository problem. */
export function detectDrift(ctx: Ctx): DriftReport {
  const stamp = readMapStamp(ctx);
  if (stamp.documents.length === 0) return { status: 'unknown', reason: 'no codebase map in .planning/codebase/ (run /gsd-map-codebase)', mapped_commit: null };
  if (!stamp.commit) return { status: 'unknown', reason: 'the codebase map has no last_mapped_commit stamp (remap to add one)', mapped_commit: null };
  if (!repoInfo(ctx, ctx.root)) return { status: 'unknown', reason: 'the project is not in a git repository', mapped_commit: stamp.commit };
  const base = git(ctx, ['rev-parse', '--verify', '--quiet', `${stamp.commit}^{commit}`]);
  if (!base.ok) return { status: 'unknown', reason: `last_mapped_commit ${stamp.commit} is not a commit of this repository`, mapped_commit: stamp.commit };
  const head = git(ctx, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!head.ok) return { status: 'unknown', reason: 'HEAD has no commit', mapped_commit: stamp.commit };
  const from = base.stdout.trim();
  const to = head.stdout.trim();
  const diff = git(ctx, ['diff', '--name-only', '--diff-filter=A', '--no-renames', '-z', from, to]);
  const tree = git(ctx, ['ls-tree', '--name-only', '-z', from]);
  if (!diff.ok || !tree.ok) return { status: 'unknown', reason: `git could not compare ${stamp.commit}..HEAD: ${(diff.stderr || tree.stderr).split('\n')[0]}`, mapped_commit: stamp.commit };
  const added = diff.stdout.split('\0').filter(Boolean);
  const before = new Set(tree.stdout.split('\0').filter(Boolean));
  const findings = classifyDrift(added, before, stamp.paths);
  return { status: 'clean', mapped_commit: stamp.commit, head: to, mapped_paths: stamp.paths, findings };
}

/** The answer of `verify codebase-drift`: counts against the threshold and what to do. */
export function judgeDrift(report: DriftReport, threshold: number, action: DriftAction) {
  if (report.status === 'unknown') {
    return { status: 'unknown', reason: report.reason, mapped_commit: report.mapped_commit, threshold, action: 'none', message: `cannot tell whether the codebase drifted: ${report.reason}` };
  }
  const counts = Object.fromEntries(DRIFT_KINDS.map((k) => [k, report.findings[k].length])) as Record<DriftKind, number>;
  const total = DRIFT_KINDS.reduce((n, k) => n + counts[k], 0);
  const drifted = total >= threshold;
  const summary = DRIFT_KINDS.filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k.replace(/_/g, ' ')}`).join(', ') || 'no structural change';
  return {
    status: drifted ? 'drifted' : 'clean',
    mapped_commit: report.mapped_commit,
    head: report.head,
    mapped_paths: report.mapped_paths,
    counts,
    total,
    threshold,
    action: drifted ? action : 'none',
    remap_paths: drifted ? remapPaths(report.findings) : [],
    findings: report.findings,
    message: `${summary} since ${report.mapped_commit} (threshold ${threshold})${drifted ? (action === 'auto-remap' ? ': remap the affected paths' : ': the codebase map is out of date') : ''}`,
  };
}
