// SemVer lives with the runtime code (source/runtime/core/semver.ts) because
// the built hooks compare versions too and may not import compiler code; the
// compiler reads it from there.
export * from '../../source/runtime/core/semver.ts';
