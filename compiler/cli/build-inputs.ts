// What a build or a check reads from its command line before it decides
// whether it has anything to do: where the sources and the cache are, and
// whether every input is in the key. Nothing here loads a compiler stage, so
// a build with nothing changed loads none.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defaultCacheDir } from '../incremental.ts';
import { layoutNames } from '../load/layout-names.ts';
import { BUILD_CONFIG_FILE, REPO_ROOT } from '../locations.ts';

/** The options of gsd-build [build] and gsd-build watch. */
export const BUILD_OPTIONS = {
  target: { type: 'string', multiple: true },
  scope: { type: 'string' },
  all: { type: 'boolean' },
  out: { type: 'string' },
  profile: { type: 'string' },
  cache: { type: 'string' },
  'no-cache': { type: 'boolean' },
} as const;

/**
 * --source, else ./source when the current folder has one (a checkout of this
 * repository or a fork of it), else the corpus that ships with gsd-build.
 */
export function sourceOf(values: { source?: string | undefined }): string {
  if (values.source !== undefined) return values.source;
  if (existsSync('source')) return 'source';
  return path.relative(process.cwd(), path.join(REPO_ROOT, 'source')) || 'source';
}

/** The build cache's folder (--cache, else the default), or null (--no-cache). */
export function cacheDirOf(values: { cache?: string | undefined; 'no-cache'?: boolean | undefined }): string | null {
  return values['no-cache'] ? null : path.resolve(values.cache ?? defaultCacheDir());
}

/**
 * Whether every input of a build is in its key (buildInputKey: the source
 * tree, the targets, the options): not so with a layout file or third-party
 * capabilities (of --capability or gsd-build.json), which lie elsewhere, nor
 * with a gsd-build.json that does not read cleanly (the build reports it), so
 * such builds and checks always run.
 */
export async function inputsKeyed(values: { layout?: string | undefined; capability?: string[] | undefined }): Promise<boolean> {
  if ((values.layout !== undefined && !layoutNames().includes(values.layout)) || (values.capability ?? []).length > 0) return false;
  // The config's reader (and its JSON parser) is loaded only when there is a config to read.
  if (!existsSync(path.join(process.cwd(), BUILD_CONFIG_FILE))) return true;
  const { readBuildConfig } = await import('../load/build-config.ts');
  const { config, diagnostics } = readBuildConfig(process.cwd());
  return diagnostics.length === 0 && (config?.capabilities.length ?? 0) === 0;
}
