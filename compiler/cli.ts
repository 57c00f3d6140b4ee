// gsd-build: the command line over the pipeline. Exit 0 ok, 1 diagnostics, 2 usage.
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { diagnostic, formatDiagnostic, type Diagnostic } from './diagnostics.ts';
import { BUILD_CONFIG_FILE, readBuildConfig } from './load/build-config.ts';
import { allBundles, compile, emitBundles, errorsOf, profileIr, REPO_ROOT, type BundleSelection, type Compiled } from './pipeline.ts';
import { layoutNames, parseLayout, type Layout } from './load/layout.ts';
import type { CapabilitySource } from './load/load-capabilities.ts';
import { createRequire } from 'node:module';
import { writeTrees } from './write/write-tree.ts';
import { writeBundles, type OutputState } from './write/output-state.ts';
import { buildInputKey, defaultCacheDir, dropOutputState, readOutputState, stillOnDisk, writeOutputState } from './incremental.ts';
import { readSourceTree, type SourceFile } from './load/read-source-tree.ts';
import { compareWithGolden, formatGoldenFinding, goldenTrees, readGoldenFiles } from './golden/compare-golden.ts';
import { compareWithBaseline, loadBudgets } from './check/check-budgets.ts';
import { DEFAULT_TARGETS_DIR, loadTargets } from './targets/load-targets.ts';
import { landingPolicies } from './targets/landing-policy.ts';
import { retiredMessage } from './targets/retired-targets.ts';
import type { LandingPolicy } from '../source/runtime/install/bundle-types.ts';
import { MATRIX_BEGIN, MATRIX_END, matrixMarkdown, matrixRows, readValidatedBy, replaceMatrix } from './report/support-matrix.ts';
import { SCOPE_IDS, type ScopeId } from './targets/target-types.ts';
import type { VirtualTree } from './emit/virtual-tree.ts';
import { buildSite } from './site/build-site.ts';
import { buildRelease } from './release/release.ts';
import { FULL_PROFILE, parseProfileNames, profileLabel } from './compose/select-profile.ts';
import { BYTES_PER_TOKEN, listingCost } from './report/listing-cost.ts';

const COMMON_OPTIONS = {
  source: { type: 'string' },
  capability: { type: 'string', multiple: true },
  layout: { type: 'string' },
  targets: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const HELP = {
  build: `Usage: gsd-build --target <id> [--scope global|local] | --all [options]

Builds bundles into <out>/<target>/<scope>/. Nothing is written when any check fails.

Options:
  --target <id>     a target in targets/ (repeatable)
  --scope <scope>   global or local (default: both the target defines)
  --all             every target and scope
  --source <dir>    a GSD-layout source tree (default: ./source, else the corpus
                    that ships with gsd-build)
  --out <dir>       output root (default: ./dist)
  --targets <dir>   target definitions (default: the project's targets/)
  --layout <name>   how to read the source tree: a built-in layout (compiler/data/layouts;
                    detected by default) or a layout file (schemas/layout.schema.json)
  --capability <folder|npm package>
                    compose a third-party capability in (repeatable; every verb that builds takes it;
                    added to the capabilities of gsd-build.json in the current folder)
  --profile <names> the skill profile(s) to ship, comma-separated (source/profiles.json:
                    core, standard, full; an add-on such as review only with another:
                    core,review); default full
  --cache <dir>     the build cache (default: $GSD_BUILD_CACHE, else ~/.cache/gsd-build)
  --no-cache        build from scratch and write every file, storing nothing

Other verbs: watch, check, ir, budgets, matrix, site, release, keygen, install (gsd-build <verb> --help).`,
  watch: `Usage: gsd-build watch [--target <id> [--scope global|local] | --all] [options]

Builds (every target and scope unless --target says), then rebuilds on every
change under the source tree and the target definitions, a moment after the
last change. Each rebuild prints its diagnostics and writes only the files
whose bytes changed; a rebuild that fails writes nothing, so the last good
output stays in place. Options as for a build (--source, --out, --targets,
--layout, --cache, --no-cache). Ctrl-C stops.`,
  check: `Usage: gsd-build check [--update] [--source <dir>] [--golden <dir>]

Builds every bundle afresh and compares it with the goldens (default ./golden),
printing a unified diff for each differing file. Exits 1 on any difference and on
any missing or orphaned golden file. --update rewrites the goldens instead.`,
  ir: `Usage: gsd-build ir [--json] [--source <dir>]

Prints the corpus IR: a summary table, or with --json the full IR
(schemas/ir.schema.json).`,
  matrix: `Usage: gsd-build matrix [--update]

Prints the support matrix (runtime × scope × surface, with install roots)
generated from the target definitions. --update rewrites the copy in README.md
between its gsd:support-matrix markers.`,
  budgets: `Usage: gsd-build budgets [--source <dir>] [--baseline <budgets.json>]

Prints every file's bytes next to its ceiling, each command's eager-load
closure, and per target × scope × profile the per-turn listing: the bytes and
approximate tokens (bytes / 4) of the names and descriptions the runtime lists
in every turn, against budgets.json "listing" and the runtime's own limit
(target.json "listing"). --baseline compares the corpus's budgets.json with an older one and
fails if any cap or ceiling went up (ceilings only tighten).`,
  install: `Usage: gsd-build install --target <id> [--scope global|local] [options]
       gsd-build install --zip <gsd-…zip> [options]

Installs one bundle, built afresh from the sources (or read from a release
zip, which is refused whole if any entry could land outside its folder):
global bundles under your home, local ones into the current project. Over an
existing install it updates. Same installer as 'gsd-tools install' in an
unzipped bundle; uninstall with the installed copy:
  node <root>/gsd-core/bin/gsd-tools.cjs uninstall

Options:
  --scope <scope>      global (default when the target has it) or local
  --config-dir <dir>   global only: the runtime's folder goes here
  --dry-run            print the plan; write nothing
  --force              back up and replace files that are not from a GSD install
  --public-key <key>   --zip: check the zip's gsd-file-manifest.json.minisig against
                       this minisign public key (a .pub file, or its RW… line)
                       instead of the project's key (compiler/data/release-signing.pub)
  --require-signature  --zip: refuse a zip without gsd-file-manifest.json.minisig
  --profile <names>    the skill profile to install (core, full, ...). An update
                       keeps the installed profile: --target builds it, and a zip
                       of another profile is refused unless --profile names it
  --raw                a readable summary instead of JSON

A zip's signature is checked before anything is written: a bad one, or one
by another key, refuses the install whole.`,
  release: `Usage: gsd-build release [--out <dir>] [--source <dir>] [--sign-key <file>]

Builds every target and scope and writes one reproducible zip per bundle into
<out> (default ./dist/release): gsd-<target>-<scope>-<version>.zip (the full
profile), gsd-<target>-<scope>-<profile>-<version>.zip for each profile the
corpus's profiles.json releases ("release": ["core"]), plus
SHA256SUMS and release-manifest.json (per zip: file count, bytes, sha256).
Same sources give the same bytes: sorted entries, a fixed timestamp, fixed
modes (executables 0755). Nothing is written when any check fails.

Signed when given a secret key (gsd-build keygen): --sign-key <file>, or the
key's text in the GSD_SIGNING_KEY environment variable. Then SHA256SUMS.minisig
is written and each zip's folder holds gsd-file-manifest.json.minisig
(minisign format, Ed25519; the same key gives the same bytes). Without a key
the release is unsigned and says so.`,
  keygen: `Usage: gsd-build keygen --out <dir>

Generates an Ed25519 key pair for signing releases: <dir>/release-signing.key
(the secret key, PKCS#8 PEM, mode 0600) and <dir>/release-signing.pub (the
public key in minisign's format). Never overwrites a file. Keep the secret key
out of the repository; publish the public key.`,
  site: `Usage: gsd-build site [--source <dir>] [--out <dir>] [--profile <names>]

Renders the docs site from the corpus IR into <out> (default ./dist/site): an
index, a page per command, workflow, agent, reference and template, the runtime
matrix, the byte budgets as charts, and search. Static HTML with relative links
only and no request outside its own files: open <out>/index.html from disk or
serve the folder from any static host. --profile documents only what those skill
profiles ship (default full).`,
} as const;

type Verb = keyof typeof HELP;

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIo: Io = { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) };

