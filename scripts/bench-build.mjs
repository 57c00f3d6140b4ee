#!/usr/bin/env node
// Wall time of `gsd-build --all` on source/ and on the upstream corpus
// (median of 5 runs each), next to `node -e 0` measured in the same run, and
// the output size per runtime. Usage: node scripts/bench-build.mjs [runs]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const runs = Number(process.argv[2] ?? 5);
const bin = path.join(root, 'compiler/bin/gsd-build.mjs');
const upstream = path.join(root, 'node_modules/@opengsd/gsd-core');

function time(args) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed:\n${result.stderr.slice(-2000)}`);
  return ms;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function sizeOf(dir) {
  let bytes = 0;
  let files = 0;
  const walk = (current) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        bytes += statSync(full).size;
        files += 1;
      }
    }
  };
  walk(dir);
  return { bytes, files };
}

const baseline = median(Array.from({ length: runs }, () => time(['-e', '0'])));
console.log(`node -e 0: ${baseline.toFixed(0)} ms (median of ${runs})`);

for (const [label, source] of [['source/', 'source'], ['upstream @opengsd/gsd-core', upstream]]) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'gsd-bench-'));
  const times = Array.from({ length: runs }, () => time([bin, '--all', '--source', source, '--out', out]));
  const wall = median(times);
  console.log(`\n${label}: gsd-build --all ${wall.toFixed(0)} ms median of ${runs} (${(wall / baseline).toFixed(1)}x node -e 0; runs ${times.map((t) => t.toFixed(0)).join(', ')})`);
  const perRuntime = new Map();
  for (const target of readdirSync(out).filter((name) => !name.startsWith('.')).sort()) {
    for (const scope of readdirSync(path.join(out, target)).sort()) {
      const { bytes, files } = sizeOf(path.join(out, target, scope));
      perRuntime.set(`${target}/${scope}`, `${files} files, ${(bytes / 1024).toFixed(0)} KiB`);
    }
  }
  for (const [bundle, size] of perRuntime) console.log(`  ${bundle.padEnd(22)} ${size}`);
  rmSync(out, { recursive: true, force: true });
}
