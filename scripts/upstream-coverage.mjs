#!/usr/bin/env node
// Command and agent surface coverage of the upstream corpus compiled by gsd-build,
// against what the upstream installer really writes, per runtime and scope.
//
// For each of the installer's 15 runtimes (its --<runtime> flags) and both scopes,
// the installer (the dev dependency's own bin/install.js) runs with a temporary
// HOME and project; gsd-build compiles the same package for every target. Both
// trees are reduced to their surface items:
//   command:<stem>  a command or skill (commands/gsd/x.md, command/gsd-x.md,
//                   skills/gsd-x/SKILL.md, a nested skill, a workflow file...);
//   agent:<name>    an agent definition (agents/gsd-x.md, .toml, a Kimi spec...);
//   agent:<name>.compact  an agent's compact variant, wherever the tree puts it
//                   (the installer: the runtime's agent folder, or gsd-core/agents/
//                   for Copilot and Kimi; gsd-build: gsd-core/agents/ everywhere,
//                   see targets/README.md "Compact agent variants").
// Coverage = the installer's items our bundle also ships / the installer's items.
// Items are compared by identity, not path: where a target places its files
// differently from the installer, its README says why.
//
// Usage: node scripts/upstream-coverage.mjs [--built DIR] [--installed DIR] [--json]
//   --built DIR      reuse a `gsd-build --all --source <upstream>` output
//   --installed DIR  reuse installer output laid out as DIR/<runtime>/<scope>/{home,proj}
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const UPSTREAM = path.join(root, 'node_modules/@opengsd/gsd-core');

/** The installer's runtimes (its --<runtime> flags) → our target for the same program. */
export const RUNTIMES = Object.freeze({
  claude: 'claude',
  codex: 'codex',
  opencode: 'opencode',
  kilo: 'kilo',
  // Upstream's --kimi installs for the Python Kimi CLI (~/.config/agents, ~/.kimi): our kimi-cli target.
  kimi: 'kimi-cli',
  augment: 'augment',
  codebuddy: 'codebuddy',
  copilot: 'copilot',
  antigravity: 'antigravity',
  cursor: 'cursor',
  windsurf: 'windsurf',
  trae: 'trae',
  cline: 'cline',
  qwen: 'qwen',
  hermes: 'hermes',
});
export const SCOPES = Object.freeze(['global', 'local']);

/** The goal of issue #19: at least this share of the installer's items, per runtime and scope. */
export const THRESHOLD = 0.95;

const AGENT_FOLDERS = new Set(['agents', 'subagents']);
const COMMAND_FOLDERS = new Set(['commands', 'command', 'gsd', 'workflows', 'global_workflows', 'prompts']);
const SKIPPED = new Set(['hooks', 'agent-hooks', 'scripts', 'node_modules']);
const AGENT_EXTENSIONS = ['.agent.md', '.md', '.toml', '.yaml', '.yml'];

/** `gsd-x` or `gsd:x` → `x`. */
const stem = (name) => name.replace(/^gsd[-:]/, '');

/**
 * The surface item a file is, or null. `file` is a POSIX path relative to the
 * install base (the home or the project). Pure.
 */
export function surfaceItem(file) {
  const parts = file.split('/');
  const base = parts[parts.length - 1];
  const parent = parts[parts.length - 2];
  if (parts.some((part) => SKIPPED.has(part))) return null;
  const core = parts.indexOf('gsd-core');
  if (core !== -1) {
    // Only an agent prompt under gsd-core/agents/ (a compact variant) is surface; the rest is payload.
    return parts[core + 1] === 'agents' && parts.length === core + 3 && base.endsWith('.compact.md') ? `agent:${base.slice(0, -'.md'.length)}` : null;
  }
  if (parent !== undefined && AGENT_FOLDERS.has(parent)) {
    const extension = AGENT_EXTENSIONS.find((ext) => base.endsWith(ext));
    if (!extension || !base.startsWith('gsd-')) return null;
    return `agent:${base.slice(0, -extension.length)}`;
  }
  if (base === 'SKILL.md' && parent !== undefined) return parent.startsWith('gsd') ? `command:${stem(parent)}` : parts.includes('skills') ? `command:${parent}` : null;
  if (parent !== undefined && COMMAND_FOLDERS.has(parent) && /\.(md|toml)$/.test(base)) {
    const name = base.replace(/\.(md|toml)$/, '');
    return parent === 'gsd' || name.startsWith('gsd') ? `command:${stem(name)}` : null;
  }
  return null;
}

