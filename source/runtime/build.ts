// Bundles the runtime CLI and the hooks into self-contained CommonJS files,
// in memory, for the compiler to place in every bundle:
//   gsd-core/bin/gsd-tools.cjs   (entry: source/runtime/main.ts)
//   gsd-core/bin/gsd-install.cjs (install and uninstall, loaded by gsd-tools for those verbs only)
//   hooks/<id>.cjs               (one per source/hooks/hooks.json entry)
//   hooks/gsd-<name>.cjs         (a runtime's hook dispatcher, source/hooks/<name>.ts,
//                                 named by its targets/<id>/hook-payload.json; that runtime only)
// The ajv config validator is generated here as standalone code and swapped
// in for config/validate-shape.ts, so the output needs no node_modules.
// Output is deterministic: no absolute paths of this machine, no clock.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build, transform, type Plugin } from 'esbuild';
import { deflate } from 'fflate';
import AjvModule from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { AJV_OPTIONS, stripDocs } from './config/ajv-options.ts';
import { mergeCapabilityConfig, type CapabilityKeySpec } from './config/capability-config.ts';
import { TABLE } from './cli/table.ts';
import { escapeRegExp } from './core/text.ts';

export interface BundledFile {
  /** Bundle-relative POSIX path. */
  path: string;
  contents: string;
  /** Built for one runtime's bundles only (a hook dispatcher): its target id. */
  runtime?: string;
}

export interface HookEntry {
  id: string;
  entry: string;
  event: string;
  matcher?: string;
  timeout: number;
  crashPolicy: 'allow' | 'deny';
  description?: string;
  optIn?: boolean;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** The folder the corpus sits in: in this repository, its root. */
export const REPO_ROOT = path.resolve(here, '..', '..');
const CORPUS_DIR = path.resolve(here, '..');
const RUNTIME_DIR = here;
const HOOKS_DIR = path.join(CORPUS_DIR, 'hooks');

/**
 * What the compiler lends the build: its package root, which stands in for
 * the corpus's folder where the corpus reaches outside itself (../schemas,
 * ../compiler/data) and the copy has no such sibling; the node_modules folders
 * its own packages resolve from; and a resolver from there. So a copy of the
 * corpus builds anywhere, with the compiler's esbuild and packages. Without
 * it (tests in this repository), all three come from this file's place.
 */
export interface Toolchain {
  packageRoot: string;
  nodePaths: string[];
  resolve: (specifier: string) => string;
}

const ownToolchain: Toolchain = { packageRoot: REPO_ROOT, nodePaths: [], resolve: (specifier) => createRequire(import.meta.url).resolve(specifier) };
// Set by each bundleRuntime call: one compiler process builds with one toolchain.
let toolchain: Toolchain = ownToolchain;

/** A path outside the corpus (relative to its folder): the corpus's sibling when there is one, else the compiler's. */
function outside(relative: string): string {
  const sibling = path.join(REPO_ROOT, relative);
  return existsSync(sibling) ? sibling : path.join(toolchain.packageRoot, relative);
}

const schemaFile = () => outside(path.join('schemas', 'config.schema.json'));

/**
 * Imports that leave the corpus (the release key in ../compiler/data) load as
 * outside() says, under a name relative to the corpus's folder, so the bundle
 * is the same bytes wherever either copy sits. esbuild asks only about
 * relative imports that climb to a name beside the corpus (one in the
 * corpus's folder or the compiler's package root): every question waits for
 * this thread, which the compiler keeps busy while the runtime builds.
 */
function reroot(): Plugin {
  const names = new Set<string>();
  for (const root of [REPO_ROOT, toolchain.packageRoot]) {
    try {
      for (const name of readdirSync(root)) names.add(name);
    } catch {
      // a root that cannot be listed adds no name
    }
  }
  names.delete(path.basename(CORPUS_DIR));
  // esbuild's filters are Go regular expressions (no backtracking); with no name, one that matches nothing.
  const filter = names.size > 0 ? new RegExp(`^(?:\\.\\.?/)+(?:${[...names].sort().map(escapeRegExp).join('|')})(?:/|$)`) : /^\x00$/;
  return {
    name: 'gsd-outside-corpus',
    setup(b) {
      b.onResolve({ filter }, (args) => {
        if (!args.importer.startsWith(CORPUS_DIR + path.sep)) return undefined;
        const target = path.resolve(args.resolveDir, args.path);
        if (target.startsWith(CORPUS_DIR + path.sep) || !target.startsWith(REPO_ROOT + path.sep)) return undefined;
        return { path: path.relative(REPO_ROOT, target).split(path.sep).join('/'), namespace: 'gsd-outside' };
      });
      b.onLoad({ filter: /.*/, namespace: 'gsd-outside' }, async (args) => {
        const file = outside(args.path);
        const loader = file.endsWith('.json') ? 'json' : file.endsWith('.ts') ? 'ts' : 'text';
        return { contents: await readFile(file), loader, resolveDir: path.dirname(file) };
      });
    },
  };
}
/** reroot() for the toolchain of the current bundleRuntime call (made there). */
let outsideCorpus: Plugin | undefined;

type AjvCtor = new (opts: object) => { compile(schema: unknown): unknown };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;
type Standalone = (ajv: unknown, fn: unknown) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: Standalone }).default ?? standaloneModule) as unknown as Standalone;

