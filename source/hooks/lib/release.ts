// The file the compiler writes beside the hook scripts of every bundle that
// runs hooks (compiler/emit/emit-bundle.ts), and what it holds: the facts the
// hooks know about their own bundle. No imports, so the compiler can name it.

export const RELEASE_FILE = 'gsd-release.json';

export interface Release {
  /** The bundle's version (SemVer). */
  version: string;
  /** `/gsd-update` as the runtime types it; absent when the bundle does not ship the command. */
  updateCommand?: string;
}
