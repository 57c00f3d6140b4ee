// One failing fixture per diagnostic code, each with its exact expected
// output (the TypeScript-baseline model). UPDATE_FIXTURES=1 rewrites the
// expected.txt files; read their diff before committing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DIAGNOSTIC_CODES } from '../diagnostics.ts';
import { suite, assert } from './harness.ts';
import { diagnoseTree, FIXTURES } from './fixture-support.ts';

const root = path.join(FIXTURES, 'diagnostics');
const fixtures = readdirSync(root).sort();
const diagnostics = suite('diagnostics');

diagnostics('should have a failing fixture for every diagnostic code', () => {
  assert.equal(fixtures, Object.keys(DIAGNOSTIC_CODES).sort());
});

for (const code of fixtures) {
  diagnostics(`should report ${code} with its exact position`, async () => {
    const dir = path.join(root, code);
    const actual = (await diagnoseTree(dir)).join('\n') + '\n';
    const expectedFile = path.join(dir, 'expected.txt');
    if (process.env['UPDATE_FIXTURES'] === '1') writeFileSync(expectedFile, actual);
    assert.ok(existsSync(expectedFile), `${code}: expected.txt is missing (run with UPDATE_FIXTURES=1)`);
    assert.fixture(actual, readFileSync(expectedFile, 'utf8'));
    const lines = actual.trim().split('\n');
    assert.ok(lines.some((line) => line.includes(` error ${code} `) || line.includes(` warning ${code} `)), `${code}: the fixture must produce its own code`);
    for (const line of lines) assert.match(line, /^[^:\s]+:\d+:\d+: (?:error|warning) [a-z-]+ .*expected/);
  });
}

diagnostics.run();
