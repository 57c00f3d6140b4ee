// Skill profiles on a four-file corpus (fixtures/profiles): what a profile
// ships is computed from the edges, list items and table rows naming a command
// it leaves out are dropped, profiles compose, and full is the IR itself.
import path from 'node:path';
import { compile, emitBundles, profileIr, type Compiled } from '../pipeline.ts';
import { droppableUnit } from '../compose/select-profile.ts';
import { splitLines } from '../load/scan-lines.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { suite, assert } from './harness.ts';
import { FIXTURES, runCli, temporaryDir } from './fixture-support.ts';
import fs from 'node:fs';
import { bytesOf } from '../emit/bundle-manifest.ts';
import { landingPolicies } from '../targets/landing-policy.ts';
import { bundleFromFiles } from '../../source/runtime/install/bundle.ts';
import { install, INSTALLED_FILE, type Options } from '../../source/runtime/install/install.ts';
import { nextRelease } from '../../source/runtime/test/install-fixtures.ts';
import { checkListing, listingCost } from '../report/listing-cost.ts';
import { formatDiagnostic } from '../diagnostics.ts';

const profiles = suite('profiles');
const SOURCE = path.join(FIXTURES, 'profiles', 'source');
const CLAUDE = [{ target: 'claude', scope: 'global' as const }];
let compiled: Compiled;

profiles.before(async () => {
  compiled = await compile({ sourceDir: SOURCE });
  assert.equal(compiled.diagnostics, []);
});

const bundle = (names: string[]): VirtualTree => {
  const { bundles, diagnostics } = emitBundles(compiled, CLAUDE, names);
  assert.equal(diagnostics, []);
  return bundles.get('claude/global')!;
};
const text = (tree: VirtualTree, file: string) => String(tree.get(file)?.contents);
const skills = (tree: VirtualTree) => [...tree.keys()].filter((file) => file.endsWith('/SKILL.md')).sort();

profiles('should ship a profile\'s commands and exactly the files their edges reach', () => {
  const ids = profileIr(compiled, ['core']).ir.nodes.map((node) => node.id).sort();
  assert.equal(ids, ['command:start', 'reference:rules', 'workflow:start']);
  const tree = bundle(['core']);
  assert.equal(skills(tree), ['.claude/skills/gsd-start/SKILL.md']);
  assert.ok(tree.has('.claude/gsd-core/references/rules.md'));
  assert.not.ok(tree.has('.claude/gsd-core/references/review-notes.md'), 'read only by review, which core leaves out');
});

profiles('should ship a compact variant exactly where its canonical node goes', () => {
  const variantOf = (id: string) => {
    const node = compiled.ir.nodes.find((candidate) => candidate.id === id)!;
    return { ...node, id: `${id}.compact`, variant: 'compact', path: node.path.replace(/\.md$/, '.compact.md') };
  };
  const withVariants = { ...compiled, ir: { ...compiled.ir, nodes: [...compiled.ir.nodes, variantOf('workflow:start'), variantOf('reference:review-notes')] } };
  const ids = profileIr(withVariants, ['core']).ir.nodes.map((node) => node.id).sort();
  assert.equal(ids, ['command:start', 'reference:rules', 'workflow:start', 'workflow:start.compact'], 'review-notes is not shipped by core, nor is its variant');
});

profiles('should drop the whole list item and the table row naming a command the profile leaves out', () => {
  const start = text(bundle(['core']), '.claude/skills/gsd-start/SKILL.md');
  assert.not.match(start, /gsd-review|A second line/);
  assert.match(start, /Follow the workflow\.\n\n\n\| Next \| Command \|\n\|---\|---\|\n$/);
  assert.match(text(bundle(['full']), '.claude/skills/gsd-start/SKILL.md'), /`\/gsd-review` checks it\.\n  A second line/);
});

profiles('should compose profiles as the union of what each ships', () => {
  assert.equal(skills(bundle(['core', 'shipping'])), ['.claude/skills/gsd-ship/SKILL.md', '.claude/skills/gsd-start/SKILL.md']);
  assert.match(text(bundle(['core', 'shipping']), 'gsd-file-manifest.json'), /"profile": "core,shipping"/);
});

