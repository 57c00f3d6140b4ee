// Compiles gsd-build ahead of time into compiler/lib/ (git-ignored; the
// repository's top level is fixed), for the npm package (prepack):
//   compiler/lib/gsd-build.js  the bin
//   compiler/lib/index.js      the programmatic API (compiler/index.ts)
//   compiler/lib/types/        its TypeScript declarations (tsc --emitDeclarationOnly)
//   compiler/lib/sources.json  the SHA-256 of every file it was compiled from, schemas/ too (freshness, below)
//   compiler/lib/validators.cjs every schema's validator compiled ahead of time (compiler/schemas.ts)
// npm packages stay imports (the package's dependencies); everything of ours
// is bundled, so an installed gsd-build runs no TypeScript loader. Each
// module keeps its own import.meta.url, relative to the package root, so the
// data it reads beside itself (schemas/, targets/, compiler/data/, the site's
// assets, source/) is found where the `files` list ships it.
// Usage: node scripts/build-compiler.mjs [--no-types]
// (GSD_BUILD_NO_TYPES=1 does the same: the pack-and-install test skips the
// declarations, which cost a type check of the whole API.)
import '../compiler/bin/register.mjs';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const { preserveImportMetaUrl } = await import('../compiler/util/esbuild-meta-url.ts');
const { configValidatorSource } = await import('../source/runtime/build.ts');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'compiler', 'lib');
const started = performance.now();
rmSync(out, { recursive: true, force: true });

const ROOT_URL = '__gsd_package_root';
const result = await build({
  absWorkingDir: root,
  entryPoints: { 'gsd-build': 'compiler/bin/cli-entry.ts', index: 'compiler/index.ts' },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  charset: 'utf8',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  loader: { '.pub': 'text' },
  supported: { 'import-attributes': true },
  // compiler/schemas.ts loads the validators compiled below instead of compiling them at every start.
  define: { GSD_BUILD_LIB: 'true' },
  banner: { js: `// gsd-build, compiled by scripts/build-compiler.mjs; do not edit.\nconst ${ROOT_URL} = new URL('../../', import.meta.url);` },
  plugins: [
    // The runtime's config validator as the shipped CLI has it (ajv standalone code, source/runtime/build.ts), not compiled at every start.
    {
      name: 'gsd-config-validator',
      setup(b) {
        b.onLoad({ filter: /[\\/]source[\\/]runtime[\\/]config[\\/]validate-shape\.ts$/ }, async (args) => ({ contents: await configValidatorSource(), loader: 'js', resolveDir: path.dirname(args.path) }));
      },
    },
    preserveImportMetaUrl(/[\\/](?:compiler|source)[\\/].*\.ts$/, (file) => `new URL(${JSON.stringify(path.relative(root, file).split(path.sep).join('/'))}, ${ROOT_URL}).href`),
  ],
});
// Chunks sit one folder deeper than the entries: their root is ../../../.
for (const file of Object.keys(result.metafile.outputs).filter((name) => name.includes('/chunks/'))) {
  const full = path.join(root, file);
  const { readFileSync, writeFileSync } = await import('node:fs');
  writeFileSync(full, readFileSync(full, 'utf8').replace(`const ${ROOT_URL} = new URL('../../', import.meta.url);`, `const ${ROOT_URL} = new URL('../../../', import.meta.url);`));
}
// What the bundle was compiled from, by content: compiler/bin/gsd-build.mjs runs
// the compiled bin instead of the TypeScript loader only while every one of
// these files still has these bytes (an edit, a checkout, a new import: the loader again).
// The schemas are in the list: the lib carries their validators.
const { createHash } = await import('node:crypto');
const { readFileSync: readSource, writeFileSync: writeSources } = await import('node:fs');
const { precompiledValidators, PRECOMPILED_FILE } = await import('../compiler/schemas.ts');
writeSources(path.join(out, PRECOMPILED_FILE), await precompiledValidators());
const schemaFiles = (await import('node:fs')).readdirSync(path.join(root, 'schemas')).filter((file) => file.endsWith('.json')).map((file) => `schemas/${file}`);
const sources = [...new Set([...Object.keys(result.metafile.inputs).filter((file) => !file.startsWith('node_modules/') && !file.includes(':')), ...schemaFiles])]
  .sort()
  .map((file) => [file, createHash('sha256').update(readSource(path.join(root, file))).digest('hex')]);
writeSources(path.join(out, 'sources.json'), `${JSON.stringify({ format: 'gsd-build-lib-sources/1', sources }, null, 1)}\n`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`compiled ${Object.keys(result.metafile.outputs).length} files, ${bytes} bytes, into compiler/lib/ in ${Math.round(performance.now() - started)} ms`);

if (!process.argv.includes('--no-types') && process.env.GSD_BUILD_NO_TYPES !== '1') {
  const typesStarted = performance.now();
  const tsc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.types.json'], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  console.log(`wrote the API's declarations into compiler/lib/types/ in ${Math.round(performance.now() - typesStarted)} ms`);
}