class UsageError extends Error {}

/**
 * A capability spec (--capability, or an entry of gsd-build.json): an existing
 * folder, else an npm package installed where `base` is (its folder holds
 * capability.json). A problem comes back as its message.
 */
function resolveCapability(spec: string, base: string, label = '--capability'): CapabilitySource | string {
  const folder = path.resolve(base, spec);
  if (existsSync(folder)) {
    const relative = path.relative(process.cwd(), folder);
    const display = relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? folder : relative;
    return { dir: folder, display: display.replace(/\\/g, '/'), origin: 'third-party' };
  }
  if (/^\.{0,2}\//.test(spec) || path.isAbsolute(spec)) return `expected ${label} ${spec} to be a folder, found none at ${folder}`;
  if (!/^(?:@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/.test(spec)) return `expected ${label} to name a folder or an npm package, found "${spec}"`;
  let manifest: string;
  try {
    manifest = createRequire(path.join(base, 'package.json')).resolve(`${spec}/capability.json`);
  } catch {
    return `expected ${label} ${spec} to be a folder or an installed npm package with a capability.json, found neither`;
  }
  return { dir: path.dirname(manifest), display: `npm:${spec}`, origin: 'third-party' };
}

/** The capabilities of gsd-build.json, then those of --capability (a folder named in both once). */
function capabilitySources(flags: readonly string[], io: Io): CapabilitySource[] | null {
  const { config, diagnostics } = readBuildConfig(process.cwd());
  const sources: CapabilitySource[] = [];
  for (const entry of config?.capabilities ?? []) {
    const resolved = resolveCapability(entry.spec, config!.dir, `${BUILD_CONFIG_FILE} capabilities`);
    if (typeof resolved === 'string') diagnostics.push(diagnostic(BUILD_CONFIG_FILE, entry.line, entry.column, 'build-config', resolved));
    else sources.push(resolved);
  }
  if (diagnostics.length > 0) {
    diagnostics.forEach((d) => io.err(formatDiagnostic(d)));
    io.err(`${diagnostics.length} error(s) in ${BUILD_CONFIG_FILE}; nothing was written.`);
    return null;
  }
  for (const spec of flags) {
    const resolved = resolveCapability(spec, process.cwd());
    if (typeof resolved === 'string') throw new UsageError(resolved);
    if (!sources.some((source) => source.dir === resolved.dir)) sources.push(resolved);
  }
  return sources;
}

type ParsedValues<T extends NonNullable<ParseArgsConfig['options']>> = ReturnType<typeof parse<T>>;

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const verb: Verb = argv[0] && argv[0] in HELP && argv[0] !== 'build' ? (argv[0] as Verb) : 'build';
  const rest = verb === 'build' ? (argv[0] === 'build' ? argv.slice(1) : argv) : argv.slice(1);
  if (verb === 'build' && (rest[0] === 'help' || rest.length === 0)) {
    io.out(HELP.build);
    return rest.length === 0 ? 2 : 0;
  }
  try {
    switch (verb) {
      case 'build':
        return await runBuild(rest, io);
      case 'check':
        return await runCheck(rest, io);
      case 'watch':
        return await runWatch(rest, io);
      case 'ir':
        return await runIr(rest, io);
      case 'budgets':
        return await runBudgets(rest, io);
      case 'matrix':
        return await runMatrix(rest, io);
      case 'site':
        return await runSite(rest, io);
      case 'release':
        return await runRelease(rest, io);
      case 'keygen':
        return await runKeygen(rest, io);
      case 'install':
        return await runInstall(rest, io);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`gsd-build: ${error.message}`);
      io.err(`Run 'gsd-build ${verb === 'build' ? '' : `${verb} `}--help' for usage.`);
      return 2;
    }
    throw error;
  }
}