profiles('should record the profile in the manifest, and leave full bundles as they were', () => {
  assert.match(text(bundle(['core']), 'gsd-file-manifest.json'), /"profile": "core"/);
  assert.not.match(text(bundle(['full']), 'gsd-file-manifest.json'), /"profile"/);
  assert.is(profileIr(compiled, ['full']).ir, compiled.ir, 'full is the IR itself, so its bundles keep their bytes');
  assert.is(profileIr(compiled, ['core', 'full']).label, 'full');
});

profiles('should find list items by indentation and refuse running prose', () => {
  const lines = splitLines('Prose with\na mention.\n\n- item\n  more\n  - child\n- next\n| a | b |\n');
  assert.equal(droppableUnit(lines, 2), null);
  assert.equal(droppableUnit(lines, 5), [4, 5, 6]);
  assert.equal(droppableUnit(lines, 6), [6]);
  assert.equal(droppableUnit(lines, 8), [8]);
});

profiles('should refuse an unknown profile and an add-on alone on the command line', () => {
  const out = temporaryDir('profiles');
  const unknown = runCli(['--target', 'claude', '--scope', 'global', '--profile', 'cor', '--source', SOURCE, '--out', out]);
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, /expected --profile with one or more of core, shipping, full \(comma-separated\), found "cor"/);
  const addon = runCli(['--target', 'claude', '--scope', 'global', '--profile', 'shipping', '--source', SOURCE, '--out', out]);
  assert.is(addon.status, 2);
  assert.match(addon.stderr, /expected a standalone profile beside the add-on shipping/);
});

const filesOf = (tree: VirtualTree) => new Map([...tree].map(([file, entry]) => [file, bytesOf(entry)]));
const installed = (home: string) => JSON.parse(fs.readFileSync(path.join(home, '.claude', INSTALLED_FILE), 'utf8')) as { profile: string; files: { dest: string }[] };
const skillsIn = (home: string) => fs.readdirSync(path.join(home, '.claude', 'skills')).sort();

