// The contract between the compiler, which writes a bundle, and the installer, which
// lands it: the manifest's shape (gsd-file-manifest.json; schemas/manifest.schema.json)
// and the landing policy (which paths GSD owns and which it merges). Types only, so the
// compiler can import them and the runtime never imports the compiler.

export type MergeFormat = 'json' | 'toml' | 'yaml' | 'markdown';
export type FileMode = '0644' | '0755';

export interface OwnedPattern {
  /**
   * A bundle path. A segment may hold one `{placeholder}`, which matches one
   * name of letters, digits, `_`, `-` and inner dots; a final `**` matches one
   * or more such names. Everything else is literal.
   */
  pattern: string;
  mode: FileMode;
}

export interface LandingPolicy {
  target: string;
  runtime: string;
  scope: 'global' | 'local';
  base: 'home' | 'project';
  root: string;
  env: string[];
  /** Files GSD owns, most specific first: the first pattern a path matches decides its mode. */
  owned: OwnedPattern[];
  /** Files shared with the user, merged in this format; never owned. */
  merged: { path: string; format: MergeFormat }[];
}

export interface ManifestFile {
  /** Bundle-relative POSIX path: where the file lands under the user's home (global) or project (local). */
  path: string;
  sha256: string;
  bytes: number;
  mode: FileMode;
  /** Shared with the user: the installer merges GSD's entries into the user's file instead of owning it. */
  merge?: MergeFormat;
  /** Built code (runtime CLI, hooks): copied byte for byte, never rewritten on install. */
  generated?: true;
}

export interface BundleManifest {
  manifestVersion: number;
  target: string;
  runtime: string;
  scope: 'global' | 'local';
  version: string;
  /** The skill profile(s) the bundle ships, comma-separated; absent means full. */
  profile?: string;
  /** What the paths are relative to. */
  base: 'home' | 'project';
  /** The runtime's folder under base; a global install may move it (env, --config-dir). */
  root: string;
  /** Variables that move the root, first set wins. */
  env: string[];
  /** Capabilities composed in (absent when none): where each came from and the digest of its folder. */
  capabilities?: ManifestCapability[];
  files: ManifestFile[];
}

export interface ManifestCapability {
  id: string;
  version: string;
  origin: 'first-party' | 'third-party';
  /** The folder or npm package as the build was given it. */
  source: string;
  /** sha256 over the capability folder's files. */
  digest: string;
  /** Whether it brings hooks of its own (executable code, installed only with consent). */
  hooks: boolean;
  /** The bundle paths it brought (its commands, agents, templates, step files and hook scripts): consent covers them, uninstall removes exactly them. */
  files: string[];
}