/** schemas/config.schema.json with the capabilities' config keys, without its documentation. */
async function configSchema(capabilityConfig: Readonly<Record<string, CapabilityKeySpec>>): Promise<unknown> {
  return stripDocs(mergeCapabilityConfig(JSON.parse(await readFile(schemaFile(), 'utf8')), capabilityConfig));
}

/** ajv standalone validator for schemas/config.schema.json (and capability keys), as an ES module. */
export async function configValidatorSource(capabilityConfig: Readonly<Record<string, CapabilityKeySpec>> = {}): Promise<string> {
  const schema = await configSchema(capabilityConfig);
  const ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true, esm: true } });
  const code = standaloneCode(ajv, ajv.compile(schema));
  const body = `${code}\nexport const validateConfigShape = validate;\n`;
  const { code: min } = await transform(body, { loader: 'js', format: 'esm', minify: true, target: 'node20', legalComments: 'none' });
  return min;
}

function runtimePlugins(validator: string, capabilityConfig: Readonly<Record<string, CapabilityKeySpec>>): Plugin[] {
  return [
    {
      name: 'gsd-config-validator',
      setup(b) {
        b.onLoad({ filter: /[\\/]config[\\/]validate-shape\.ts$/ }, () => ({ contents: validator, loader: 'js', resolveDir: RUNTIME_DIR }));
        // A fixed name, not a path: the module key stays the same wherever the tree is.
        b.onResolve({ filter: /[\\/]schemas[\\/]config\.schema\.json$/ }, () => ({ path: 'config.schema.json', namespace: 'gsd-schema' }));
        b.onLoad({ filter: /.*/, namespace: 'gsd-schema' }, async () => ({
          contents: JSON.stringify(await configSchema(capabilityConfig)),
          loader: 'json',
        }));
      },
    },
  ];
}

/**
 * The secret guard's parsers run on WebAssembly (web-tree-sitter and the
 * Bash and PowerShell grammars). Its wasm.ts reads them from node_modules; in
 * the bundle it becomes a module holding the bytes inline, deflated by fflate
 * (pure JavaScript, so the same bytes on every machine) and inflated by
 * node:zlib at start-up. Only the hooks that import wasm.ts carry them.
 */
const WASM_MODULE = /[\\/]hooks[\\/]lib[\\/]secret[\\/]wasm\.ts$/;
let wasmSource: Promise<string> | undefined;
async function inlineWasmSource(): Promise<string> {
  const { WASM_FILES } = await import('../hooks/lib/secret/wasm.ts');
  // fflate's asynchronous deflate runs in worker threads (the same code, so the same bytes):
  // the two to three megabytes take a third of a second, off the thread that builds.
  const entries = await Promise.all(
    Object.entries(WASM_FILES).map(async ([name, file]) => {
      const bytes = await readFile(toolchain.resolve(file));
      const deflated = await new Promise<Uint8Array>((resolve, reject) => deflate(bytes, { level: 9, mem: 8 }, (error, data) => (error ? reject(error) : resolve(data))));
      return `${JSON.stringify(name)}: ${JSON.stringify(Buffer.from(deflated).toString('base64'))}`;
    }),
  );
  return `import { inflateRawSync } from 'node:zlib';\nconst DATA = {${entries.join(',\n')}};\nexport function wasmBytes(name) { return new Uint8Array(inflateRawSync(Buffer.from(DATA[name], 'base64'))); }\n`;
}
const inlineWasm: Plugin = {
  name: 'gsd-inline-wasm',
  setup(b) {
    b.onLoad({ filter: WASM_MODULE }, async () => {
      wasmSource ??= inlineWasmSource();
      return { contents: await wasmSource, loader: 'js', resolveDir: HOOKS_DIR };
    });
  },
};