/**
 * --source, else ./source when the current folder has one (a checkout of this
 * repository or a fork of it), else the corpus that ships with gsd-build.
 */
function sourceOf(values: { source?: string | undefined }): string {
  if (values.source !== undefined) return values.source;
  if (existsSync('source')) return 'source';
  return path.relative(process.cwd(), path.join(REPO_ROOT, 'source')) || 'source';
}

function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function compileFrom(
  values: { source?: string | undefined; targets?: string | undefined; layout?: string | undefined; capability?: string[] | undefined },
  io: Io,
  options: { outline?: boolean; cacheDir?: string; files?: SourceFile[] } = {},
): Promise<Compiled | null> {
  const sourceDir = sourceOf(values);
  let layout: string | Layout | undefined = values.layout;
  let layoutFile = values.layout === undefined || layoutNames().includes(values.layout) ? undefined : values.layout;
  if (layoutFile !== undefined) {
    // Not a built-in name: a layout file of the user's, checked against schemas/layout.schema.json.
    if (!existsSync(layoutFile)) throw new UsageError(`expected --layout ${layoutNames().join(' or ')} or a layout file, found "${layoutFile}" (no such file)`);
    const parsed = parseLayout(layoutFile, await readFile(layoutFile, 'utf8'));
    if (!parsed.layout) {
      parsed.diagnostics.forEach((d) => io.err(formatDiagnostic(d)));
      io.err(`${parsed.diagnostics.length} error(s) in the layout; nothing was written.`);
      return null;
    }
    layout = parsed.layout;
  }
  const capabilities = capabilitySources(values.capability ?? [], io);
  if (!capabilities) return null;
  const compiled = await compile({ sourceDir, targetsDir: values.targets ?? DEFAULT_TARGETS_DIR, ...(layout ? { layout } : {}), capabilities, ...options });
  layoutFile ??= `compiler/data/layouts/${compiled.layout}.json`;
  const targetsDisplay = values.targets ?? (path.relative(process.cwd(), DEFAULT_TARGETS_DIR) || 'targets');
  // A third-party capability's findings are named as it was given, not under the source dir.
  const outside = (d: Diagnostic) => capabilities.some((source) => d.file.startsWith(`${source.display}/`));
  const findings = [...compiled.targetDiagnostics.map((d) => formatDiagnostic(d, targetsDisplay)), ...compiled.diagnostics.map((d) => formatDiagnostic(d, outside(d) ? '' : sourceDir))];
  findings.forEach((line) => io.err(line));
  const errors = errorsOf(compiled.targetDiagnostics).length + errorsOf(compiled.diagnostics).length;
  const warnings = compiled.diagnostics.length - errorsOf(compiled.diagnostics).length;
  if (warnings > 0) io.err(`${warnings} warning(s) (defects of the ${compiled.layout} corpus that its layout declares; see ${layoutFile})`);
  if (errors > 0) {
    io.err(`${errors} error(s); nothing was written.`);
    return null;
  }
  return compiled;
}

/** Findings in the emitted bundles: printed; only errors stop the write (warnings are the layout's declared corpus defects). */
function reportEmitted(diagnostics: Diagnostic[], io: Io, prefix: string): boolean {
  diagnostics.forEach((d) => io.err(formatDiagnostic(d, prefix)));
  const errors = errorsOf(diagnostics).length;
  if (diagnostics.length > errors) io.err(`${diagnostics.length - errors} warning(s) in the emitted bundles (defects the corpus's layout declares)`);
  if (errors > 0) io.err(`${errors} error(s); nothing was written.`);
  return errors === 0;
}

/** The profile names of --profile, checked against the corpus's profiles.json (full when not given). */
function profileOption(value: string | undefined, compiled: Compiled): string[] {
  const table = compiled.profiles?.profiles ?? null;
  const chosen = value ?? table?.default ?? FULL_PROFILE;
  const parsed = parseProfileNames(chosen, table);
  if ('error' in parsed) throw new UsageError(parsed.error);
  const addons = parsed.names.filter((name) => table?.profiles[name]?.addon);
  if (addons.length === parsed.names.length) throw new UsageError(`expected a standalone profile beside the add-on ${addons.join(', ')} (for example core,${addons.join(',')}), found only add-ons`);
  return parsed.names;
}

const BUILD_OPTIONS = {
  target: { type: 'string', multiple: true },
  scope: { type: 'string' },
  all: { type: 'boolean' },
  out: { type: 'string' },
  profile: { type: 'string' },
  cache: { type: 'string' },
  'no-cache': { type: 'boolean' },
} as const;

