// gsd-build site: the docs site from the corpus IR.
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.ts';
import { profileIr, REPO_ROOT } from '../pipeline.ts';
import { writeTrees } from '../write/write-tree.ts';
import { buildSite } from '../site/build-site.ts';
import { readValidatedBy } from '../report/support-matrix.ts';
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { compileFrom, profileOption } from './common.ts';
import { sourceOf } from './build-inputs.ts';

export async function runSite(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' }, profile: { type: 'string' } });
  if (values.help) {
    io.out(HELP.site);
    return 0;
  }
  const started = performance.now();
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const profilesPath = path.join(sourceOf(values), 'runtime', 'model-profiles.json');
  let modelProfiles: unknown = null;
  if (existsSync(profilesPath)) {
    try {
      modelProfiles = JSON.parse(await readFile(profilesPath, 'utf8'));
    } catch (error) {
      io.err(`${profilesPath}: warning: not read, the agent pages show no models (${(error as Error).message})`);
    }
  }
  const selected = profileIr(compiled, profileOption(values.profile, compiled));
  if (selected.diagnostics.length > 0) {
    selected.diagnostics.forEach((d) => io.err(formatDiagnostic(d, values.source ?? 'source')));
    return 1;
  }
  const shippedPaths = new Set(selected.ir.nodes.map((node) => node.path));
  const tree = buildSite({ ir: selected.ir, targets: compiled.targets, budgetRows: compiled.budgetRows.filter((row) => shippedPaths.has(row.path)), hooks: compiled.hooks, version: compiled.version, modelProfiles, validatedBy: readValidatedBy(REPO_ROOT) });
  const out = values.out ?? path.join('dist', 'site');
  await writeTrees(path.dirname(out), new Map([[path.basename(out), tree]]));
  const pages = [...tree.keys()].filter((file) => file.endsWith('.html')).length;
  const bytes = [...tree.values()].reduce((sum, file) => sum + Buffer.byteLength(file.contents), 0);
  io.out(`built the site, ${pages} pages and ${tree.size - pages} other files (${bytes} bytes), into ${out}/ in ${Math.round(performance.now() - started)} ms; open ${path.join(out, 'index.html')}`);
  return 0;
}
