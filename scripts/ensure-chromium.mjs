#!/usr/bin/env node
// The docs site's browser test drives Debian's Chromium, never a browser build
// a package downloads. Run before the tests: installs it with apt-get when it
// is missing and this user may (root on Debian), else says how and fails.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CHROMIUM = '/usr/bin/chromium';
if (existsSync(CHROMIUM)) process.exit(0);

const canInstall = process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');
if (!canInstall) {
  console.error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get update && apt-get install -y chromium) and run the tests again.`);
  process.exit(1);
}
console.error(`${CHROMIUM} is missing: installing Debian's chromium package for the browser test...`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
  const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (result.status !== 0) {
    console.error(`apt-get ${args.join(' ')} failed (exit ${result.status}); install chromium by hand and run the tests again.`);
    process.exit(1);
  }
}
