// The one resolver for paths under `.planning/`. A workstream is a parallel
// track with its own STATE, ROADMAP, REQUIREMENTS, phases and milestones
// under `.planning/workstreams/<name>/`; what every track shares (PROJECT.md,
// the base config, captured items, the codebase map) stays in `.planning/`
// (the list is data: layout.json). Which workstream a call works in: `--ws`,
// then GSD_WORKSTREAM, then this session's pointer, then the project's
// pointer, else none (the project's own files, as before workstreams).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '../core/errors.ts';
import { isDir, readTextIfExists, safeUnlink, writeAtomic } from '../core/fs.ts';
import facts from './layout.json' with { type: 'json' };

/** The project's planning folder, named here only. */
export const PLANNING = '.planning';
const SHARED = new Set<string>(facts.shared);
export const WORKSTREAMS = 'workstreams';
/** Per-session pointers; the folder ignores itself so `commit` never carries them. */
const SESSIONS = '.sessions';
const PROJECT_POINTER = 'active-workstream';
// Bounded, no nesting: linear on any input. A leading letter or digit keeps `.sessions` and `..` out.
const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,47}$/;

export type WorkstreamSource = 'flag' | 'env' | 'session' | 'project' | null;

export interface PlanningLayout {
  /** `<root>/.planning`: the shared folder. */
  shared: string;
  /** The selected workstream's folder, or `shared` when none is selected. */
  scoped: string;
  workstream: string | null;
  source: WorkstreamSource;
}

export function checkWorkstreamName(name: string, label = 'workstream'): string {
  if (!NAME_RE.test(name)) {
    throw new CliError('invalid-args', `${label}: expected a name of 1-48 lowercase letters, digits, "-" or "_" starting with a letter or digit, found ${JSON.stringify(name)}`);
  }
  return name;
}

export const workstreamsDir = (root: string) => path.join(root, PLANNING, WORKSTREAMS);
export const workstreamDir = (root: string, name: string) => path.join(workstreamsDir(root), checkWorkstreamName(name));

/** The names of the project's workstreams, sorted. */
export function listWorkstreams(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(workstreamsDir(root));
  } catch {
    return [];
  }
  return names.filter((n) => NAME_RE.test(n) && isDir(path.join(workstreamsDir(root), n))).sort();
}

/** The session's key (first set variable of layout.json's list), hashed so it names a file safely. */
export function sessionKey(env: Record<string, string | undefined>): string | null {
  for (const name of facts.sessionEnv) {
    const v = env[name];
    if (v && v.trim()) return crypto.createHash('sha256').update(`${name}=${v}`).digest('hex').slice(0, 24);
  }
  return null;
}

const sessionPointer = (root: string, key: string) => path.join(workstreamsDir(root), SESSIONS, key);
const projectPointer = (root: string) => path.join(root, PLANNING, PROJECT_POINTER);

function readPointer(file: string): string | null | undefined {
  const text = readTextIfExists(file);
  if (text === null) return undefined;
  const name = text.trim();
  return name === '' ? null : name;
}

/**
 * Which workstream this call works in, and why. An explicit choice (`--ws`,
 * GSD_WORKSTREAM) that names no workstream is an error; a pointer that does
 * is stale and means none (with a warning), so an old pointer never blocks.
 * A session with a pointer of its own never falls through to the project's.
 */
export function selectWorkstream(root: string, env: Record<string, string | undefined>, flag: string | undefined, warn: (m: string) => void): { name: string | null; source: WorkstreamSource } {
  const explicit = (name: string, source: 'flag' | 'env', label: string) => {
    checkWorkstreamName(name, label);
    if (!isDir(workstreamDir(root, name))) {
      const known = listWorkstreams(root);
      throw new CliError('not-found', `${label}: no workstream "${name}" under .planning/workstreams/ (${known.length ? `known: ${known.join(', ')}` : 'none yet'}; create it with workstreams create ${name})`);
    }
    return { name, source };
  };
  if (flag !== undefined) return explicit(flag, 'flag', '--ws');
  const fromEnv = env.GSD_WORKSTREAM?.trim();
  if (fromEnv) return explicit(fromEnv, 'env', 'GSD_WORKSTREAM');
  const pointed = (file: string, source: 'session' | 'project') => {
    const name = readPointer(file);
    if (name === undefined) return undefined;
    if (name === null) return { name: null, source };
    if (!NAME_RE.test(name) || !isDir(path.join(workstreamsDir(root), name))) {
      warn(`${path.relative(root, file).split(path.sep).join('/')} points to workstream ${JSON.stringify(name)}, which does not exist; working without a workstream`);
      return { name: null, source };
    }
    return { name, source };
  };
  const key = sessionKey(env);
  const own = key ? pointed(sessionPointer(root, key), 'session') : undefined;
  if (own) return own;
  return pointed(projectPointer(root), 'project') ?? { name: null, source: null };
}

export function planningLayout(root: string, selected: { name: string | null; source: WorkstreamSource }): PlanningLayout {
  const shared = path.join(root, PLANNING);
  const scoped = selected.name ? workstreamDir(root, selected.name) : shared;
  return { shared, scoped, workstream: selected.name, source: selected.source };
}

/** A path under `.planning/`: shared entries from the shared folder, the rest from the selected workstream's. */
export function resolvePlanning(layout: PlanningLayout, parts: string[]): string {
  const first = parts[0]?.split(/[\\/]/)[0];
  return path.join(first !== undefined && SHARED.has(first) ? layout.shared : layout.scoped, ...parts);
}

/**
 * Point this session (or, with no session variable set, the project) at a
 * workstream, or at none with null. Returns which pointer was written.
 */
export function setActiveWorkstream(root: string, env: Record<string, string | undefined>, name: string | null): { scope: 'session' | 'project'; file: string } {
  const key = sessionKey(env);
  if (key) {
    const file = sessionPointer(root, key);
    const dir = path.dirname(file);
    fs.mkdirSync(dir, { recursive: true });
    if (readTextIfExists(path.join(dir, '.gitignore')) === null) writeAtomic(path.join(dir, '.gitignore'), '*\n');
    writeAtomic(file, `${name ?? ''}\n`);
    return { scope: 'session', file };
  }
  const file = projectPointer(root);
  if (name === null) safeUnlink(file);
  else writeAtomic(file, `${name}\n`);
  return { scope: 'project', file };
}

/** Remove every pointer (session or project) naming `name`; returns how many. */
export function clearPointersTo(root: string, name: string): number {
  let cleared = 0;
  const files = [projectPointer(root)];
  try {
    const dir = path.join(workstreamsDir(root), SESSIONS);
    for (const f of fs.readdirSync(dir)) if (f !== '.gitignore') files.push(path.join(dir, f));
  } catch {
    // no session pointers yet
  }
  for (const f of files) {
    if (readPointer(f) === name) {
      safeUnlink(f);
      cleared++;
    }
  }
  return cleared;
}