/** In gsd-tools.cjs, the installer is a sibling file loaded on demand, not part of the CLI's code. */
const INSTALLER = 'gsd-install.cjs';
const splitInstaller: Plugin = {
  name: 'gsd-split-installer',
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/install\.ts$/ }, () => ({ path: `./${INSTALLER}`, external: true }));
  },
};

/** yaml's ES module build (its `default` export condition), which a `node` platform build would pass over for CommonJS. */
const yamlEsm: Plugin = {
  name: 'gsd-yaml-esm',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, () => ({ path: path.join(path.dirname(toolchain.resolve('yaml/package.json')), 'browser', 'index.js') }));
  },
};

const COMMON = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  write: false,
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'silent',
  // Module names in the output are relative to the corpus: the same bytes whatever its folder is called.
  absWorkingDir: CORPUS_DIR,
  minifyWhitespace: true,
  minifySyntax: true,
  define: { __GSD_BUNDLED__: 'true', 'import.meta.url': '"file:///gsd-core/bin/gsd-tools.cjs"' },
  // The release public key (compiler/data/release-signing.pub) is imported as its text.
  loader: { '.pub': 'text' },
  // Fixed here rather than read from a tsconfig.json, so a copy of the source
  // tree anywhere (tests, --source) bundles to the same bytes.
  tsconfigRaw: { compilerOptions: { strict: true, verbatimModuleSyntax: true, target: 'ES2022' } },
} as const;

async function one(options: Parameters<typeof build>[0], label: string): Promise<string> {
  const result = await build({ ...COMMON, nodePaths: toolchain.nodePaths, ...options, plugins: [...(options.plugins ?? []), (outsideCorpus ??= reroot())] });
  if (result.errors.length) throw new Error(`bundling ${label} failed: ${result.errors.map((e) => e.text).join('; ')}`);
  const file = result.outputFiles?.[0];
  if (!file) throw new Error(`bundling ${label} produced no output`);
  const text = file.text;
  for (const root of new Set([REPO_ROOT, toolchain.packageRoot])) {
    if (text.includes(root)) throw new Error(`bundling ${label}: output contains the build machine path ${root}`);
  }
  return text;
}

export async function loadHookEntries(): Promise<HookEntry[]> {
  let text: string;
  try {
    text = await readFile(path.join(HOOKS_DIR, 'hooks.json'), 'utf8');
  } catch {
    return [];
  }
  return JSON.parse(text) as HookEntry[];
}

const memo = new Map<string, Promise<BundledFile[]>>();

/**
 * Bundle gsd-tools and every hook. The code is the same for every bundle;
 * what differs per bundle is data the compiler writes beside it
 * (gsd-core/bin/runtime.json). `hookPayloads` are the hook payload specs of
 * the targets built for (target id → targets/<id>/hook-payload.json), built
 * into the hooks; without them, those of this repository's targets.
 * Memoised per table for the process; pass `{ fresh: true }` to rebuild after
 * sources change.
 */
export function bundleRuntime(opts: { fresh?: boolean; hookPayloads?: Record<string, unknown>; toolchain?: Toolchain; capabilityConfig?: Record<string, CapabilityKeySpec> } = {}): Promise<BundledFile[]> {
  toolchain = opts.toolchain ?? ownToolchain;
  outsideCorpus = reroot();
  const capabilityConfig = opts.capabilityConfig ?? {};
  const key = `${toolchain.packageRoot}\n${opts.hookPayloads ? JSON.stringify(opts.hookPayloads) : ''}\u0000${JSON.stringify(capabilityConfig)}`;
  let built = memo.get(key);
  if (!built || opts.fresh) {
    built = bundleAll(opts.hookPayloads, capabilityConfig);
    memo.set(key, built);
  }
  return built;
}

/** lib/payload-table.ts, replaced by the table the hooks are built with. */
function payloadTable(payloads: Record<string, unknown>): Plugin {
  return {
    name: 'gsd-hook-payloads',
    setup(b) {
      b.onLoad({ filter: /[\\/]hooks[\\/]lib[\\/]payload-table\.ts$/ }, () => ({ contents: `export const PAYLOADS = ${JSON.stringify(payloads)};`, loader: 'js' }));
    },
  };
}

