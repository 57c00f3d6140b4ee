// How each runtime calls a hook: targets/<id>/hook-payload.json, one file per
// runtime beside its target definition. Run from the source tree, the table
// is read from the targets folder of this repository; in a bundle,
// source/runtime/build.ts puts here the table of the targets the compiler
// built for, so the hooks read no file at run time.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function readTargetPayloads(): Record<string, unknown> {
  const targets = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'targets');
  const table: Record<string, unknown> = {};
  for (const id of fs.readdirSync(targets).sort()) {
    const file = path.join(targets, id, 'hook-payload.json');
    if (!fs.existsSync(file)) continue;
    const { $schema: _schema, ...spec } = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    table[id] = spec;
  }
  return table;
}

export const PAYLOADS: Record<string, unknown> = readTargetPayloads();
