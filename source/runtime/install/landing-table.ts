// The landing policies of every target this installer was built with. In the
// source tree the table is empty, so an installer run from source refuses
// every bundle; source/runtime/build.ts replaces this module with the table
// derived from the target definitions (compiler/targets/landing-policy.ts)
// when it bundles gsd-install.cjs. In-process callers (gsd-build install)
// pass the policies of the targets they loaded instead.
import type { LandingPolicy } from './landing.ts';

export const LANDING_POLICIES: readonly LandingPolicy[] = [];
