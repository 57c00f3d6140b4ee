// Helpers shared by the tests: compile a fixture tree, build bundles in memory.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.ts';
import { allBundles, compile, emitBundles, errorsOf } from '../pipeline.ts';
import { DEFAULT_TARGETS_DIR } from '../targets/load-targets.ts';
import { parseLayout, type Layout } from '../load/layout.ts';
import { readBuildConfig } from '../load/build-config.ts';
import { goldenPaths } from '../golden/compare-golden.ts';

export const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

/**
 * Every diagnostic a fixture produces, formatted as the CLI prints them:
 * targets/… for target definitions, source-relative paths for the corpus,
 * <target>/<scope>/… for emitted files (only reached when load and check find no error).
 */
export async function diagnoseTree(dir: string): Promise<string[]> {
  const targetsDir = existsSync(path.join(dir, 'targets')) ? path.join(dir, 'targets') : DEFAULT_TARGETS_DIR;
  // A fixture's own gsd-build.json is read as the CLI reads the one in its working folder.
  const buildConfig = readBuildConfig(dir);
  if (buildConfig.diagnostics.length > 0) return buildConfig.diagnostics.map((d) => formatDiagnostic(d));
  // A fixture's own golden/ folder is listed as `gsd-build check` lists it.
  if (existsSync(path.join(dir, 'golden'))) {
    const { strays } = goldenPaths(path.join(dir, 'golden'));
    if (strays.length > 0) return strays.map((d) => formatDiagnostic(d, 'golden'));
  }
  // A fixture's own layout.json is read as `--layout FILE` would read it.
  let layout: Layout | undefined;
  if (existsSync(path.join(dir, 'layout.json'))) {
    const parsed = parseLayout('layout.json', readFileSync(path.join(dir, 'layout.json'), 'utf8'));
    if (!parsed.layout) return parsed.diagnostics.map((d) => formatDiagnostic(d));
    layout = parsed.layout;
  }
  const compiled = await compile({ sourceDir: path.join(dir, 'source'), targetsDir, ...(layout ? { layout } : {}) });
  const lines = [
    ...compiled.targetDiagnostics.map((d) => formatDiagnostic(d, 'targets')),
    ...compiled.diagnostics.map((d) => formatDiagnostic(d)),
  ];
  if (errorsOf([...compiled.targetDiagnostics, ...compiled.diagnostics]).length === 0) {
    lines.push(...emitBundles(compiled, allBundles(compiled.targets)).diagnostics.map((d) => formatDiagnostic(d)));
  }
  return lines;
}

import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { REPO_ROOT } from '../pipeline.ts';

const BIN = path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs');

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI as a user would, from the repository root unless told otherwise. */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string>; umask?: string } = {}): CliResult {
  // The IR as JSON is past spawnSync's default 1 MiB buffer, which would cut it short.
  const spawnOptions = { cwd: options.cwd ?? REPO_ROOT, env: { ...process.env, ...options.env }, encoding: 'utf8' as const, maxBuffer: 64 * 1024 * 1024 };
  const command = options.umask
    ? spawnSync('sh', ['-c', `umask ${options.umask} && exec "$0" "$@"`, process.execPath, BIN, ...args], spawnOptions)
    : spawnSync(process.execPath, [BIN, ...args], spawnOptions);
  return { status: command.status ?? -1, stdout: command.stdout, stderr: command.stderr };
}

/** runCli without waiting: several at once, as several agents or maintainers run it. */
export function runCliAsync(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      if (status === null) reject(error);
      else resolve({ status, stdout, stderr });
    });
  });
}

export function temporaryDir(label: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `gsd-build-${label}-`));
}

/**
 * A copy of the project's source/ tree to mutate. It lives under the
 * project's node_modules/.cache so that its runtime build script resolves the
 * project's packages (esbuild) as the original does.
 */
