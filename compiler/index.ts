// gsd-build's programmatic API: the pipeline's stages as the CLI uses them.
// `import { compile, emitBundles, allBundles } from 'gsd-build'`.
export { main } from './cli.ts';
export { compile, emitBundles, allBundles, bundleKey, errorsOf, REPO_ROOT, type CompileOptions, type Compiled, type BundleSelection } from './pipeline.ts';
export { formatDiagnostic, DIAGNOSTIC_CODES, type Diagnostic, type DiagnosticCode } from './diagnostics.ts';
export { writeTrees } from './write/write-tree.ts';
export { buildRelease, zipName, type Release, type ReleaseZip } from './release/release.ts';
export { buildSite } from './site/build-site.ts';
export { compareWithGolden, readGoldenFiles, type GoldenFinding } from './golden/compare-golden.ts';
export { loadTargets, DEFAULT_TARGETS_DIR } from './targets/load-targets.ts';
export type { VirtualTree } from './emit/virtual-tree.ts';