/**
 * The shipped gsd-tools.cjs: a small loader holding the bundled CLI as a
 * string, compiled through V8's code cache. The cache lives in the user's own
 * cache directory (never a shared temp folder), is only trusted when owned by
 * the user and not writable by others, and is keyed by the code's hash and the
 * Node version; V8 rejects anything that does not match and the loader then
 * compiles normally. GSD_NO_CODE_CACHE=1 turns the cache off.
 */
export function cliLoader(code: string): string {
  const families = Object.entries(TABLE.commands).filter(([, spec]) => spec.subcommands).map(([name]) => name);
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  if (!/^[\x09\x0a\x20-\x7e]*$/.test(code)) throw new Error('bundling gsd-tools: the code must be printable ASCII to travel as line comments');
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${code}\n})`;
  // Each line of the code becomes a // comment: the loader's own compile skips
  // it at scanning speed, and the loader reads it back from its own file.
  const payload = `//${wrapped.split('\n').join('\n//')}`;
  return `#!/usr/bin/env node
// gsd-tools: the GSD runtime CLI. Generated by gsd-build from source/runtime; do not edit.
// The CLI's code is the commented block at the end of this file. The loader
// compiles it with a per-user V8 code cache for a fast start.
'use strict';
const HASH = ${JSON.stringify(hash)};
const FAMILIES = ${JSON.stringify(families)};
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const self = fs.readFileSync(__filename, 'latin1');
const MARK = '\\n//@gsd-code\\n//';
const CODE = self.slice(self.indexOf(MARK) + MARK.length).split('\\n//').join('\\n').replace(/\\n$/, '');
// The cache is rewritten whenever a command runs that it has not seen, so it
// grows to hold the compiled code of every command in use, then stays put.
const words = process.argv.slice(2).filter((a) => !a.startsWith('-'));
if (words[0] === 'query') words.shift();
if (words[0] && words[0].includes('.')) words.splice(0, 1, ...words[0].split('.'));
const command = (FAMILIES.includes(words[0]) ? words.slice(0, 2) : words.slice(0, 1)).join(' ').replace(/[^a-z .-]/g, '').slice(0, 40);
let cacheFile = null;
let cached;
let seen = [];
// install and uninstall run once in a while and write nothing outside the install.
if (!process.env.GSD_NO_CODE_CACHE && words[0] !== 'install' && words[0] !== 'uninstall') {
  try {
    const home = process.env.XDG_CACHE_HOME || path.join(require('node:os').homedir(), '.cache');
    cacheFile = path.join(home, 'gsd-tools', HASH + '-' + process.version + '-' + process.arch + '.v8cache');
    const st = fs.statSync(cacheFile);
    const mine = typeof process.getuid !== 'function' || (st.uid === process.getuid() && (st.mode & 0o022) === 0);
    if (mine && st.isFile()) {
      cached = fs.readFileSync(cacheFile);
      seen = fs.readFileSync(cacheFile + '.seen', 'utf8').split('\\n');
    }
  } catch {
    seen = [];
  }
}
const script = new vm.Script(CODE, { filename: __filename, cachedData: cached });
const inner = { exports: {} };
script.runInThisContext()(inner.exports, require, inner, __filename, __dirname);
module.exports = inner.exports;
function saveCache() {
  if (!cacheFile || (cached && !script.cachedDataRejected && seen.includes(command))) return;
  try {
    const dir = path.dirname(cacheFile);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temp = cacheFile + '.' + process.pid + '.tmp';
    fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(temp, cacheFile);
    const list = (cached && !script.cachedDataRejected ? seen : []).filter(Boolean).concat(command).join('\\n');
    fs.writeFileSync(temp, list, { mode: 0o600 });
    fs.renameSync(temp, cacheFile + '.seen');
    for (const name of fs.readdirSync(dir)) {
      if (/\\.v8cache(\\.seen)?$/.test(name) && !name.startsWith(HASH + '-')) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // a cache that cannot be written only costs start-up time
  }
}
if (require.main === module) {
  inner.exports.main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
    saveCache();
  });
}
//@gsd-code
${payload}
`;
}

