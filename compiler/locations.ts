// Where gsd-build finds its own files, from this module's place in the
// package (a checkout or an installed package alike). A module of constants
// only, so that a command can know them without loading a compiler stage.
import path from 'node:path';

/** The package's folder: compiler/, source/, targets/ and schemas/ are in it. */
export const REPO_ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** The runtime definitions a build reads unless --targets says. */
export const DEFAULT_TARGETS_DIR = path.join(REPO_ROOT, 'targets');
/** The built-in layouts (compiler/data/layouts), one JSON file each. */
export const LAYOUTS_DIR = path.join(REPO_ROOT, 'compiler/data/layouts');
/** The project's build config, in the folder gsd-build runs in (load/build-config.ts). */
export const BUILD_CONFIG_FILE = 'gsd-build.json';
