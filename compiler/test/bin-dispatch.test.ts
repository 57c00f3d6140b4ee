// The checkout's bin (compiler/bin/gsd-build.mjs) runs the prebuilt compiler
// only while compiler/lib/sources.json matches every source byte for byte;
// anything else (an edit, a missing or foreign list, a path out of the tree,
// GSD_BUILD_TS=1) runs the TypeScript sources. Tried on a miniature checkout:
// the real bin, a lib that says "lib", sources that say "sources".
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';

const dispatch = suite('bin dispatch');
let box: string;

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const SOURCE = 'export const answer = 1;\n';
const write = (file: string, text: string) => {
  mkdirSync(path.dirname(path.join(box, file)), { recursive: true });
  writeFileSync(path.join(box, file), text);
};
const list = (sources: unknown, format = 'gsd-build-lib-sources/1') => write('compiler/lib/sources.json', JSON.stringify({ format, sources }));
const run = (env: Record<string, string> = {}) => {
  const result = spawnSync(process.execPath, [path.join(box, 'compiler/bin/gsd-build.mjs'), '--version'], { encoding: 'utf8', env: { ...process.env, GSD_BUILD_TS: '', ...env } });
  assert.is(result.status, 0, result.stderr);
  return result.stdout.trim();
};

/** A fresh miniature checkout for each test, removed after it. */
function setUp(): void {
  box = mkdtempSync(path.join(os.tmpdir(), 'gsd-bin-'));
  mkdirSync(path.join(box, 'compiler/bin'), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, 'compiler/bin/gsd-build.mjs'), path.join(box, 'compiler/bin/gsd-build.mjs'));
  // The TypeScript hooks from the real checkout (esbuild resolves there); the "sources" a one-line CLI.
  write('compiler/bin/register.mjs', `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'compiler/bin/ts-hooks.mjs')).href)});\n`);
  write('compiler/cli.ts', "export async function main(argv: string[]): Promise<number> {\n  console.log('sources');\n  return 0;\n}\n");
  write('compiler/pipeline.ts', SOURCE);
  write('compiler/lib/gsd-build.js', "console.log('lib');\n");
  list([['compiler/pipeline.ts', sha(SOURCE)]]);
}

const inBox = (title: string, body: () => void) =>
  dispatch(title, () => {
    setUp();
    try {
      body();
    } finally {
      rmSync(box, { recursive: true, force: true });
    }
  });

inBox('should run the prebuilt compiler while every listed source has its bytes', () => {
  assert.is(run(), 'lib');
});

inBox('should run the sources after an edit of a listed file, even one of the same size', () => {
  write('compiler/pipeline.ts', SOURCE.replace('1', '2'));
  assert.is(run(), 'sources');
});

inBox('should run the sources when a listed file is gone', () => {
  rmSync(path.join(box, 'compiler/pipeline.ts'));
  assert.is(run(), 'sources');
});

inBox('should run the sources when GSD_BUILD_TS=1 asks for them', () => {
  assert.is(run({ GSD_BUILD_TS: '1' }), 'sources');
});

inBox('should run the sources when the list is missing, foreign, empty, corrupt or points out of the tree', () => {
  const cases: (() => void)[] = [
    () => rmSync(path.join(box, 'compiler/lib/sources.json')),
    () => list([['compiler/pipeline.ts', sha(SOURCE)]], 'another-format/1'),
    () => list([]),
    () => write('compiler/lib/sources.json', '{"format": "gsd-build-lib-sources/1", "sources": [['),
    () => list([['compiler/pipeline.ts', 42]]),
    () => list([['../outside.ts', sha(SOURCE)]]),
    () => list([[path.join(box, 'compiler/pipeline.ts'), sha(SOURCE)]]),
  ];
  for (const [index, breakIt] of cases.entries()) {
    list([['compiler/pipeline.ts', sha(SOURCE)]]);
    assert.is(run(), 'lib', `case ${index}: intact before`);
    breakIt();
    assert.is(run(), 'sources', `case ${index}`);
  }
});

dispatch.run();