async function runBuild(args: string[], io: Io): Promise<number> {
  const values = parse(args, BUILD_OPTIONS);
  if (values.help) {
    io.out(HELP.build);
    return 0;
  }
  if (!values.all && !values.target) throw new UsageError('expected --target <id> or --all');
  if (values.all && (values.target || values.scope)) throw new UsageError('--all builds every target and scope; drop --target and --scope');
  if (values.scope !== undefined && !SCOPE_IDS.includes(values.scope as ScopeId)) throw new UsageError(`expected --scope global or local, found "${values.scope}"`);
  return buildOnce(values, io);
}

/**
 * One build: with a cache (the default), a build whose inputs and output are
 * unchanged only replays what it printed, and any other writes only the files
 * whose bytes changed (compiler/incremental.ts); --no-cache writes everything.
 */
async function buildOnce(values: ParsedValues<typeof BUILD_OPTIONS>, io: Io, options: { replay?: boolean } = {}): Promise<number> {
  const started = performance.now();
  const outRoot = values.out ?? 'dist';
  const cacheDir = values['no-cache'] ? null : path.resolve(values.cache ?? defaultCacheDir());
  const sourceDir = sourceOf(values);
  const files = cacheDir ? await readSourceTree(sourceDir) : undefined;
  const inputKey = cacheDir
    ? await buildInputKey(files!, values.targets ?? DEFAULT_TARGETS_DIR, { target: values.target ?? null, scope: values.scope ?? null, all: values.all ?? false, layout: values.layout ?? null, profile: values.profile ?? null })
    : '';
  // Inputs outside the source tree and the targets (a layout file, third-party capabilities) are not in the key: such builds always build.
  const keyed = (values.layout === undefined || layoutNames().includes(values.layout)) && (values.capability ?? []).length === 0 && (readBuildConfig(process.cwd()).config?.capabilities.length ?? 0) === 0;
  const previous = cacheDir ? readOutputState(cacheDir, outRoot) : null;
  const summary = (bundles: number, fileCount: number, written: number, keys: readonly string[]) =>
    `built ${bundles} bundle(s), ${fileCount} files (${written} written), into ${outRoot}/ in ${Math.round(performance.now() - started)} ms: ${keys.join(', ')}`;
  if (cacheDir && keyed && previous && previous.inputKey === inputKey && (await stillOnDisk(outRoot, previous))) {
    if (options.replay !== false) previous.messages.err.forEach((line) => io.err(line));
    io.out(summary(previous.built.length, previous.files, 0, previous.built));
    if (options.replay !== false) previous.messages.out.forEach((line) => io.out(line));
    return 0;
  }
  const printed: OutputState['messages'] = { out: [], err: [] };
  const recording: Io = { out: (text) => (printed.out.push(text), io.out(text)), err: (text) => (printed.err.push(text), io.err(text)) };
  const compiled = await compileFrom(values, recording, cacheDir ? { cacheDir, files: files! } : {});
  if (!compiled) return 1;
  const selections = selectBundles(compiled, values.target, values.scope as ScopeId | undefined, values.all ?? false);
  const { bundles, diagnostics } = emitBundles(compiled, selections, profileOption(values.profile, compiled));
  if (!reportEmitted(diagnostics, recording, outRoot)) return 1;
  const fileCount = [...bundles.values()].reduce((sum, tree) => sum + tree.size, 0);
  let written = fileCount;
  if (cacheDir) {
    dropOutputState(cacheDir, outRoot);
    const result = await writeBundles(outRoot, bundles, previous?.bundles ?? {});
    written = result.written;
    const notes = noteLines(compiled, selections, sourceOf(values));
    writeOutputState(cacheDir, outRoot, { inputKey, messages: { out: notes, err: printed.err }, bundles: { ...previous?.bundles, ...result.records }, built: [...bundles.keys()], files: fileCount });
  } else {
    await writeTrees(outRoot, bundles);
  }
  io.out(summary(bundles.size, fileCount, written, [...bundles.keys()]));
  noteLines(compiled, selections, sourceOf(values)).forEach((line) => io.out(line));
  return 0;
}

/** Quiet time after the last change before a rebuild: editors save in bursts. */
const WATCH_DEBOUNCE_MS = 150;

