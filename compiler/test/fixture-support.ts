// Helpers shared by the tests: compile a fixture tree, build bundles in memory.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.ts';
import { allBundles, compile, emitBundles } from '../pipeline.ts';
import { DEFAULT_TARGETS_DIR } from '../targets/load-targets.ts';

export const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures');

/**
 * Every diagnostic a fixture produces, formatted as the CLI prints them:
 * targets/… for target definitions, source-relative paths for the corpus,
 * <target>/<scope>/… for emitted files (only reached when load and check pass).
 */
export async function diagnoseTree(dir: string): Promise<string[]> {
  const targetsDir = existsSync(path.join(dir, 'targets')) ? path.join(dir, 'targets') : DEFAULT_TARGETS_DIR;
  const compiled = await compile({ sourceDir: path.join(dir, 'source'), targetsDir });
  const lines = [
    ...compiled.targetDiagnostics.map((d) => formatDiagnostic(d, 'targets')),
    ...compiled.diagnostics.map((d) => formatDiagnostic(d)),
  ];
  if (lines.length === 0) {
    lines.push(...emitBundles(compiled, allBundles(compiled.targets)).diagnostics.map((d) => formatDiagnostic(d)));
  }
  return lines;
}
