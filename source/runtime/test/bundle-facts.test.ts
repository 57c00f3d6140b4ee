// Each bundle's gsd-tools learns its runtime from gsd-core/bin/runtime.json,
// written at build time: the facts match the bundle they sit in, the CLI
// answers with them, and a missing or broken facts file makes the installer
// refuse rather than guess.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { serializeManifest } from '../../../compiler/emit/bundle-manifest.ts';
import { BUNDLE_FACTS_FILE, type BundleFacts } from '../core/bundle-facts.ts';
import { MANIFEST_FILE } from '../install/bundle.ts';
import { tmpDir } from './helpers.ts';
import { builtBundles, manifestOf, sha, snapshot, treeFiles, type Files } from './install-fixtures.ts';

const s = suite('bundle facts');
const text = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : '');

s('should give every bundle the facts of its own target, scope, root and prose', async () => {
  const { bundles, policies } = await builtBundles();
  const instructionFiles = new Set<string>();
  for (const [key, tree] of bundles) {
    const files = treeFiles(tree);
    const manifest = manifestOf(files);
    const facts = JSON.parse(text(files.get(`${manifest.root}/gsd-core/${BUNDLE_FACTS_FILE}`))) as BundleFacts;
    assert.is(`${facts.target}/${facts.scope}`, key);
    assert.is(facts.root, manifest.root, key);
    assert.equal(facts.landing, policies.find((p) => p.target === facts.target && p.scope === facts.scope), `${key}: landing policy`);
    // The invocation is the one the bundle's own workflows use.
    const workflows = [...files].filter(([file]) => file.startsWith(`${manifest.root}/gsd-core/workflows/`) && file.endsWith('.md'));
    assert.ok(workflows.some(([, bytes]) => text(bytes).includes(`${facts.invocation} `)), `${key}: no workflow calls ${facts.invocation}`);
    const code = text(files.get(`${manifest.root}/gsd-core/bin/gsd-tools.cjs`));
    assert.not.ok(code.includes(facts.root === '.claude' ? '.codex/' : '.claude/'), `${key}: gsd-tools.cjs names another runtime's root`);
    instructionFiles.add(facts.instructionFile);
  }
  // Each runtime's own name for the project instructions, as its prose renders CLAUDE.md.
  for (const name of ['CLAUDE.md', 'AGENTS.md', 'QWEN.md', 'CODEBUDDY.md', '.github/copilot-instructions.md']) assert.ok(instructionFiles.has(name), name);
});

function unpack(files: Files): string {
  const folder = tmpDir('gsd-facts-bundle-');
  for (const [file, bytes] of files) {
    const full = path.join(folder, ...file.split('/'));
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, bytes);
  }
  return folder;
}

function cli(folder: string, root: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const tools = path.join(folder, root, 'gsd-core', 'bin', 'gsd-tools.cjs');
  return spawnSync(process.execPath, [tools, ...args], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, GSD_NO_CODE_CACHE: '1', ...env }, encoding: 'utf8' });
}

function scratchProject(config: Record<string, unknown> = {}): string {
  const dir = tmpDir('gsd-facts-project-');
  fs.mkdirSync(path.join(dir, '.planning'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.planning', 'config.json'), `${JSON.stringify(config)}\n`);
  return dir;
}

s('should answer with its own runtime and instruction file, settings first', async () => {
  const { bundles } = await builtBundles();
  for (const [key, root, instructions] of [
    ['codex/global', '.codex', './AGENTS.md'],
    ['qwen/local', '.qwen', './QWEN.md'],
    ['claude/global', '.claude', './CLAUDE.md'],
  ] as const) {
    const folder = unpack(treeFiles(bundles.get(key)!));
    const target = key.split('/')[0];
    const plain = cli(folder, root, ['init', 'update'], scratchProject());
    assert.is(plain.status, 0, plain.stderr);
    const answer = JSON.parse(plain.stdout) as { runtime: string; instruction_file: string };
    assert.is(answer.runtime, target, key);
    assert.is(answer.instruction_file, instructions, key);
    const set = JSON.parse(cli(folder, root, ['init', 'update'], scratchProject({ claude_md_path: 'docs/AI.md' })).stdout) as { instruction_file: string };
    assert.is(set.instruction_file, 'docs/AI.md', `${key}: claude_md_path`);
  }
});

s('should refuse to install, never guess, when the facts are missing or not what gsd-build writes', async () => {
  const { bundles } = await builtBundles();
  const files = treeFiles(bundles.get('codex/global')!);
  const factsPath = `.codex/gsd-core/${BUNDLE_FACTS_FILE}`;
  const variants: [string, string | null, RegExp][] = [
    ['missing', null, /carries no landing policies/],
    ['not JSON', '{"target": "codex",', /carries no landing policies/],
    ['another scope', text(files.get(factsPath)).replace('"scope": "global"', '"scope": "local"'), /carries no landing policies/],
    ['no landing policy', JSON.stringify({ ...JSON.parse(text(files.get(factsPath))), landing: null }), /carries no landing policies/],
  ];
  for (const [name, contents, expect] of variants) {
    // The manifest is made to agree with the change, so the facts themselves are what is judged.
    const changed = new Map(files);
    const manifest = manifestOf(files);
    if (contents === null) {
      changed.delete(factsPath);
      manifest.files = manifest.files.filter((file) => file.path !== factsPath);
    } else {
      changed.set(factsPath, Buffer.from(contents));
      manifest.files = manifest.files.map((file) => (file.path === factsPath ? { ...file, sha256: sha(contents), bytes: Buffer.byteLength(contents) } : file));
    }
    changed.set(MANIFEST_FILE, Buffer.from(serializeManifest(manifest)));
    const folder = unpack(changed);
    const home = tmpDir('gsd-facts-home-');
    const before = snapshot(home);
    const result = cli(folder, '.codex', ['install', '--global'], home, { HOME: home });
    assert.is.not(result.status, 0, `${name}: installed`);
    assert.match(result.stdout + result.stderr, expect, name);
    assert.equal(snapshot(home), before, `${name}: something was written`);
    if (contents !== null && name === 'not JSON') {
      const init = cli(folder, '.codex', ['init', 'update'], scratchProject());
      assert.match(init.stderr, /runtime\.json: expected JSON/, `${name}: init names the broken file`);
    }
  }
});

s.run();
