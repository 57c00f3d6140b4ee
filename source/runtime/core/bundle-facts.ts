// What this copy of gsd-tools knows about the bundle it ships in: which
// runtime and scope, its root, the runtime's instruction file, how the
// workflows call it, and the installer's landing policy. The compiler writes
// these facts into every bundle as gsd-core/bin/runtime.json
// (compiler/emit/bundle-facts.ts), so the code itself is the same file in
// every bundle and names no runtime's paths. Run from the source tree there
// is no such file, and every caller has its own fallback.
import fs from 'node:fs';
import path from 'node:path';
import type { LandingPolicy } from '../install/bundle-types.ts';
import { decodeJson, describeJsonProblem } from './json.ts';

/** Where the facts sit, relative to gsd-core/. */
export const BUNDLE_FACTS_FILE = 'bin/runtime.json';

export interface BundleFacts {
  /** Target id, e.g. codex. */
  target: string;
  /** The runtime's display name, e.g. Codex. */
  runtime: string;
  scope: 'global' | 'local';
  /** The install root, relative to `base`. */
  root: string;
  base: 'home' | 'project';
  /** The runtime's instruction file in a project, e.g. AGENTS.md. */
  instructionFile: string;
  /** The command line the workflows use to run gsd-tools. */
  invocation: string;
  /** Where this bundle may put files (source/runtime/install/landing.ts). */
  landing: LandingPolicy;
}

const cache = new Map<string, { facts: BundleFacts | null; problem: string | null }>();

/**
 * The facts beside `coreDir`, or null with the reason. Read once per
 * process. A file that is missing is the source tree; one that does not hold
 * the expected shape is reported, never guessed at.
 */
export function readBundleFacts(coreDir: string): { facts: BundleFacts | null; problem: string | null } {
  const file = path.join(coreDir, BUNDLE_FACTS_FILE);
  let known = cache.get(file);
  if (known) return known;
  let text: string | null = null;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    text = null;
  }
  known = text === null ? { facts: null, problem: null } : parseFacts(text, file);
  cache.set(file, known);
  return known;
}

function parseFacts(text: string, file: string): { facts: BundleFacts | null; problem: string | null } {
  const { value, problem } = decodeJson<BundleFacts>(text, factsExpected);
  if (problem?.kind === 'syntax') return { facts: null, problem: `${file}: expected JSON, found a parse error (${problem.detail})` };
  return problem ? { facts: null, problem: describeJsonProblem(problem, file) } : { facts: value, problem: null };
}

/** What the value lacks to be the facts gsd-build writes, or null. */
function factsExpected(value: unknown): string | null {
  const v = value as Partial<BundleFacts> | null;
  const strings = ['target', 'runtime', 'root', 'instructionFile', 'invocation'] as const;
  const bad = v === null || typeof v !== 'object' ? 'an object' : strings.find((key) => typeof v[key] !== 'string' || v[key] === '');
  if (bad) return `${bad === 'an object' ? bad : `a non-empty string "${bad}"`}; the file is not what gsd-build writes`;
  if (v!.scope !== 'global' && v!.scope !== 'local') return `"scope" global or local, found ${JSON.stringify(v!.scope)}`;
  if (v!.base !== 'home' && v!.base !== 'project') return `"base" home or project, found ${JSON.stringify(v!.base)}`;
  const landing = v!.landing as Partial<LandingPolicy> | undefined;
  if (!landing || typeof landing !== 'object' || landing.target !== v!.target || landing.scope !== v!.scope || !Array.isArray(landing.owned) || !Array.isArray(landing.merged)) {
    return `"landing", the landing policy of ${v!.target} ${v!.scope}`;
  }
  return null;
}

/** The landing policies this gsd-tools may install or uninstall under: its own bundle's, or none (so the installer refuses). */
export function ownLandingPolicies(coreDir: string): LandingPolicy[] {
  const { facts } = readBundleFacts(coreDir);
  return facts ? [facts.landing] : [];
}

/**
 * The runtime the model tables are read for: GSD_RUNTIME, then the project's
 * `runtime` setting, then the bundle's own runtime, then claude (the corpus's
 * canonical runtime, when run from source).
 */
export function runtimeOf(env: Record<string, string | undefined>, configured: unknown, coreDir: string): string {
  if (env.GSD_RUNTIME) return env.GSD_RUNTIME;
  if (typeof configured === 'string' && configured) return configured;
  return readBundleFacts(coreDir).facts?.target ?? 'claude';
}