async function bundleAll(hookPayloads: Record<string, unknown> | undefined, capabilityConfig: Readonly<Record<string, CapabilityKeySpec>>): Promise<BundledFile[]> {
  // The wasm is deflated from the start, beside the bundling (a failure surfaces where a hook awaits it).
  wasmSource ??= inlineWasmSource();
  wasmSource.catch(() => {});
  // The hooks carry a payload table in every build: the one given, or this repository's, read now.
  const payloads = hookPayloads ?? (await import('../hooks/lib/payload-table.ts')).PAYLOADS;
  const validator = await configValidatorSource(capabilityConfig);
  const hooks = await loadHookEntries();
  // Every bundle is started at once, with no await until all are (a failure waits for Promise.all below): esbuild works on them side by side, and the order is the sort below.
  const cli = one(
    {
      stdin: {
        contents: "export { main } from './main.ts';",
        resolveDir: RUNTIME_DIR,
        sourcefile: 'gsd-tools-entry.ts',
        loader: 'ts',
      },
      plugins: [...runtimePlugins(validator, capabilityConfig), splitInstaller],
      // import() of the installer becomes require(): the CLI runs in a vm.Script, which has no module loader.
      supported: { 'dynamic-import': false },
      charset: 'ascii',
    },
    'gsd-tools',
  ).then(cliLoader);
  const installer = one(
    {
      stdin: {
        contents: "export { handlers, summary } from './commands/install.ts';",
        resolveDir: RUNTIME_DIR,
        sourcefile: 'gsd-install-entry.ts',
        loader: 'ts',
      },
      banner: { js: '// gsd-install: install and uninstall for gsd-tools, which loads this file for those verbs only. Generated by gsd-build from source/runtime; do not edit.' },
      // ES module builds of the parsers only: jsonc-parser's main entry is a UMD wrapper esbuild
      // cannot follow, and a CommonJS package (yaml's node entry) would carry its path relative
      // to this tree into the output, so the same sources would bundle differently elsewhere.
      mainFields: ['module', 'main'],
      plugins: [...runtimePlugins(validator, capabilityConfig), yamlEsm],
    },
    'gsd-install',
  );
  const pending: Promise<BundledFile>[] = [
    cli.then((contents) => ({ path: 'gsd-core/bin/gsd-tools.cjs', contents })),
    installer.then((contents) => ({ path: `gsd-core/bin/${INSTALLER}`, contents })),
  ];
  // A runtime reached through a dispatcher hands the hooks Claude Code's payloads: they need not carry its table.
  const dispatched = Object.entries(payloads).filter(([, spec]) => typeof (spec as { dispatcher?: unknown }).dispatcher === 'string') as [string, { dispatcher: string }][];
  const hookTable = Object.fromEntries(Object.entries(payloads).filter(([id]) => !dispatched.some(([other]) => other === id)));
  const seen = new Set<string>();
  for (const hook of hooks) {
    if (seen.has(hook.id)) continue; // one script may serve several events
    seen.add(hook.id);
    const contents = one(
      {
        entryPoints: [path.join(HOOKS_DIR, hook.entry)],
        banner: { js: `#!/usr/bin/env node\n// ${hook.id}: GSD hook. Generated by gsd-build from source/hooks/${hook.entry}; do not edit.` },
        plugins: [...runtimePlugins(validator, capabilityConfig), inlineWasm, payloadTable(hookTable)],
      },
      hook.id,
    );
    // .cjs, not .js: a project whose package.json says "type": "module" would load a .js hook as an ES module, and it would crash (exit 1: the tool call goes through).
    pending.push(contents.then((text) => ({ path: `hooks/${hook.id}.cjs`, contents: text })));
  }
  for (const [id, spec] of dispatched) {
    const name = `gsd-${spec.dispatcher.replace(/\.ts$/, '')}`;
    // A module, not a program: the per-event files the compiler writes load it with their hooks (no shebang, so not executable).
    const contents = one(
      {
        entryPoints: [path.join(HOOKS_DIR, spec.dispatcher)],
        // A program in the runtime's hook folder, whose mode the landing policy fixes at 0755 like every hook script.
        banner: { js: `#!/usr/bin/env node\n// ${name}: GSD's hook dispatcher for ${id}. Generated by gsd-build from source/hooks/${spec.dispatcher}; do not edit.` },
        plugins: [...runtimePlugins(validator, capabilityConfig), payloadTable({ [id]: spec })],
      },
      name,
    );
    pending.push(contents.then((text) => ({ path: `hooks/${name}.cjs`, contents: text, runtime: id })));
  }
  const files = await Promise.all(pending);
  return files.sort((a, b) => (a.path < b.path ? -1 : 1));
}
