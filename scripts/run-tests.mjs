// Runs every *.test.ts file with uvu and closes with 'N passed, M failed'.
// Usage: node scripts/run-tests.mjs [substring-filter ...]
import '../compiler/bin/register.mjs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import fg from 'fast-glob';

globalThis.UVU_DEFER = 1;
const tally = (globalThis.GSD_TEST_TALLY = { passed: 0, failed: 0 });
const { exec } = await import('uvu');

// GSD_TEST_ROOT: another tree to run (the runner's own test gives it one with known passes and failures).
const root = path.resolve(process.env.GSD_TEST_ROOT ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..'));
const filters = process.argv.slice(2);
const files = (
  await fg(['{compiler,source,targets,scripts,site}/**/*.test.ts'], {
    cwd: root,
    ignore: ['**/node_modules/**', '**/fixtures/**'],
  })
)
  .sort()
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)));

let importFailures = 0;
for (const [index, file] of files.entries()) {
  globalThis.UVU_INDEX = index;
  globalThis.UVU_QUEUE.push([file]);
  try {
    await import(pathToFileURL(path.join(root, file)).href);
  } catch (error) {
    importFailures += 1;
    console.error(`${file}: failed to load: ${error?.stack ?? error}`);
  }
}
await exec();
const failed = tally.failed + importFailures;
if (tally.passed + failed === 0) console.error('no test ran');
console.log(`${tally.passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || tally.passed === 0 ? 1 : 0;
