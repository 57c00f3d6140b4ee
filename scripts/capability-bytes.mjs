#!/usr/bin/env node
// What each first-party capability costs a bundle, and the composition order
// at each loop point. One bundle (claude/global unless given) is built from
// source/ with every capability, then once more per capability from a copy of
// source/ without that capability's folder; the difference is what it adds:
// bytes of the whole bundle and bytes of the host workflows (the text a
// runtime reads eagerly). The order and each entry's placement (inline or
// step file) and bytes come from `gsd-build ir --json` (its `composition`).
//
// Usage: node scripts/capability-bytes.mjs [--target claude] [--scope global] [--json]
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BIN = path.join(root, 'compiler/bin/gsd-build.mjs');
const { values } = parseArgs({ options: { target: { type: 'string', default: 'claude' }, scope: { type: 'string', default: 'global' }, json: { type: 'boolean', default: false } } });

function gsdBuild(args) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`gsd-build ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** Bytes of every file under dir, and of the files whose path matches `host`. */
function measure(dir, host) {
  let total = 0;
  let hosts = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const size = statSync(file).size;
    total += size;
    if (host.test(file.split(path.sep).join('/'))) hosts += size;
  }
  return { total, hosts };
}

const work = mkdtempSync(path.join(os.tmpdir(), 'capability-bytes-'));
try {
  const ir = JSON.parse(gsdBuild(['ir', '--json']));
  const entries = Object.values(ir.composition ?? {}).flat();
  const hostNames = [...new Set(entries.map((entry) => entry.workflow))];
  const host = new RegExp(`/gsd-core/workflows/(?:${hostNames.join('|')})\\.md$`);
  const build = (source, name) => {
    const out = path.join(work, name);
    gsdBuild(['--target', values.target, '--scope', values.scope, '--source', source, '--out', out, '--no-cache']);
    return measure(path.join(out, values.target, values.scope), host);
  };
  const all = build(path.join(root, 'source'), 'all');
  const rows = [];
  for (const capability of ir.capabilities ?? []) {
    if (capability.origin !== 'first-party') continue;
    const copy = path.join(work, `source-${capability.id}`);
    cpSync(path.join(root, 'source'), copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}node_modules`) });
    rmSync(path.join(copy, 'capabilities', capability.id), { recursive: true });
    const without = build(copy, `without-${capability.id}`);
    rmSync(copy, { recursive: true });
    const mine = entries.filter((entry) => entry.capability === capability.id);
    rows.push({
      id: capability.id,
      key: Object.keys(capability.config).join(', '),
      default: Object.values(capability.config).map((spec) => JSON.stringify(spec.default)).join(', '),
      bundleBytes: all.total - without.total,
      hostBytes: all.hosts - without.hosts,
      entries: mine.map((entry) => `${entry.point} ${entry.placement} ${entry.hostBytes}${entry.step ? ` + ${entry.stepBytes} step` : ''}`),
    });
  }
  const order = Object.fromEntries(Object.entries(ir.composition ?? {}).map(([point, list]) => [point, list.map((entry) => `${entry.capability} (${entry.kind}, ${entry.placement})`)]));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ bundle: `${values.target}/${values.scope}`, bundleBytes: all.total, capabilities: rows, order }, null, 2)}\n`);
  } else {
    process.stdout.write(`Bundle ${values.target}/${values.scope}: ${all.total} bytes with every capability.\n\n`);
    process.stdout.write('| Capability | Config key (default) | Bytes added to the bundle | Of them in host workflows | At (placement, host bytes) |\n|---|---|---|---|---|\n');
    for (const row of rows) process.stdout.write(`| ${row.id} | \`${row.key}\` (${row.default}) | ${row.bundleBytes} | ${row.hostBytes} | ${row.entries.join('; ')} |\n`);
    process.stdout.write('\n| Loop point | Composition order |\n|---|---|\n');
    for (const [point, list] of Object.entries(order)) process.stdout.write(`| \`${point}\` | ${list.join(', ')} |\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