profiles('should keep the installed profile on update, refuse another unless chosen, and switch by exactly the difference', () => {
  const home = fs.realpathSync(temporaryDir('profiles-home'));
  const options = (extra: Partial<Options> = {}): Options => ({ home, cwd: home, env: {}, now: new Date('2026-01-02T03:04:05Z'), policies: landingPolicies(compiled.targets), ...extra });
  const core = filesOf(bundle(['core']));
  const full = filesOf(bundle(['full']));
  assert.is(install(bundleFromFiles(core, 'core'), options()).profile, 'core');
  assert.is(installed(home).profile, 'core');
  assert.equal(skillsIn(home), ['gsd-start']);

  // A newer core release updates in place and keeps core.
  const update = install(bundleFromFiles(nextRelease(core, '.claude/gsd-core/VERSION'), 'core 9.9.9'), options());
  assert.is(update.action, 'update');
  assert.is(update.previousProfile, undefined);
  assert.is(installed(home).profile, 'core');

  // A full bundle over core is refused, nothing changed, unless the user chooses full.
  const before = fs.readFileSync(path.join(home, '.claude', INSTALLED_FILE), 'utf8');
  assert.throws(() => install(bundleFromFiles(full, 'full'), options()), /the core profile is installed and this bundle ships full; install gsd-claude-global-core-\S+\.zip to update and keep it, or pass --profile full to switch/);
  assert.is(fs.readFileSync(path.join(home, '.claude', INSTALLED_FILE), 'utf8'), before);
  assert.throws(() => install(bundleFromFiles(full, 'full'), options({ profile: 'core' })), /expected the core profile's bundle for --profile core/);

  const toFull = install(bundleFromFiles(full, 'full'), options({ profile: 'full' }));
  assert.is(toFull.previousProfile, 'core');
  assert.equal(skillsIn(home), ['gsd-review', 'gsd-ship', 'gsd-start']);
  assert.ok(fs.existsSync(path.join(home, '.claude/gsd-core/references/review-notes.md')));

  // Back to core: exactly what full had and core lacks goes, the rest stays.
  const fullFiles = new Set(installed(home).files.map((file) => file.dest));
  const toCore = install(bundleFromFiles(core, 'core'), options({ profile: 'core' }));
  const coreFiles = new Set(installed(home).files.map((file) => file.dest));
  const gone = [...fullFiles].filter((file) => !coreFiles.has(file)).map((file) => path.relative(home, file)).sort();
  assert.equal(toCore.files.removed.map((file) => file.replace(/^~\//, '')).sort(), gone);
  assert.equal(gone, ['.claude/gsd-core/references/review-notes.md', '.claude/skills/gsd-review/SKILL.md', '.claude/skills/gsd-ship/SKILL.md']);
  for (const file of gone) assert.not.ok(fs.existsSync(path.join(home, file)), file);
  assert.equal(skillsIn(home), ['gsd-start']);
});

profiles('should measure the per-turn listing and fail past its budget and the runtime\'s own limit', () => {
  const tree = bundle(['core']);
  const scope = compiled.targets.find((target) => target.definition.id === 'claude')!.definition.scopes.global!;
  const cost = listingCost(tree, scope);
  assert.equal(cost, { shape: 'flat', listings: 1, bytes: 'gsd-startStart the work'.length, chars: 23, tokens: 6, largest: '.claude/skills/gsd-start/SKILL.md' });
  // Without a name the file's stem is listed; bytes are UTF-8, characters code points.
  const named = new Map(tree);
  named.set('.claude/skills/gsd-plan/SKILL.md', { contents: '---\ndescription: Plan \u2014 caf\u00e9 \u{1F600}\n---\n\nBody.\n' });
  named.set('.claude/skills/gsd-zed/SKILL.md', { contents: '---\nname: z\u00e9\n---\n' });
  const entries = ['gsd-startStart the work', 'SKILLPlan \u2014 caf\u00e9 \u{1F600}', 'z\u00e9'];
  const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry), 0);
  assert.equal(listingCost(named, scope), { shape: 'flat', listings: 3, bytes, chars: entries.reduce((sum, entry) => sum + [...entry].length, 0), tokens: Math.ceil(bytes / 4), largest: '.claude/skills/gsd-plan/SKILL.md' });
  const definition = { ...compiled.targets[0]!.definition, listing: { maxChars: 20, reason: 'a tiny list' } };
  assert.equal(checkListing('claude/global', cost, 'core', { ...definition, listing: { maxChars: 23, reason: 'at the limit' } }, { tiers: {}, listing: { core: { flat: 23 } } }), []);
  const found = checkListing('claude/global', cost, 'core', definition, { tiers: {}, listing: { core: { flat: 22 } } }).map((d) => formatDiagnostic(d));
  assert.equal(found, [
    "claude/global/.claude/skills/gsd-start/SKILL.md:1:1: error budget-exceeded expected the core profile's per-turn listing within 22 bytes (budgets.json listing.core.flat), found 23 bytes (~6 tokens) over 1 listings",
    'claude/global/.claude/skills/gsd-start/SKILL.md:1:1: error limit-exceeded expected the per-turn listing within 20 characters (a tiny list), found 23 over 1 listings',
  ]);
});

profiles("should hold each runtime's documented listing limit, cited in facts.json: at it passes, one character past it fails", () => {
  const limited = compiled.targets.filter((target) => target.definition.listing);
  assert.equal(limited.map((target) => target.definition.id).sort(), ['claude', 'codex']);
  for (const target of limited) {
    const { id, listing } = target.definition;
    const documented = target.facts?.listing;
    assert.ok(documented && Object.values(documented.source).some((value) => value.startsWith('https://')), `${id}: facts.json listing names the vendor page`);
    assert.is(listing!.maxChars, documented!.maxChars, `${id}: target.json checks the documented number`);
    const limit = listing!.maxChars!;
    const scope = target.definition.scopes.global!;
    const file = scope.commands[0]!.path.replaceAll('{root}', scope.root).replace('{name}', 'x');
    const listed = (chars: number): VirtualTree => new Map([[file, { contents: `---\nname: n\ndescription: ${'d'.repeat(chars - 1)}\n---\nBody.\n` }]]);
    const at = listingCost(listed(limit), scope);
    assert.is(at.chars, limit);
    assert.equal(checkListing(`${id}/global`, at, 'full', target.definition, null), []);
    const past = checkListing(`${id}/global`, listingCost(listed(limit + 1), scope), 'full', target.definition, null).map((d) => d.code);
    assert.equal(past, ['limit-exceeded'], `${id}: one character past ${limit}`);
  }
});

profiles.run();