async function runWatch(args: string[], io: Io, stop?: AbortSignal): Promise<number> {
  const values = parse(args, BUILD_OPTIONS);
  if (values.help) {
    io.out(HELP.watch);
    return 0;
  }
  if (values.all && (values.target || values.scope)) throw new UsageError('--all builds every target and scope; drop --target and --scope');
  if (values.scope !== undefined && !SCOPE_IDS.includes(values.scope as ScopeId)) throw new UsageError(`expected --scope global or local, found "${values.scope}"`);
  const selection = values.target ? values : { ...values, all: true };
  const sourceDir = path.resolve(values.source ?? 'source');
  const targetsDir = path.resolve(values.targets ?? DEFAULT_TARGETS_DIR);
  const outRoot = path.resolve(values.out ?? 'dist');
  const { watch } = await import('node:fs');
  let running: Promise<void> | null = null;
  let pending = false;
  let timer: NodeJS.Timeout | undefined;
  const rebuild = async (first: boolean) => {
    // One build at a time; changes during a build start one more after it.
    if (running) {
      pending = true;
      return;
    }
    running = (async () => {
      try {
        await buildOnce(selection, io, { replay: first });
      } catch (error) {
        if (error instanceof UsageError) throw error;
        io.err(`gsd-build: the build failed: ${(error as Error).stack ?? String(error)}`);
      }
    })();
    await running;
    running = null;
    if (pending) {
      pending = false;
      await rebuild(false);
    }
  };
  await rebuild(true);
  const changed = (root: string) => (_event: string, file: string | Buffer | null) => {
    // The output and the cache may sit inside a watched folder; their writes are not edits.
    const full = file ? path.resolve(root, String(file)) : root;
    if (full === outRoot || full.startsWith(`${outRoot}${path.sep}`)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void rebuild(false), WATCH_DEBOUNCE_MS);
  };
  const watchers = [watch(sourceDir, { recursive: true }, changed(sourceDir)), watch(targetsDir, { recursive: true }, changed(targetsDir))];
  io.err(`watching ${values.source ?? 'source'} and ${values.targets ?? 'the project targets'} for changes (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    const end = () => resolve();
    process.once('SIGINT', end);
    process.once('SIGTERM', end);
    stop?.addEventListener('abort', end, { once: true });
  });
  clearTimeout(timer);
  for (const watcher of watchers) watcher.close();
  if (running) await running;
  return 0;
}

function noteLines(compiled: Compiled, selections: readonly BundleSelection[], sourceLabel: string): string[] {
  const lines: string[] = [];
  if (!compiled.shipsRuntimeCli) lines.push(`note: ${sourceLabel} ships no runtime CLI (no runtime/build.ts): its bundles carry no gsd-tools`);
  for (const target of compiled.targets) {
    if (!selections.some((selection) => selection.target === target.definition.id)) continue;
    for (const [scope, reason] of Object.entries(target.definition.unsupportedScopes ?? {})) lines.push(`note: ${target.definition.id} has no ${scope} scope: ${reason}`);
  }
  return lines;
}

function selectBundles(compiled: Compiled, targets: string[] | undefined, scope: ScopeId | undefined, all: boolean): BundleSelection[] {
  const available = allBundles(compiled.targets);
  if (all) return available;
  const known = [...new Set(available.map((b) => b.target))];
  const selections: BundleSelection[] = [];
  for (const target of targets ?? []) {
    // A retired runtime id names its sunset date and successor rather than "unknown".
    if (!known.includes(target)) throw new UsageError(retiredMessage(target) ?? `expected a target id (${known.join(', ')}), found "${target}"`);
    const matching = available.filter((b) => b.target === target && (scope === undefined || b.scope === scope));
    if (matching.length === 0) {
      const reason = compiled.targets.find((t) => t.definition.id === target)?.definition.unsupportedScopes?.[scope!];
      throw new UsageError(`target "${target}" has no ${scope} scope${reason ? `: ${reason}` : ''}`);
    }
    selections.push(...matching);
  }
  return selections;
}

async function runCheck(args: string[], io: Io): Promise<number> {
  const values = parse(args, { update: { type: 'boolean' }, golden: { type: 'string' } });
  if (values.help) {
    io.out(HELP.check);
    return 0;
  }
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const goldenRoot = values.golden ?? 'golden';
  const { bundles, diagnostics } = emitBundles(compiled, allBundles(compiled.targets));
  if (!reportEmitted(diagnostics, io, goldenRoot)) return 1;
  if (values.update) {
    await replaceGolden(goldenRoot, bundles);
    io.out(`updated ${goldenRoot}/ with ${bundles.size} bundle(s); review the diff before committing`);
    return 0;
  }
  const findings = compareWithGolden(bundles, await readGoldenFiles(goldenRoot));
  findings.forEach((finding) => io.err(formatGoldenFinding(finding)));
  if (findings.length > 0) {
    io.err(`${findings.length} golden file(s) out of date; run 'gsd-build check --update' and review the diff.`);
    return 1;
  }
  io.out(`golden check passed: ${bundles.size} bundle(s) match ${goldenRoot}/`);
  return 0;
}

/** The goldens are exactly the bundles: a bundle folder per target and scope, nothing else. */
async function replaceGolden(goldenRoot: string, bundles: ReadonlyMap<string, VirtualTree>): Promise<void> {
  const { rm } = await import('node:fs/promises');
  const existing = await readGoldenFiles(goldenRoot);
  const keep = new Set(bundles.keys());
  for (const file of existing.keys()) {
    const key = file.split('/').slice(0, 2).join('/');
    if (!keep.has(key)) await rm(path.join(goldenRoot, file), { force: true });
  }
  await writeTrees(goldenRoot, goldenTrees(bundles));
}

async function runIr(args: string[], io: Io): Promise<number> {
  const values = parse(args, { json: { type: 'boolean' } });
  if (values.help) {
    io.out(HELP.ir);
    return 0;
  }
  const compiled = await compileFrom(values, io, { outline: true });
  if (!compiled) return 1;
  if (values.json) {
    io.out(JSON.stringify(compiled.ir, null, 2));
    return 0;
  }
  const rows = compiled.ir.nodes.map((node) => [
    node.id,
    node.path,
    String(node.bytes),
    String(node.edges.length),
    String(node.sections.filter((s) => s.explicit).length),
  ]);
  io.out(table(['id', 'path', 'bytes', 'edges', 'sections'], rows));
  const byKind = new Map<string, number>();
  for (const node of compiled.ir.nodes) byKind.set(node.kind, (byKind.get(node.kind) ?? 0) + 1);
  io.out(`\n${compiled.ir.nodes.length} nodes: ${[...byKind].map(([kind, count]) => `${count} ${kind}`).join(', ')}`);
  return 0;
}

async function runBudgets(args: string[], io: Io): Promise<number> {
  const values = parse(args, { baseline: { type: 'string' } });
  if (values.help) {
    io.out(HELP.budgets);
    return 0;
  }
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const rows = compiled.budgetRows.map((row) => [
    row.path,
    row.tier ?? '-',
    String(row.bytes),
    row.ceiling === null ? '-' : String(row.ceiling),
    row.ceiling === null ? '-' : `${Math.round((row.bytes / row.ceiling) * 100)}%`,
    row.closureBytes === undefined ? '' : String(row.closureBytes),
    row.closureCeiling == null ? '' : String(row.closureCeiling),
  ]);
  io.out(table(['file', 'tier', 'bytes', 'ceiling', 'used', 'closure', 'closure ceiling'], rows));
  const total = compiled.budgetRows.reduce((sum, row) => sum + row.bytes, 0);
  const largest = compiled.budgetRows.filter((row) => row.closureBytes !== undefined).sort((a, b) => b.closureBytes! - a.closureBytes!)[0];
  io.out(`\n${compiled.budgetRows.length} files, ${total} bytes${largest ? `; largest eager-load closure ${largest.closureBytes} bytes (${largest.path})` : ''}`);
  // The per-turn listing, per target × scope × standalone profile, measured on the emitted bundles.
  const standalone = Object.entries(compiled.profiles?.profiles.profiles ?? { [FULL_PROFILE]: { description: '' } })
    .filter(([, definition]) => !(definition as { addon?: true }).addon)
    .map(([name]) => name);
  const listingRows: string[][] = [];
  for (const profile of standalone) {
    const label = profileLabel([profile], compiled.profiles?.profiles ?? null);
    const { bundles } = emitBundles(compiled, allBundles(compiled.targets), [profile]);
    for (const [key, tree] of bundles) {
      const target = compiled.targets.find((candidate) => candidate.definition.id === key.split('/')[0])!;
      const cost = listingCost(tree, target.definition.scopes[key.split('/')[1] as ScopeId]!);
      const ceiling = compiled.budgets?.budgets.listing?.[label]?.[cost.shape];
      const limit = target.definition.listing;
      listingRows.push([key, label, cost.shape, String(cost.listings), String(cost.bytes), String(cost.tokens), ceiling === undefined ? '-' : String(ceiling), limit ? (limit.maxChars !== undefined ? `${cost.chars}/${limit.maxChars} chars` : `~${cost.tokens}/${limit.maxTokens} tokens`) : '-']);
    }
  }
  io.out(`\nPer-turn listing (names and descriptions the runtime lists every turn; tokens ~ bytes / ${BYTES_PER_TOKEN}):`);
  io.out(table(['bundle', 'profile', 'shape', 'listings', 'bytes', '~tokens', 'budget', 'runtime limit'], listingRows));
  if (values.baseline) {
    if (!compiled.budgets) throw new UsageError('--baseline needs a budgets.json in the source tree');
    const baseline = loadBudgets(values.baseline, await readFile(values.baseline, 'utf8'));
    baseline.diagnostics.forEach((d) => io.err(formatDiagnostic(d)));
    if (!baseline.loaded) return 1;
    const loosened = compareWithBaseline(baseline.loaded.budgets, compiled.budgets);
    loosened.forEach((d) => io.err(formatDiagnostic(d, sourceOf(values))));
    if (loosened.length > 0) return 1;
  }
  return 0;
}

async function runMatrix(args: string[], io: Io): Promise<number> {
  const values = parse(args, { update: { type: 'boolean' } });
  if (values.help) {
    io.out(HELP.matrix);
    return 0;
  }
  const { targets, diagnostics } = await loadTargets(values.targets ?? DEFAULT_TARGETS_DIR);
  if (diagnostics.length > 0) {
    diagnostics.forEach((d) => io.err(formatDiagnostic(d, values.targets ?? 'targets')));
    return 1;
  }
  const markdown = matrixMarkdown(matrixRows(targets, readValidatedBy(REPO_ROOT)));
  if (!values.update) {
    io.out(markdown.trimEnd());
    return 0;
  }
  const readmePath = path.join(REPO_ROOT, 'README.md');
  const updated = replaceMatrix(await readFile(readmePath, 'utf8'), markdown);
  if (updated === null) {
    io.err(`README.md: expected the markers ${MATRIX_BEGIN} and ${MATRIX_END}, found none`);
    return 1;
  }
  await writeFile(readmePath, updated);
  io.out('updated the support matrix in README.md');
  return 0;
}

async function runInstall(args: string[], io: Io): Promise<number> {
  const values = parse(args, {
    target: { type: 'string' },
    scope: { type: 'string' },
    zip: { type: 'string' },
    'config-dir': { type: 'string' },
    'dry-run': { type: 'boolean' },
    force: { type: 'boolean' },
    raw: { type: 'boolean' },
    'public-key': { type: 'string' },
    'require-signature': { type: 'boolean' },
    profile: { type: 'string' },
  });
  if (values.help) {
    io.out(HELP.install);
    return 0;
  }
  if (!values.zip === !values.target) throw new UsageError('expected --target <id> or --zip <file>');
  if (!values.zip && (values['public-key'] !== undefined || values['require-signature'])) {
    throw new UsageError(`expected --public-key and --require-signature with --zip (a downloaded release), found them with --target (a bundle built here from the sources, which has no signature)`);
  }
  if (values.scope !== undefined && !SCOPE_IDS.includes(values.scope as ScopeId)) throw new UsageError(`expected --scope global or local, found "${values.scope}"`);
  const { bundleFromFiles } = await import('../source/runtime/install/bundle.ts');
  const { install } = await import('../source/runtime/install/install.ts');
  const { summary } = await import('../source/runtime/commands/install.ts');
  const { checkBundleSignature, MANIFEST_SIGNATURE_FILE, pinnedKey } = await import('../source/runtime/install/signature.ts');
  let files: Map<string, Uint8Array>;
  let label: string;
  /** With --target: the bundle built afresh for a profile, or null when its checks fail. */
  let built: ((names: string[]) => Map<string, Uint8Array> | null) | null = null;
  // Where the bundle may land comes from our target definitions, never from the zip.
  let policies: LandingPolicy[] = [];
  let signature: import('../source/runtime/install/signature.ts').SignatureReport;
  if (values.zip) {
    const { readZip } = await import('./release/read-zip.ts');
    let entries;
    try {
      entries = await readZip(await readFile(values.zip));
    } catch (error) {
      io.err(`gsd-build: ${values.zip}: refused: ${(error as Error).message}; nothing was written`);
      return 1;
    }
    files = new Map(entries.filter((entry) => !entry.directory).map((entry) => [entry.name.slice(entry.name.indexOf('/') + 1), entry.contents]));
    label = values.zip;
    const loaded = await loadTargets(values.targets ?? DEFAULT_TARGETS_DIR);
    if (loaded.diagnostics.length > 0) {
      loaded.diagnostics.forEach((d) => io.err(formatDiagnostic(d, values.targets ?? 'targets')));
      return 1;
    }
    policies = landingPolicies(loaded.targets);
    // Checked against this checkout's copy of the key, before anything is written;
    // the manifest it signs lists every file's sha256, which bundleFromFiles checks next.
    const manifestBytes = files.get('gsd-file-manifest.json');
    const signatureBytes = files.get(MANIFEST_SIGNATURE_FILE);
    try {
      const pinned = values['public-key'] !== undefined ? pinnedKey(values['public-key'], process.cwd()) : null;
      signature = manifestBytes
        ? checkBundleSignature({ label, manifestBytes, signatureText: signatureBytes ? Buffer.from(signatureBytes).toString('utf8') : null, pinned, require: values['require-signature'] ?? false })
        : { status: 'none', summary: 'signature: none' };
    } catch (error) {
      const reason = (error as { reason?: string }).reason;
      if (reason === undefined) throw error;
      io.err(`gsd-build: ${(error as Error).message}`);
      return reason === 'invalid-args' ? 2 : 1;
    }
  } else {
    const compiled = await compileFrom(values, io);
    if (!compiled) return 1;
    const target = compiled.targets.find((candidate) => candidate.definition.id === values.target);
    const scope = (values.scope as ScopeId | undefined) ?? (target?.definition.scopes.global ? 'global' : 'local');
    const selections = selectBundles(compiled, [values.target!], scope, false);
    const profileNames = profileOption(values.profile, compiled);
    built = (names: string[]) => {
      const { bundles, diagnostics } = emitBundles(compiled, selections, names);
      if (!reportEmitted(diagnostics, io, 'bundle')) return null;
      const tree = bundles.get(`${values.target}/${scope}`)!;
      return new Map([...tree].map(([file, entry]) => [file, typeof entry.contents === 'string' ? Buffer.from(entry.contents, 'utf8') : entry.contents]));
    };
    const first = built(profileNames);
    if (!first) return 1;
    files = first;
    label = `${values.target}/${scope}`;
    signature = { status: 'none', summary: 'signature: none — built here from the sources, not a download' };
    policies = landingPolicies(compiled.targets);
  }
  const run = (bundleFiles: Map<string, Uint8Array>, profile: string | undefined) =>
    install(bundleFromFiles(bundleFiles, label), {
      home: process.env.HOME || os.homedir(),
      cwd: process.cwd(),
      env: process.env,
      now: new Date(),
      ...(values.scope ? { scope: values.scope as ScopeId } : {}),
      ...(values['config-dir'] !== undefined ? { configDir: values['config-dir'] } : {}),
      dryRun: values['dry-run'] ?? false,
      force: values.force ?? false,
      ...(profile !== undefined ? { profile } : {}),
      policies,
    });
  try {
    let report;
    try {
      report = run(files, values.profile);
    } catch (error) {
      // Built from the sources, an update keeps the installed profile: build that one instead.
      const installed = (error as { extra?: { installedProfile?: unknown } }).extra?.installedProfile;
      if (!built || values.profile !== undefined || typeof installed !== 'string') throw error;
      const again = built(installed.split(','));
      if (!again) return 1;
      report = run(again, undefined);
    }
    const data = { ...report, signature };
    io.out(values.raw ? summary(data) : JSON.stringify(data, null, 2));
    return 0;
  } catch (error) {
    const reason = (error as { reason?: string }).reason;
    if (reason === undefined) throw error;
    io.err(`gsd-build: ${(error as Error).message}`);
    return reason === 'invalid-args' ? 2 : 1;
  }
}

async function runRelease(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' }, 'sign-key': { type: 'string' } });
  if (values.help) {
    io.out(HELP.release);
    return 0;
  }
  const started = performance.now();
  const { loadSigningKey, SigningKeyError } = await import('./release/signing.ts');
  let signer: import('./release/signing.ts').Signer | null = null;
  const keyText = values['sign-key'] !== undefined ? await readKeyFile(values['sign-key'], io) : process.env.GSD_SIGNING_KEY;
  if (keyText === null) return 1;
  if (keyText !== undefined && keyText !== '') {
    try {
      signer = loadSigningKey(keyText, values['sign-key'] ?? 'GSD_SIGNING_KEY');
    } catch (error) {
      if (!(error instanceof SigningKeyError)) throw error;
      io.err(`gsd-build: ${error.message}; nothing was written`);
      return 1;
    }
    const { builtInKey } = await import('../source/runtime/install/signature.ts');
    const project = builtInKey();
    if (project.keyId !== signer.keyId) {
      io.err(`gsd-build: warning: signing with key id ${signer.keyId}, not the project's key ${project.keyId} (compiler/data/release-signing.pub): installers built from these sources will refuse these zips unless given --public-key`);
    }
  }
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const out = values.out ?? path.join('dist', 'release');
  const { bundles, diagnostics } = emitBundles(compiled, allBundles(compiled.targets));
  // Each profile the corpus releases beside full: the same bundles, keyed <target>/<scope>/<profile>.
  for (const profile of compiled.profiles?.profiles.release ?? []) {
    const extra = emitBundles(compiled, allBundles(compiled.targets), [profile]);
    diagnostics.push(...extra.diagnostics);
    for (const [key, tree] of extra.bundles) bundles.set(`${key}/${profile}`, tree);
  }
  if (!reportEmitted(diagnostics, io, out)) return 1;
  const release = await buildRelease(bundles, compiled.version, signer);
  const tree: VirtualTree = new Map([...release.outputs].map(([file, contents]) => [file, { contents }]));
  await writeTrees(path.dirname(out), new Map([[path.basename(out), tree]]));
  const bytes = release.zips.reduce((sum, zip) => sum + zip.bytes, 0);
  const signed = release.keyId
    ? `signed with key id ${release.keyId} (SHA256SUMS.minisig, and gsd-file-manifest.json.minisig in each zip)`
    : 'unsigned: no --sign-key or GSD_SIGNING_KEY, so SHA256SUMS proves integrity only, not origin';
  io.out(`released ${release.zips.length} zip(s), ${bytes} bytes, into ${out}/ in ${Math.round(performance.now() - started)} ms (SHA256SUMS, release-manifest.json); ${signed}`);
  return 0;
}

