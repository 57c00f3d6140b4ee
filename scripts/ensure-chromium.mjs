#!/usr/bin/env node
// The tools some tests drive are Debian's own packages, never a build that a
// package downloads: Chromium for the docs site's browser test, minisign for
// the release signature interop test. Run before the tests: installs what is
// missing with apt-get when this user may (root on Debian), else says how and
// fails.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const TOOLS = [
  { path: '/usr/bin/chromium', pkg: 'chromium', for: 'the browser test' },
  { path: '/usr/bin/minisign', pkg: 'minisign', for: 'the signature interop test' },
];

const missing = TOOLS.filter((tool) => !existsSync(tool.path));
if (missing.length === 0) process.exit(0);

const packages = missing.map((tool) => tool.pkg);
const what = missing.map((tool) => `${tool.path} (${tool.for})`).join(' and ');
const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(`${what} missing: install Debian's ${packages.join(' and ')} package(s) (apt-get update && apt-get install -y ${packages.join(' ')}) and run the tests again.`);
  process.exit(1);
}
console.error(`${what} missing: installing Debian's ${packages.join(' and ')} package(s)...`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
  const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (result.status !== 0) {
    console.error(`apt-get ${args.join(' ')} failed (exit ${result.status}); install ${packages.join(' and ')} by hand and run the tests again.`);
    process.exit(1);
  }
}
