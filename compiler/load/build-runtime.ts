// The runtime CLI and hooks a corpus ships, built from its own code
// (<corpus>/runtime/build.ts exports bundleRuntime) with the compiler's
// esbuild and packages: the builder is bundled here and its packages resolve
// from the compiler, never from the corpus's folder, so a copy of the corpus
// builds wherever it sits, and an installed compiler runs no TypeScript hook.
// A corpus without a builder ships no runtime CLI. Every failure is a
// diagnostic at the file and position esbuild or the builder names.
import { existsSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// esbuild is imported when a build runs: most builds reuse the cached one, and loading it costs every start.
import type { Message, Plugin } from 'esbuild';
import { diagnostic, type Diagnostic } from '../diagnostics.ts';
import { preserveImportMetaUrl } from '../util/esbuild-meta-url.ts';

export const RUNTIME_BUILDER = 'runtime/build.ts';

export interface RuntimeFile {
  path: string;
  contents: string;
  runtime?: string;
}

export interface BuiltRuntime {
  /** False when the corpus has no runtime/build.ts: its bundles carry no gsd-tools. */
  shipsCli: boolean;
  files: RuntimeFile[];
  diagnostics: Diagnostic[];
}

const COMPILER_URL = import.meta.url;
const requireHere = createRequire(COMPILER_URL);

/** A package as the compiler itself would import it: ESM conditions first, then require's. */
function resolveFromCompiler(specifier: string): string {
  try {
    return fileURLToPath(import.meta.resolve(specifier, COMPILER_URL));
  } catch {
    return requireHere.resolve(specifier);
  }
}

/** Node's own lookup folders from the compiler's place: every node_modules above it. */
function compilerNodePaths(): string[] {
  const dirs: string[] = [];
  for (let dir = path.dirname(fileURLToPath(COMPILER_URL)); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules');
    if (existsSync(candidate)) dirs.push(candidate);
    if (path.dirname(dir) === dir) return dirs;
  }
}

/** Packages the builder imports stay outside its bundle, loaded from the compiler's copies. */
const packagesFromCompiler: Plugin = {
  name: 'gsd-packages-from-compiler',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      if (path.isAbsolute(args.path)) return undefined;
      return { path: pathToFileURL(resolveFromCompiler(args.path)).href, external: true };
    });
  },
};

/** The diagnostic for an esbuild message: its file and position when it has one, else the builder's first line. */
function fromMessage(message: Message, sourceDir: string, stage: string): Diagnostic {
  const location = message.location;
  const absolute = location ? path.resolve(location.file) : path.resolve(sourceDir, RUNTIME_BUILDER);
  const relative = path.relative(path.resolve(sourceDir), absolute).split(path.sep).join('/');
  return diagnostic(relative, location?.line ?? 1, (location?.column ?? 0) + 1, 'runtime-build', `expected the corpus's runtime code to ${stage}, found: ${message.text}`);
}

function failure(error: unknown, sourceDir: string, stage: string): Diagnostic[] {
  const messages = (error as { errors?: Message[] }).errors;
  if (Array.isArray(messages) && messages.length > 0) return messages.map((message) => fromMessage(message, sourceDir, stage));
  return [diagnostic(RUNTIME_BUILDER, 1, 1, 'runtime-build', `expected the corpus's runtime code to ${stage}, found: ${(error as Error).message ?? String(error)}`)];
}

type Builder = { bundleRuntime?: (options: object) => Promise<RuntimeFile[]> | RuntimeFile[] };

/** `capabilityConfig`: capability config keys the builder merges into the config schema it bundles (none: passed as before). */
export async function buildCorpusRuntime(sourceDir: string, hookPayloads: Record<string, unknown>, packageRoot: string, capabilityConfig: Record<string, unknown> = {}): Promise<BuiltRuntime> {
  const builder = path.resolve(sourceDir, RUNTIME_BUILDER);
  if (!existsSync(builder)) return { shipsCli: false, files: [], diagnostics: [] };
  let code: string;
  try {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [builder],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      loader: { '.pub': 'text' },
      plugins: [packagesFromCompiler, preserveImportMetaUrl(/\.[cm]?[jt]s$/, (file) => JSON.stringify(pathToFileURL(file).href))],
    });
    code = result.outputFiles[0]!.text;
  } catch (error) {
    return { shipsCli: true, files: [], diagnostics: failure(error, sourceDir, 'bundle') };
  }
  try {
    // A data: URL module may import file: URLs, which is all the bundle's externals are.
    const module = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as Builder;
    if (typeof module.bundleRuntime !== 'function') {
      return { shipsCli: true, files: [], diagnostics: [diagnostic(RUNTIME_BUILDER, 1, 1, 'runtime-build', 'expected the builder to export a function bundleRuntime, found none')] };
    }
    const toolchain = { packageRoot, nodePaths: compilerNodePaths(), resolve: resolveFromCompiler };
    const extra = Object.keys(capabilityConfig).length > 0 ? { capabilityConfig } : {};
    return { shipsCli: true, files: [...(await module.bundleRuntime({ hookPayloads, toolchain, ...extra }))], diagnostics: [] };
  } catch (error) {
    return { shipsCli: true, files: [], diagnostics: failure(error, sourceDir, 'build') };
  }
}
