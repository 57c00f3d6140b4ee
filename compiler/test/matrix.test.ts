// The README's support matrix is generated from the target definitions; a
// stale copy fails here (regenerate with `gsd-build matrix --update`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../pipeline.ts';
import { loadTargets } from '../targets/load-targets.ts';
import { MATRIX_BEGIN, matrixMarkdown, matrixRows, readValidatedBy, replaceMatrix } from '../report/support-matrix.ts';
import { suite, assert } from './harness.ts';

const matrix = suite('support matrix');

matrix('should match the copy in README.md', async () => {
  const { targets, diagnostics } = await loadTargets();
  assert.equal(diagnostics, []);
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes(MATRIX_BEGIN), 'README.md has no support-matrix block');
  assert.is(readme, replaceMatrix(readme, matrixMarkdown(matrixRows(targets, readValidatedBy(REPO_ROOT)))), 'README.md support matrix is stale: run npx gsd-build matrix --update');
});

matrix('should have a row per target and scope, with the reason for a missing scope', async () => {
  const { targets } = await loadTargets();
  const rows = matrixRows(targets);
  assert.is(rows.length, targets.length * 2);
  for (const row of rows.filter((r) => r.root === '—')) assert.match(row.commands, /^none: .{10,}/);
});

matrix('should say which runtimes their real programs validate, and with which version', () => {
  const validated = readValidatedBy(REPO_ROOT);
  assert.ok(Object.keys(validated).length > 0, 'scripts/runtimes/validated.json is empty or missing');
  for (const [id, text] of Object.entries(validated)) assert.match(text, /^real program .+ \d+\.\d+\.\d+/, `${id}: ${text}`);
});

matrix.run();
