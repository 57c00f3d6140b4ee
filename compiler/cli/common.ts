// What several verbs share: reading the corpus (compileFrom), the bundles a
// command line selects, and how findings and notes are printed.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { diagnostic, formatDiagnostic, type Diagnostic } from '../diagnostics.ts';
import { readBuildConfig } from '../load/build-config.ts';
import { BUILD_CONFIG_FILE } from '../locations.ts';
import { allBundles, compile, errorsOf, type BundleSelection, type Compiled } from '../pipeline.ts';
import { parseLayout, type Layout } from '../load/layout.ts';
import { layoutNames } from '../load/layout-names.ts';
import type { CapabilitySource } from '../load/load-capabilities.ts';
import type { SourceFile } from '../load/read-source-tree.ts';
import { DEFAULT_TARGETS_DIR } from '../targets/load-targets.ts';
import { retiredMessage } from '../targets/retired-targets.ts';
import type { ScopeId } from '../targets/target-types.ts';
import { FULL_PROFILE, parseProfileNames } from '../compose/select-profile.ts';
import { UsageError, type Io } from './args.ts';
import { sourceOf } from './build-inputs.ts';

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

export async function compileFrom(
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
export function reportEmitted(diagnostics: Diagnostic[], io: Io, prefix: string): boolean {
  diagnostics.forEach((d) => io.err(formatDiagnostic(d, prefix)));
  const errors = errorsOf(diagnostics).length;
  if (diagnostics.length > errors) io.err(`${diagnostics.length - errors} warning(s) in the emitted bundles (defects the corpus's layout declares)`);
  if (errors > 0) io.err(`${errors} error(s); nothing was written.`);
  return errors === 0;
}

/** The profile names of --profile, checked against the corpus's profiles.json (full when not given). */
export function profileOption(value: string | undefined, compiled: Compiled): string[] {
  const table = compiled.profiles?.profiles ?? null;
  const chosen = value ?? table?.default ?? FULL_PROFILE;
  const parsed = parseProfileNames(chosen, table);
  if ('error' in parsed) throw new UsageError(parsed.error);
  const addons = parsed.names.filter((name) => table?.profiles[name]?.addon);
  if (addons.length === parsed.names.length) throw new UsageError(`expected a standalone profile beside the add-on ${addons.join(', ')} (for example core,${addons.join(',')}), found only add-ons`);
  return parsed.names;
}

export function noteLines(compiled: Compiled, selections: readonly BundleSelection[], sourceLabel: string): string[] {
  const lines: string[] = [];
  if (!compiled.shipsRuntimeCli) lines.push(`note: ${sourceLabel} ships no runtime CLI (no runtime/build.ts, no gsd-tools.cjs in its payload): its bundles carry no gsd-tools`);
  for (const target of compiled.targets) {
    if (!selections.some((selection) => selection.target === target.definition.id)) continue;
    for (const [scope, reason] of Object.entries(target.definition.unsupportedScopes ?? {})) lines.push(`note: ${target.definition.id} has no ${scope} scope: ${reason}`);
  }
  return lines;
}

export function selectBundles(compiled: Compiled, targets: string[] | undefined, scope: ScopeId | undefined, all: boolean): BundleSelection[] {
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

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

