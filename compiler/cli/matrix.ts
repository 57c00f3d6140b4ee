// gsd-build matrix: the support matrix from the target definitions.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.ts';
import { REPO_ROOT } from '../pipeline.ts';
import { DEFAULT_TARGETS_DIR, loadTargets } from '../targets/load-targets.ts';
import { MATRIX_BEGIN, MATRIX_END, matrixMarkdown, matrixRows, readValidatedBy, replaceMatrix } from '../report/support-matrix.ts';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';

export async function runMatrix(args: string[], io: Io): Promise<number> {
  const values = parse(args, { update: { type: 'boolean' } });
  if (values.help) {
    io.out(HELP.matrix);
    return 0;
  }
  const { targets, diagnostics } = await loadTargets(values.targets ?? DEFAULT_TARGETS_DIR);
  if (diagnostics.length > 0) {
    diagnostics.forEach((d) => io.err(formatDiagnostic(d, values.targets ?? 'targets')));
    return 1;
  }
  const markdown = matrixMarkdown(matrixRows(targets, readValidatedBy(REPO_ROOT)));
  if (!values.update) {
    io.out(markdown.trimEnd());
    return 0;
  }
  const readmePath = path.join(REPO_ROOT, 'README.md');
  const updated = replaceMatrix(await readFile(readmePath, 'utf8'), markdown);
  if (updated === null) {
    io.err(`README.md: expected the markers ${MATRIX_BEGIN} and ${MATRIX_END}, found none`);
    return 1;
  }
  await writeFile(readmePath, updated);
  io.out('updated the support matrix in README.md');
  return 0;
}