export function copySource(): string {
  const cache = path.join(REPO_ROOT, 'node_modules/.cache/gsd-build-tests');
  mkdirSync(cache, { recursive: true });
  // The runtime build reads ../schemas next to the source tree, as in the project,
  // and the release public key from ../compiler/data.
  const sandbox = mkdtempSync(path.join(cache, 'tree-'));
  symlinkSync(path.join(REPO_ROOT, 'schemas'), path.join(sandbox, 'schemas'));
  mkdirSync(path.join(sandbox, 'compiler'));
  symlinkSync(path.join(REPO_ROOT, 'compiler', 'data'), path.join(sandbox, 'compiler', 'data'));
  writeFileSync(path.join(sandbox, 'package.json'), '{ "type": "module" }\n');
  const dir = path.join(sandbox, 'source');
  cpSync(path.join(REPO_ROOT, 'source'), dir, { recursive: true });
  return dir;
}

/** Every file under dir: relative path → { bytes, mode }. */
export function snapshotTree(dir: string): Map<string, { bytes: string; mode: number }> {
  const files = new Map<string, { bytes: string; mode: number }>();
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      const mode = statSync(full).mode & 0o777;
      const relative = path.relative(dir, full);
      if (entry.isDirectory()) {
        files.set(`${relative}/`, { bytes: '', mode });
        walk(full);
      } else {
        files.set(relative, { bytes: readFileSync(full).toString('base64'), mode });
      }
    }
  };
  walk(dir);
  return files;
}

/** How many bundles the target definitions of this repository declare (one per target scope). */
export async function declaredBundleCount(): Promise<number> {
  const { loadTargets } = await import('../targets/load-targets.ts');
  const { allBundles } = await import('../pipeline.ts');
  return allBundles((await loadTargets()).targets).length;
}

/** The zips `gsd-build release` writes for source/: one per target scope for full and for each profile profiles.json releases beside it. */
export async function releasedZipCount(): Promise<number> {
  const { readFileSync } = await import('node:fs');
  const profiles = JSON.parse(readFileSync(path.join(REPO_ROOT, 'source', 'profiles.json'), 'utf8')) as { release?: string[] };
  return (await declaredBundleCount()) * (1 + (profiles.release?.length ?? 0));
}

/** A five-file corpus (two commands, an agent, a workflow, a reference) that builds cleanly for every target. */
export const MINI_CORPUS: Record<string, string> = {
  'commands/gsd/demo.md': '---\nname: gsd:demo\ndescription: "Runs the demo workflow"\nallowed-tools:\n  - Read\n  - Agent\nrequires:\n  - other\n---\n@~/.claude/gsd-core/workflows/demo.md\n\nThen /gsd-other $ARGUMENTS.\n',
  'commands/gsd/other.md': '---\nname: gsd:other\ndescription: "The other command"\nallowed-tools:\n  - Read\n---\nRead ~/.claude/gsd-core/references/notes.md and spawn `gsd-tiny`.\n',
  'agents/gsd-tiny.md': '---\nname: gsd-tiny\ndescription: A small agent. Spawned by /gsd-demo.\ntools: Read, Grep\ncolor: blue\n---\nDo the small thing.\n',
  'gsd-core/workflows/demo.md': '<purpose>\nThe demo.\n</purpose>\n\nRead `~/.claude/gsd-core/references/notes.md` first.\n',
  'gsd-core/references/notes.md': '# Notes\n\nSome notes.\n',
};

export interface Sandbox {
  source: string;
  targets: string;
  out: string;
  cache: string;
}

/** The mini corpus and a copy of targets/ in a temporary folder, with an output and a cache folder beside them. */
export function miniSandbox(): Sandbox {
  const dir = temporaryDir('incremental');
  const box = { source: path.join(dir, 'source'), targets: path.join(dir, 'targets'), out: path.join(dir, 'out'), cache: path.join(dir, 'cache') };
  for (const [file, text] of Object.entries(MINI_CORPUS)) {
    mkdirSync(path.dirname(path.join(box.source, file)), { recursive: true });
    writeFileSync(path.join(box.source, file), text);
  }
  cpSync(path.join(REPO_ROOT, 'targets'), box.targets, { recursive: true });
  return box;
}

