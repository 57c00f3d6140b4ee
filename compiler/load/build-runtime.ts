// The runtime CLI and hooks a corpus ships, built from its own code
// (<corpus>/runtime/build.ts exports bundleRuntime) with the compiler's
// esbuild and packages: the builder is bundled here and its packages resolve
// from the compiler, never from the corpus's folder, so a copy of the corpus
// builds wherever it sits, and an installed compiler runs no TypeScript hook.
// A corpus without a builder ships no runtime CLI. Every failure is a
// diagnostic at the file and position esbuild or the builder names.
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
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

/**
 * The builder runs in a worker thread of its own: esbuild answers its
 * plugins' questions on the thread that asked, and the compiler's thread is
 * busy parsing and checking while the runtime builds, so on it the build took
 * three times as long. The builder is bundled here (its imports become the
 * compiler's file: URLs) and handed over as text; the worker imports it and
 * returns the files, or the error with esbuild's messages. Its toolchain
 * resolves from the compiler's place with require's conditions (a module
 * thread cannot take import.meta.resolve's parent), which agree for the
 * package files a builder asks for (package.json, a .wasm).
 */
const RUNTIME_WORKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const { code, hookPayloads, capabilityConfig, packageRoot, nodePaths, compilerFile } = workerData;
const fromCompiler = createRequire(compilerFile);
(async () => {
  // A data: URL module may import file: URLs, which is all the bundle's externals are.
  const module = await import('data:text/javascript;base64,' + Buffer.from(code).toString('base64'));
  if (typeof module.bundleRuntime !== 'function') return { missing: true };
  const toolchain = { packageRoot, nodePaths, resolve: (specifier) => fromCompiler.resolve(specifier) };
  const extra = Object.keys(capabilityConfig).length > 0 ? { capabilityConfig } : {};
  return { files: [...(await module.bundleRuntime({ hookPayloads, toolchain, ...extra }))].map((file) => ({ ...file })) };
})().then(
  (result) => parentPort.postMessage(result),
  (error) => parentPort.postMessage({ error: { message: String((error && error.message) || error), errors: error && Array.isArray(error.errors) ? JSON.parse(JSON.stringify(error.errors)) : undefined } }),
);
`;

type WorkerReply = { files: RuntimeFile[] } | { missing: true } | { error: { message: string; errors?: Message[] } };

function runBuilder(code: string, hookPayloads: Record<string, unknown>, packageRoot: string, capabilityConfig: Record<string, unknown>): Promise<WorkerReply> {
  const worker = new Worker(RUNTIME_WORKER, {
    eval: true,
    workerData: { code, hookPayloads, capabilityConfig, packageRoot, nodePaths: compilerNodePaths(), compilerFile: fileURLToPath(COMPILER_URL) },
  });
  return new Promise<WorkerReply>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (exitCode) => reject(new Error(`the runtime build's thread stopped (exit code ${exitCode}) before it answered`)));
  }).finally(() => void worker.terminate());
}

/** A corpus's builder bundled for a worker: its code, or why there is none. */
export type PreparedBuilder = { code: string } | { built: BuiltRuntime };

/** Bundles <corpus>/runtime/build.ts (the first step of buildCorpusRuntime, which a build may start early). */
export async function bundleCorpusBuilder(sourceDir: string): Promise<PreparedBuilder> {
  const builder = path.resolve(sourceDir, RUNTIME_BUILDER);
  if (!existsSync(builder)) return { built: { shipsCli: false, files: [], diagnostics: [] } };
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
    return { code: result.outputFiles[0]!.text };
  } catch (error) {
    return { built: { shipsCli: true, files: [], diagnostics: failure(error, sourceDir, 'bundle') } };
  }
}

/**
 * `capabilityConfig`: capability config keys the builder merges into the
 * config schema it bundles (none: passed as before). `prepared`: the
 * builder, when bundling it was started earlier.
 */
export async function buildCorpusRuntime(sourceDir: string, hookPayloads: Record<string, unknown>, packageRoot: string, capabilityConfig: Record<string, unknown> = {}, prepared: Promise<PreparedBuilder> = bundleCorpusBuilder(sourceDir)): Promise<BuiltRuntime> {
  const builder = await prepared;
  if ('built' in builder) return builder.built;
  try {
    const reply = await runBuilder(builder.code, hookPayloads, packageRoot, capabilityConfig);
    if ('missing' in reply) {
      return { shipsCli: true, files: [], diagnostics: [diagnostic(RUNTIME_BUILDER, 1, 1, 'runtime-build', 'expected the builder to export a function bundleRuntime, found none')] };
    }
    if ('error' in reply) return { shipsCli: true, files: [], diagnostics: failure(reply.error, sourceDir, 'build') };
    return { shipsCli: true, files: reply.files, diagnostics: [] };
  } catch (error) {
    return { shipsCli: true, files: [], diagnostics: failure(error, sourceDir, 'build') };
  }
}
