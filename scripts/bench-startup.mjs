// Start-up time of gsd-build with lazily loaded verbs (compiler/cli.ts imports
// a verb's module, compiler/cli/<verb>.ts, only when that verb runs) against
// the eager baseline measured in the same run: an entry that imports every
// verb module before dispatching, as compiler/cli.ts did when it imported
// everything up front. Runs are interleaved; medians, min and max, and the
// ratio eager / lazy are printed, with `node -e 0` as the floor. When the
// ahead-of-time build is there (compiler/lib/, npm run build:compiler), its
// bin is timed too: what an installed package starts with.
// Usage: node scripts/bench-startup.mjs [runs=7] [--check]
//   --check also times a whole `gsd-build check` (slow: a full build each run).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runs = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 7);
const withCheck = args.includes('--check');

const scratch = mkdtempSync(path.join(os.tmpdir(), 'gsd-bench-startup-'));
try {
  const verbModules = readdirSync(path.join(root, 'compiler/cli'))
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file) => pathToFileURL(path.join(root, 'compiler/cli', file)).href);
  const eager = path.join(scratch, 'eager.mjs');
  writeFileSync(
    eager,
    [
      `import ${JSON.stringify(pathToFileURL(path.join(root, 'compiler/bin/register.mjs')).href)};`,
      `for (const url of ${JSON.stringify(verbModules)}) await import(url);`,
      `const { main } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'compiler/cli.ts')).href)});`,
      'process.exitCode = await main(process.argv.slice(2));',
      '',
    ].join('\n'),
  );
  const lazy = path.join(root, 'compiler/bin/gsd-build.mjs');
  const commands = [['--version'], ['--help'], ['check', '--help'], ...(withCheck ? [['check']] : [])];
  const cases = [{ name: 'node -e 0', argv: ['-e', '0'] }];
  for (const command of commands) {
    cases.push({ name: `eager ${command.join(' ')}`, argv: [eager, ...command], command });
    cases.push({ name: `lazy  ${command.join(' ')}`, argv: [lazy, ...command], command });
  }
  const lib = path.join(root, 'compiler/lib/gsd-build.js');
  if (existsSync(lib)) for (const command of [['--version'], ['--help']]) cases.push({ name: `lib   ${command.join(' ')}`, argv: [lib, ...command], command });
  const times = new Map(cases.map((entry) => [entry.name, []]));
  for (let run = 0; run < runs; run += 1) {
    for (const entry of cases) {
      const started = process.hrtime.bigint();
      const result = spawnSync(process.execPath, entry.argv, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`${entry.name} exited ${result.status}: ${result.stderr.slice(-500)}`);
      times.get(entry.name).push(ms);
    }
  }
  const stats = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
  };
  const fmt = (ms) => `${Math.round(ms)} ms`.padStart(8);
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`gsd-build start-up, ${runs} interleaved runs each, median (min..max); load average ${load}, ${os.cpus().length} cores, node ${process.version}`);
  for (const entry of cases) {
    const { median, min, max } = stats(times.get(entry.name));
    console.log(`  ${entry.name.padEnd(22)} ${fmt(median)}  (${Math.round(min)}..${Math.round(max)})`);
  }
  console.log('ratio eager / lazy (median):');
  for (const command of commands) {
    const label = command.join(' ');
    const ratio = stats(times.get(`eager ${label}`)).median / stats(times.get(`lazy  ${label}`)).median;
    console.log(`  ${label.padEnd(22)} ${ratio.toFixed(2)}x`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