async function readKeyFile(file: string, io: Io): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    io.err(`gsd-build: --sign-key: expected a readable secret key file, found none at ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was written`);
    return null;
  }
}

async function runKeygen(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' } });
  if (values.help) {
    io.out(HELP.keygen);
    return 0;
  }
  if (values.out === undefined) throw new UsageError('expected --out <dir>, the folder for release-signing.key and release-signing.pub');
  const { generateKeyPair } = await import('./release/signing.ts');
  const secretPath = path.join(values.out, 'release-signing.key');
  const publicPath = path.join(values.out, 'release-signing.pub');
  for (const file of [secretPath, publicPath]) {
    if (existsSync(file)) {
      io.err(`gsd-build: expected no file at ${file}, found one; keygen never overwrites a key (move it away or pick another --out); nothing was written`);
      return 1;
    }
  }
  const started = performance.now();
  const pair = generateKeyPair();
  const { mkdir } = await import('node:fs/promises');
  await mkdir(values.out, { recursive: true, mode: 0o700 });
  // 'wx': fails rather than replace a file that appeared since the check.
  await writeFile(secretPath, pair.secretKeyFile, { mode: 0o600, flag: 'wx' });
  await writeFile(publicPath, pair.publicKeyFile, { mode: 0o644, flag: 'wx' });
  io.out(`generated key id ${pair.keyId} in ${Math.round(performance.now() - started)} ms: ${secretPath} (secret, mode 0600: keep it out of the repository) and ${publicPath} (public, minisign format):`);
  io.out(pair.publicKeyFile.trimEnd());
  return 0;
}

