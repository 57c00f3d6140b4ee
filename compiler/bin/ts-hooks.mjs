// Node module hooks that let the compiler, its tests and scripts run straight
// from TypeScript: each .ts file is transpiled in memory by esbuild, so there
// is no build step to forget and no stale output to trip over. A .pub file
// (the release public key) loads as its text, as esbuild's text loader
// bundles it.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && url.endsWith('.pub')) {
    return { format: 'module', source: `export default ${JSON.stringify(await readFile(fileURLToPath(url), 'utf8'))};`, shortCircuit: true };
  }
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = await readFile(file, 'utf8');
  const { code } = await transform(source, {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    supported: { 'import-attributes': true },
    sourcefile: file,
    sourcemap: 'inline',
  });
  return { format: 'module', source: code, shortCircuit: true };
}