/** Every file under `dir`, as POSIX paths relative to it, sorted. */
export function listFiles(dir) {
  const files = [];
  const walk = (at, prefix) => {
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(at, entry.name), relative);
      else files.push(relative);
    }
  };
  walk(dir, '');
  return files.sort();
}

/** The set of surface items of a list of files. */
export function surfaceOf(files) {
  const items = new Set();
  for (const file of files) {
    const item = surfaceItem(file);
    if (item !== null) items.add(item);
  }
  return items;
}

/** Coverage of `expected` (the installer's items) by `actual` (ours). */
export function coverage(expected, actual) {
  const missing = [...expected].filter((item) => !actual.has(item)).sort();
  const covered = expected.size - missing.length;
  return { covered, total: expected.size, share: expected.size === 0 ? 1 : covered / expected.size, missing };
}

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${(result.stderr ?? '').slice(-3000)}`);
  return result;
}

/** Runs the upstream installer for one runtime and scope; returns the install base (home or project). */
export function install(runtime, scope, into) {
  const home = path.join(into, runtime, scope, 'home');
  const project = path.join(into, runtime, scope, 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  run(process.execPath, [path.join(UPSTREAM, 'bin/install.js'), `--${runtime}`, `--${scope}`], { cwd: project, env: { ...process.env, HOME: home, USERPROFILE: home, CI: '1' } });
  return scope === 'global' ? home : project;
}

/** Compiles the upstream corpus for every target into `out`. */
export function build(out) {
  run(process.execPath, [path.join(root, 'compiler/bin/gsd-build.mjs'), '--all', '--source', UPSTREAM, '--out', out], { cwd: root });
}

/** Coverage per runtime and scope: [{ runtime, target, scope, covered, total, share, missing }]. */
export function measure({ built, installed } = {}) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'gsd-coverage-'));
  try {
    const out = built ?? path.join(scratch, 'built');
    if (!built) build(out);
    const rows = [];
    for (const [runtime, target] of Object.entries(RUNTIMES)) {
      for (const scope of SCOPES) {
        const base = installed ? path.join(installed, runtime, scope, scope === 'global' ? 'home' : 'proj') : install(runtime, scope, path.join(scratch, 'installed'));
        const installedFiles = listFiles(base).filter((file) => surfaceItem(file) !== null);
        const builtFiles = listFiles(path.join(out, target, scope));
        const ours = new Set(builtFiles);
        // For information: how many of the installer's surface files sit at the very same path in our bundle.
        const samePath = installedFiles.filter((file) => ours.has(file)).length;
        rows.push({ runtime, target, scope, ...coverage(surfaceOf(installedFiles), surfaceOf(builtFiles)), files: installedFiles.length, samePath });
      }
    }
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function main() {
  const { values } = parseArgs({ options: { built: { type: 'string' }, installed: { type: 'string' }, json: { type: 'boolean' } } });
  const rows = measure({ built: values.built, installed: values.installed });
  if (values.json) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  console.log(`upstream command+agent surface coverage, items shipped / items the installer writes (goal ${(THRESHOLD * 100).toFixed(0)}% per runtime and scope)`);
  for (const row of rows) {
    const label = `${row.runtime} -> ${row.target}/${row.scope}`;
    const paths = `(same path: ${row.samePath}/${row.files} files)`;
    console.log(`${label.padEnd(34)} ${String(row.covered).padStart(4)}/${String(row.total).padEnd(4)} ${(row.share * 100).toFixed(1).padStart(5)}% ${paths.padEnd(30)}${row.missing.length ? ` missing: ${row.missing.join(', ')}` : ''}`);
  }
  if (rows.some((row) => row.share < THRESHOLD)) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) main();
