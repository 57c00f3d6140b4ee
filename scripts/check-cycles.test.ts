// scripts/check-cycles.mjs: every import cycle among compiler/ and source/ modules, type-only ones included.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assert, suite } from '../compiler/test/harness.ts';

const SCRIPT = fileURLToPath(new URL('./check-cycles.mjs', import.meta.url));
const REPO = path.resolve(path.dirname(SCRIPT), '..');

function check(root: string): { status: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout + run.stderr };
}

/** A scratch repository holding exactly these files. */
function repo(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gsd-cycles-'));
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

const test = suite('check-cycles');

test('the repository has no import cycle and no import from built code into compiler/', () => {
  const { status, stdout } = check(REPO);
  assert.is(status, 0, stdout);
  assert.match(stdout, /^no import cycle among \d+ modules/);
});

test('a cycle made only of `import type` is found and fails the check', () => {
  const root = repo({
    'compiler/a.ts': "import type { B } from './b.ts';\nexport type A = { b?: B };\n",
    'compiler/b.ts': "import type { A } from './a.ts';\nexport type B = { a?: A };\n",
    'compiler/c.ts': "import type { A } from './a.ts';\nexport const c: A = {};\n",
  });
  const { status, stdout } = check(root);
  assert.is(status, 1);
  assert.match(stdout, /1 import cycle among 3 modules/);
  assert.match(stdout, 'compiler/a.ts -> compiler/b.ts -> compiler/a.ts');
  assert.not.match(stdout, 'compiler/c.ts ->');
});

test('re-exports and dynamic imports close cycles too, each printed once', () => {
  const root = repo({
    'source/runtime/main.ts': "const load = () => import('./commands/x.ts');\nexport { load };\n",
    'source/runtime/commands/x.ts': "export type { Io } from '../main.ts';\n",
    'compiler/p.ts': "export * from './q.ts';\n",
    'compiler/q.ts': "import './p.ts';\n",
  });
  const { status, stdout } = check(root);
  assert.is(status, 1);
  assert.match(stdout, /2 import cycles/);
  assert.match(stdout, 'compiler/p.ts -> compiler/q.ts -> compiler/p.ts');
  assert.match(stdout, 'source/runtime/commands/x.ts -> source/runtime/main.ts -> source/runtime/commands/x.ts');
});

test('built code importing a compiler/ module fails the check; its tests may', () => {
  const root = repo({
    'compiler/emit/shape.ts': 'export type Shape = { path: string };\n',
    'source/runtime/install/bundle.ts': "import type { Shape } from '../../../compiler/emit/shape.ts';\nexport const s: Shape = { path: '' };\n",
    'source/runtime/test/bundle.test.ts': "import type { Shape } from '../../../compiler/emit/shape.ts';\n",
  });
  const { status, stdout } = check(root);
  assert.is(status, 1);
  assert.match(stdout, '1 import from built code into compiler/');
  assert.match(stdout, 'source/runtime/install/bundle.ts -> compiler/emit/shape.ts');
  assert.not.match(stdout, 'bundle.test.ts ->');
});

test('a folder with neither compiler/ nor source/ is refused, naming what was expected', () => {
  const { status, stdout } = check(repo({ 'README.md': 'x\n' }));
  assert.is(status, 2);
  assert.match(stdout, /expected a repository with compiler\/ or source\//);
});

test.run();