async function runSite(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' }, profile: { type: 'string' } });
  if (values.help) {
    io.out(HELP.site);
    return 0;
  }
  const started = performance.now();
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const profilesPath = path.join(sourceOf(values), 'runtime', 'model-profiles.json');
  let modelProfiles: unknown = null;
  if (existsSync(profilesPath)) {
    try {
      modelProfiles = JSON.parse(await readFile(profilesPath, 'utf8'));
    } catch (error) {
      io.err(`${profilesPath}: warning: not read, the agent pages show no models (${(error as Error).message})`);
    }
  }
  const selected = profileIr(compiled, profileOption(values.profile, compiled));
  if (selected.diagnostics.length > 0) {
    selected.diagnostics.forEach((d) => io.err(formatDiagnostic(d, values.source ?? 'source')));
    return 1;
  }
  const shippedPaths = new Set(selected.ir.nodes.map((node) => node.path));
  const tree = buildSite({ ir: selected.ir, targets: compiled.targets, budgetRows: compiled.budgetRows.filter((row) => shippedPaths.has(row.path)), hooks: compiled.hooks, version: compiled.version, modelProfiles, validatedBy: readValidatedBy(REPO_ROOT) });
  const out = values.out ?? path.join('dist', 'site');
  await writeTrees(path.dirname(out), new Map([[path.basename(out), tree]]));
  const pages = [...tree.keys()].filter((file) => file.endsWith('.html')).length;
  const bytes = [...tree.values()].reduce((sum, file) => sum + Buffer.byteLength(file.contents), 0);
  io.out(`built the site, ${pages} pages and ${tree.size - pages} other files (${bytes} bytes), into ${out}/ in ${Math.round(performance.now() - started)} ms; open ${path.join(out, 'index.html')}`);
  return 0;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export { REPO_ROOT };
