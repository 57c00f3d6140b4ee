#!/usr/bin/env node
// The checkout's bin. When compiler/lib/ (scripts/build-compiler.mjs) is fresh,
// that is, every file it was compiled from still has the bytes its
// sources.json lists, it runs the compiled bin and skips the TypeScript
// loader (a few hundred ms per start: esbuild transpiles each module in a
// worker). Anything else (no lib, a stale or unreadable list, GSD_BUILD_TS=1)
// runs the TypeScript sources.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);

function libIsFresh() {
  if (process.env.GSD_BUILD_TS === '1') return false;
  try {
    const list = JSON.parse(readFileSync(new URL('compiler/lib/sources.json', root), 'utf8'));
    if (list?.format !== 'gsd-build-lib-sources/1' || !Array.isArray(list.sources) || list.sources.length === 0) return false;
    return list.sources.every(
      (entry) => Array.isArray(entry) && typeof entry[0] === 'string' && !entry[0].startsWith('/') && !entry[0].includes('..') && createHash('sha256').update(readFileSync(new URL(entry[0], root))).digest('hex') === entry[1],
    );
  } catch {
    return false;
  }
}

if (libIsFresh()) {
  await import('../lib/gsd-build.js');
} else {
  await import('./register.mjs');
  const { main } = await import('../cli.ts');
  process.exitCode = await main(process.argv.slice(2));
}
