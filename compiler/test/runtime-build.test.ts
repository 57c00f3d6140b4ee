// The corpus's runtime build (compiler/load/build-runtime.ts): its builder
// runs in a worker thread, and every way it can fail there is a positioned
// diagnostic; a process without a cache folder builds the runtime again when
// the corpus's code changes, and only then.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compile } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { runCli, temporaryDir } from './fixture-support.ts';

const runtimeBuild = suite('runtime-build');

const COMMAND = '---\nname: gsd:hello\ndescription: Say hello\nallowed-tools:\n  - Read\n---\n\nSay hello.\n';

/** A corpus of one command and the builder given, with its other files. */
function corpus(builder: string, files: Record<string, string> = {}): string {
  const root = path.join(temporaryDir('runtime-build'), 'corpus');
  for (const [file, text] of Object.entries({ 'commands/gsd/hello.md': COMMAND, 'runtime/build.ts': builder, ...files })) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

function runtimeFindings(diagnostics: readonly { file: string; line: number; column: number; code: string; message: string }[]): string[] {
  return diagnostics.filter((d) => d.code === 'runtime-build').map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`);
}

runtimeBuild('should report an esbuild error inside the builder run at the file and position esbuild names', async () => {
  const sourceDir = corpus(
    "import { build } from 'esbuild';\nimport { fileURLToPath } from 'node:url';\nexport async function bundleRuntime() {\n  await build({ entryPoints: [fileURLToPath(new URL('./broken.ts', import.meta.url))], bundle: true, write: false, logLevel: 'silent' });\n  return [];\n}\n",
    { 'runtime/broken.ts': 'export const value = ;\n' },
  );
  const compiled = await compile({ sourceDir });
  const findings = runtimeFindings(compiled.diagnostics);
  assert.is(findings.length, 1, findings.join('\n'));
  assert.match(findings[0]!, /^runtime\/broken\.ts:1:22: expected the corpus's runtime code to build, found: Unexpected ";"$/);
  rmSync(path.dirname(sourceDir), { recursive: true, force: true });
});

runtimeBuild('should report a builder that throws, and one without bundleRuntime, at the builder', async () => {
  const throwing = corpus("export async function bundleRuntime() {\n  throw new Error('no table for the hooks');\n}\n");
  assert.equal(runtimeFindings((await compile({ sourceDir: throwing })).diagnostics), ["runtime/build.ts:1:1: expected the corpus's runtime code to build, found: no table for the hooks"]);
  const missing = corpus('export const nothing = 1;\n');
  assert.equal(runtimeFindings((await compile({ sourceDir: missing })).diagnostics), ['runtime/build.ts:1:1: expected the builder to export a function bundleRuntime, found none']);
  for (const dir of [throwing, missing]) rmSync(path.dirname(dir), { recursive: true, force: true });
});

runtimeBuild('should exit 1 on a builder that throws, with the positioned error, and write no output', () => {
  const sourceDir = corpus("export async function bundleRuntime() {\n  throw new Error('no table for the hooks');\n}\n");
  const out = path.join(path.dirname(sourceDir), 'out');
  const cache = path.join(path.dirname(sourceDir), 'cache');
  const result = runCli(['--all', '--source', sourceDir, '--out', out, '--cache', cache]);
  assert.is(result.status, 1, result.stderr);
  assert.match(result.stderr, /runtime\/build\.ts:1:1: error runtime-build expected the corpus's runtime code to build, found: no table for the hooks/);
  assert.not.match(result.stderr, /\n\s+at /, 'no stack trace');
  assert.not.ok(existsSync(out), 'no output folder');
  rmSync(path.dirname(sourceDir), { recursive: true, force: true });
});

runtimeBuild('should build the runtime again without a cache folder when the corpus code changes, and reuse it when nothing does', async () => {
  // The builder ships a text file of the corpus and counts its runs in a file outside it.
  const calls = path.join(temporaryDir('runtime-calls'), 'calls.log');
  writeFileSync(calls, '');
  const sourceDir = corpus(
    `import { appendFileSync, readFileSync } from 'node:fs';\nexport async function bundleRuntime() {\n  appendFileSync(${JSON.stringify(calls)}, 'run\\n');\n  return [{ path: 'gsd-core/bin/gsd-tools.cjs', contents: readFileSync(new URL('./value.txt', import.meta.url), 'utf8') }];\n}\n`,
    { 'runtime/value.txt': 'first\n' },
  );
  const shipped = async () => (await compile({ sourceDir })).generated.find((file) => file.path === 'gsd-core/bin/gsd-tools.cjs')?.contents;
  assert.is(await shipped(), 'first\n');
  assert.is(await shipped(), 'first\n');
  assert.is(readFileSync(calls, 'utf8'), 'run\n', 'the second build reuses the first');
  writeFileSync(path.join(sourceDir, 'runtime/value.txt'), 'second\n');
  assert.is(await shipped(), 'second\n');
  assert.is(readFileSync(calls, 'utf8'), 'run\nrun\n');
  // A prose edit leaves the runtime as it was.
  writeFileSync(path.join(sourceDir, 'commands/gsd/hello.md'), COMMAND.replace('Say hello.', 'Say hello twice.'));
  assert.is(await shipped(), 'second\n');
  assert.is(readFileSync(calls, 'utf8'), 'run\nrun\n');
  rmSync(path.dirname(sourceDir), { recursive: true, force: true });
  rmSync(path.dirname(calls), { recursive: true, force: true });
});

runtimeBuild.run();
