// Properties of load and emit on the project's own corpus: lossless IR,
// markers stripped only where they are, CRLF/BOM-insensitive bundles, and
// each target's rewrites complete.
import { readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { Ajv } from 'ajv';
import { allBundles, compile, emitBundles, REPO_ROOT, type Compiled } from '../pipeline.ts';
import { composeText } from '../compose/compose-text.ts';
import { buildIr, type NodeMemo } from '../load/build-ir.ts';
import { loadMarkdown } from '../load/markdown-parsers.ts';
import { readSourceTree } from '../load/read-source-tree.ts';
import { nodeDigest } from '../ir/node-digest.ts';
import { deserialize, serialize } from 'node:v8';
import { DEFAULT_LAYOUT, loadLayout } from '../load/layout.ts';
import { FROZEN_WHEN, whenVocabulary } from '../pipeline.ts';
import { WHEN_PREDICATES } from '../../source/runtime/init/sections.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { isBundleMetadata } from '../emit/bundle-manifest.ts';
import { suite, assert } from './harness.ts';
import { ownCorpusPath } from '../load/load-capabilities.ts';
import { LOOP_POINTS } from '../load/parse-loop-points.ts';
import { copySource } from './fixture-support.ts';
import { compareWithBaseline, loadBudgets } from '../check/check-budgets.ts';

const pipeline = suite('pipeline');
let compiled: Compiled;
let bundles: Map<string, VirtualTree>;

pipeline.before(async () => {
  compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  bundles = emitBundles(compiled, allBundles(compiled.targets)).bundles;
});

const text = (tree: VirtualTree, file: string) => {
  const entry = tree.get(file);
  assert.ok(entry, `missing ${file}`);
  return String(entry!.contents);
};

pipeline('should compile the corpus with no diagnostics', () => {
  assert.equal(compiled.diagnostics, []);
  assert.equal(compiled.targetDiagnostics, []);
  for (const kind of ['command', 'workflow', 'step', 'agent', 'reference', 'template']) {
    assert.ok(compiled.ir.nodes.some((node) => node.kind === kind), kind);
  }
});

pipeline('should produce an IR valid against schemas/ir.schema.json', () => {
  const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas/ir.schema.json'), 'utf8')));
  const valid = validate(JSON.parse(JSON.stringify(compiled.ir)));
  assert.ok(valid, JSON.stringify(validate.errors?.slice(0, 3)));
});

/** Files composition wrote or changed (capability stubs and step files): their text is not the source's. */
function composedPaths(): Set<string> {
  const entries = Object.values(compiled.ir.composition ?? {}).flat();
  return new Set([...entries.flatMap((entry) => (entry.step ? [entry.step] : [])), ...entries.map((entry) => `gsd-core/workflows/${entry.workflow}.md`)]);
}

/** A capability's own commands, agents and templates: corpus path → the file in its folder (the source they are read from). */
function placedPaths(): Map<string, string> {
  return new Map(
    (compiled.ir.capabilities ?? []).flatMap((capability) =>
      (['commands', 'agents', 'templates'] as const).flatMap((family) => capability.own[family].map((file) => [ownCorpusPath(family, file), `${capability.source}/${file}`] as const)),
    ),
  );
}

pipeline('should keep every source byte in the IR', () => {
  const composed = composedPaths();
  const placed = placedPaths();
  assert.ok(placed.has('agents/gsd-pattern-mapper.md'), 'a first-party capability brings an agent');
  for (const node of compiled.ir.nodes.filter((n) => !composed.has(n.path))) {
    const source = readFileSync(path.join(REPO_ROOT, 'source', placed.get(node.path) ?? node.path), 'utf8');
    assert.ok((node.bom ? '\uFEFF' : '') + node.text === source, node.path);
  }
});

pipeline('should keep CRLF, a BOM and a missing final newline in the IR exactly', () => {
  const original = '\uFEFF# Title\r\n\r\nLine with /gsd-nothing-here\r\nno newline at end';
  const { ir } = buildIr([{ path: 'gsd-core/references/odd.md', bytes: Buffer.from(original, 'utf8') }], FROZEN_WHEN, loadLayout(DEFAULT_LAYOUT));
  const node = ir.nodes[0]!;
  assert.is(node.bom, true);
  assert.is('\uFEFF' + node.text, original);
  assert.is(node.bytes, Buffer.byteLength(original.slice(1).replace(/\r\n/g, '\n')));
});

pipeline('should link the nodes a resident build reads back from the memo as it links nodes built anew', async () => {
  const layout = loadLayout(DEFAULT_LAYOUT);
  const all = await readSourceTree(path.join(REPO_ROOT, 'source'));
  // Without a step file (its workflow loses a child) and a reference (the edges naming it resolve to nothing).
  const step = 'gsd-core/workflows/new-milestone/steps/reset-phase-numbers.md';
  const reference = 'gsd-core/references/ui-brand.md';
  assert.ok(all.some((file) => file.path === step) && all.some((file) => file.path === reference));
  const fewer = all.filter((file) => file.path !== step && file.path !== reference);
  const irJson = (files: typeof all, memo?: NodeMemo) => JSON.stringify(buildIr(files, FROZEN_WHEN, layout, memo ? { memo } : {}).ir);
  // Each memo's `previous` is the last one's `next`: the same bytes, whose entries are read back as the last build left them.
  let memo: NodeMemo = { salt: 'resident', previous: new Map(), next: new Map() };
  for (const [what, files] of [['all', all], ['fewer', fewer], ['all again', all], ['all once more', all]] as const) {
    assert.is(irJson(files, memo), irJson(files), what);
    memo = { salt: 'resident', previous: memo.next, next: new Map() };
  }
});

pipeline('should build again a node whose memo entry is of another shape (no digest), not take it', async () => {
  const layout = loadLayout(DEFAULT_LAYOUT);
  const files = (await readSourceTree(path.join(REPO_ROOT, 'source'))).filter((file) => file.path.startsWith('gsd-core/references/'));
  const first: NodeMemo = { salt: 'shape', previous: new Map(), next: new Map() };
  buildIr(files, FROZEN_WHEN, layout, { memo: first });
  // Each entry as an older compiler stored it: the node and its findings, no digest.
  const older = new Map([...first.next].map(([key, bytes]) => {
    const { node, diagnostics } = deserialize(bytes) as { node: unknown; diagnostics: unknown };
    return [key, serialize({ node, diagnostics })];
  }));
  const memo: NodeMemo = { salt: 'shape', previous: older, next: new Map() };
  const { ir } = buildIr(files, FROZEN_WHEN, layout, { memo });
  assert.ok(ir.nodes.length > 10);
  for (const node of ir.nodes) assert.match(nodeDigest(node), /^[0-9a-f]{64}$/, node.path);
  for (const [key, bytes] of memo.next) assert.ok(bytes !== older.get(key), `${key}: stored anew`);
  assert.is(JSON.stringify(ir), JSON.stringify(buildIr(files, FROZEN_WHEN, layout).ir));
});

pipeline("should take the first pass's nodes into a wider vocabulary's pass only where they parse the same", async () => {
  const layout = loadLayout(DEFAULT_LAYOUT);
  const all = await readSourceTree(path.join(REPO_ROOT, 'source'));
  const wide = whenVocabulary(all, layout);
  assert.ok(wide.atoms.has('flag:--wave'));
  // Without one atom some workflows' markers use: their nodes carry a finding the wider vocabulary would not.
  const narrow = { ...wide, atoms: new Set([...wide.atoms].filter((atom) => atom !== 'flag:--wave')) };
  const json = (result: ReturnType<typeof buildIr>) => JSON.stringify({ ir: result.ir, diagnostics: result.diagnostics });
  const first = buildIr(all, narrow, layout);
  const fresh = json(buildIr(all, wide, layout));
  const widened = buildIr(all, wide, layout, { earlier: first.parsed });
  assert.is(json(widened), fresh);
  const firstNodes = new Set(first.ir.nodes);
  const taken = widened.ir.nodes.filter((node) => firstNodes.has(node));
  const flagged = new Set(first.diagnostics.filter((found) => found.code === 'marker-when-unevaluable' || found.code === 'marker-unknown-when').map((found) => found.file));
  const wave = widened.ir.nodes.filter((node) => flagged.has(node.path));
  assert.ok(wave.length > 0 && wave.every((node) => !firstNodes.has(node)), 'a node with a finding of the narrow vocabulary is parsed again');
  assert.is(taken.length, widened.ir.nodes.length - wave.length);
  // Narrower than the earlier pass, with an outline the earlier lacks, or under another layout: nothing is taken.
  await loadMarkdown();
  const other = loadLayout(DEFAULT_LAYOUT);
  for (const [what, vocabulary, outline, runLayout] of [['narrower', narrow, false, layout], ['outline', wide, true, layout], ['another layout', wide, false, other]] as const) {
    const earlier = buildIr(all, wide, layout).parsed;
    const result = buildIr(all, vocabulary, runLayout, { earlier, outline });
    const earlierNodes = new Set([...earlier.files.values()].map((file) => file.entry.node));
    assert.ok(result.ir.nodes.every((node) => !earlierNodes.has(node)), `${what}: every node built anew`);
  }
});

pipeline('should emit a document without markers byte-identical before runtime rewrites', () => {
  const target = compiled.targets.find((t) => t.definition.id === 'claude')!;
  const context = { target: target.definition, scope: target.definition.scopes.global!, version: compiled.version };
  const unmarked = compiled.ir.nodes.filter((node) => node.markerLines.length === 0 && node.onlyBlocks.length === 0 && node.path.startsWith('gsd-core/'));
  assert.ok(unmarked.length > 10);
  for (const node of unmarked) assert.is(composeText(node, context, 0), node.text, node.path);
});

pipeline('should strip every marker line and nothing else from marked workflows', () => {
  const tree = bundles.get('claude/global')!;
  for (const node of compiled.ir.nodes.filter((n) => n.markerLines.length > 0)) {
    const emitted = text(tree, `.claude/${node.path}`);
    const expected = node.text
      .split('\n')
      .filter((_, index) => !node.markerLines.includes(index + 1))
      .join('\n');
    assert.is(emitted, expected, node.path);
    assert.not.match(emitted, /gsd:section/);
  }
});

pipeline('should take the when= atoms from the runtime predicate table or the frozen vocabulary, as the layout says', () => {
  const table = { path: 'runtime/init/sections.ts', bytes: readFileSync(path.join(REPO_ROOT, 'source/runtime/init/sections.ts')) };
  const ours = whenVocabulary([table], loadLayout('gsd-build'));
  assert.is(ours.table, 'runtime/init/sections.ts');
  assert.equal([...ours.atoms].sort(), Object.keys(WHEN_PREDICATES).sort(), 'exactly the runtime\'s own list');
  assert.is(whenVocabulary([table], loadLayout('gsd-core')), FROZEN_WHEN, 'the upstream layout keeps the frozen vocabulary');
  assert.is(whenVocabulary([], loadLayout('gsd-build')), FROZEN_WHEN, 'a tree without a runtime falls back to it');
});

pipeline('should list the composed loop points in the core loop\'s order, each entry inline or in its step file', () => {
  const composition = compiled.ir.composition ?? {};
  const points = Object.keys(composition);
  assert.ok(points.length >= 4, points.join(' '));
  assert.equal(points, LOOP_POINTS.map((spec) => spec.point).filter((point) => points.includes(point)));
  for (const entry of Object.values(composition).flat()) {
    assert.is(entry.placement === 'step', entry.step !== undefined, `${entry.section}: a step file exactly when moved`);
    if (entry.placement === 'inline') assert.equal([entry.hostBytes, entry.stepBytes], [entry.inlineBytes, 0], entry.section);
  }
});

pipeline('should ship the section manifest with every marked workflow', () => {
  const manifest = JSON.parse(text(bundles.get('codex/local')!, '.codex/gsd-core/workflows/section-manifest.json'));
  const marked = compiled.ir.nodes.filter((node) => node.kind === 'workflow' && node.sections.some((s) => s.explicit));
  assert.equal(Object.keys(manifest.workflows).sort(), marked.map((node) => node.name).sort());
  const inline = new Set(Object.values(compiled.ir.composition ?? {}).flat().filter((entry) => entry.placement === 'inline').map((entry) => `${entry.workflow}/${entry.section}`));
  assert.ok(inline.size > 0, 'first-party capabilities compose inline');
  for (const [workflow, entries] of Object.entries(manifest.workflows as Record<string, { id: string; when: string; read?: string; inline?: true }[]>)) {
    for (const entry of entries) {
      // config:<key> atoms come from composed capabilities; the runtime evaluates them on the key.
      assert.ok(Object.prototype.hasOwnProperty.call(WHEN_PREDICATES, entry.when) || entry.when.startsWith('config:'), `${entry.when}: the runtime's section selection evaluates it`);
      // A contribution composed inline reads nothing; every other section reads its step file.
      assert.is(entry.inline === true, inline.has(`${workflow}/${entry.id}`), `${workflow}/${entry.id}`);
      if (entry.inline) continue;
      assert.ok(bundles.get('codex/local')!.has(`.codex/${entry.read}`), entry.read);
    }
  }
});

pipeline('should give the same bundles for CRLF and BOM sources', async () => {
  const copy = copySource();
  const generatedSteps = new Set(Object.values(compiled.ir.composition ?? {}).flat().flatMap((entry) => (entry.step ? [entry.step] : [])));
  // A capability's own files stay as they are: converting them would change its folder's digest, which manifests record.
  const placed = placedPaths();
  for (const node of compiled.ir.nodes.filter((n) => n.path.endsWith('.md') && !generatedSteps.has(n.path) && !placed.has(n.path))) {
    const file = path.join(copy, node.path);
    writeFileSync(file, '\uFEFF' + readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
  }
  const lf = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  const crlf = await compile({ sourceDir: copy });
  assert.equal(crlf.diagnostics, []);
  const lfBundles = emitBundles(lf, allBundles(lf.targets)).bundles;
  const crlfBundles = emitBundles(crlf, allBundles(crlf.targets)).bundles;
  const differing: string[] = [];
  for (const [key, tree] of lfBundles) {
    const other = crlfBundles.get(key)!;
    for (const file of new Set([...tree.keys(), ...other.keys()])) {
      if (String(tree.get(file)?.contents) !== String(other.get(file)?.contents)) differing.push(`${key}/${file}`);
    }
  }
  assert.equal(differing, []);
});

pipeline('should render commands in each runtime syntax and leave no Claude root in Codex bundles', () => {
  for (const key of ['codex/global', 'codex/local']) {
    for (const [file, entry] of bundles.get(key)!) {
      if (entry.generated) continue;
      const contents = String(entry.contents);
      assert.not.match(contents, /(?<![\w.\/])\/gsd-(?!core\/)[a-z]/, `${key}/${file} keeps a /gsd- mention`);
      assert.not.match(contents, /\$ARGUMENTS/, `${key}/${file}`);
      assert.not.match(contents, /\.claude\b/, `${key}/${file}`);
    }
  }
  const skill = text(bundles.get('codex/global')!, '.agents/skills/gsd-plan-phase/SKILL.md');
  assert.match(skill, /^---\nname: "gsd-plan-phase"\ndescription: ".+"\nmetadata:\n  short-description: ".+"\n---\n<codex_skill_adapter>/);
  assert.match(skill, /\$gsd-execute-phase/);
  assert.match(skill, /@~\/\.codex\/gsd-core\/workflows\/plan-phase\.md/);
  const claude = text(bundles.get('claude/global')!, '.claude/skills/gsd-plan-phase/SKILL.md');
  assert.match(claude, /^---\nname: gsd-plan-phase\ndescription: ".+"\nargument-hint: ".+"\neffort: high\nallowed-tools:\n  - Read\n/);
  assert.match(claude, /@~\/\.claude\/gsd-core\/workflows\/plan-phase\.md/);
});

pipeline('should address global bundles home-relative and local bundles project-relative', () => {
  const local = text(bundles.get('claude/local')!, '.claude/commands/gsd-plan-phase.md');
  assert.match(local, /^@\.claude\/gsd-core\/workflows\/plan-phase\.md$/m);
  for (const key of ['claude/local', 'codex/local']) {
    for (const [file, entry] of bundles.get(key)!) {
      if (entry.generated) continue;
      assert.not.match(String(entry.contents), /(?:~|\$HOME)\/\.(?:claude|codex)/, `${key}/${file}`);
    }
  }
  assert.match(text(bundles.get('codex/global')!, '.codex/gsd-core/workflows/plan-phase.md'), /"\$HOME\/\.codex\/gsd-core\/bin\/gsd-tools\.cjs"/);
});

pipeline('should never write an absolute path of the build machine', () => {
  const forbidden = [REPO_ROOT, os.homedir(), os.tmpdir()].filter((p) => p.length > 1);
  for (const [key, tree] of bundles) {
    for (const [file, entry] of tree) {
      const contents = String(entry.contents);
      for (const absolute of forbidden) assert.not.ok(contents.includes(absolute), `${key}/${file} contains ${absolute}`);
    }
  }
});

pipeline('should write Codex agents as TOML that parses back to the agent', () => {
  const tree = bundles.get('codex/global')!;
  const agents = compiled.ir.nodes.filter((node) => node.kind === 'agent');
  for (const agent of agents) {
    const toml = parseToml(text(tree, `.codex/agents/${agent.name}.toml`)) as Record<string, string>;
    assert.is(toml['name'], agent.name);
    assert.ok(toml['developer_instructions']!.length > 200);
    const tools = String(agent.frontmatter!.data!['tools']);
    assert.is(toml['sandbox_mode'], /\b(Write|Edit)\b/.test(tools) ? 'workspace-write' : 'read-only', agent.name);
    assert.not.ok('model' in toml, 'no machine-dependent model line');
  }
  assert.equal(JSON.parse(JSON.stringify(parseToml(text(tree, '.codex/config.toml')))), { agents: { max_depth: 1 } });
});

pipeline('should put every file of a bundle under its root or the runtime skills folder', () => {
  for (const key of ['claude/global', 'claude/local', 'codex/global', 'codex/local']) {
    const tree = bundles.get(key)!;
    const root = key.startsWith('claude') ? '.claude/' : '.codex/';
    for (const file of tree.keys()) assert.ok(file.startsWith(root) || file.startsWith('.agents/skills/') || isBundleMetadata(file), `${key}/${file}`);
  }
});

pipeline.run();

const only = suite('gsd:only');

only('should keep a gsd:only passage for the named runtimes only, markers stripped', async () => {
  const source = copySource();
  const reference = path.join(source, 'gsd-core/references/questioning.md');
  writeFileSync(reference, `${readFileSync(reference, 'utf8')}\n<!-- gsd:only runtimes="codex" -->\nCodex-only note: ask with request_user_input.\n<!-- /gsd:only -->\nShared closing line.\n`);
  const result = await compile({ sourceDir: source });
  assert.equal(result.diagnostics, []);
  const built = emitBundles(result, allBundles(result.targets)).bundles;
  const codexText = String(built.get('codex/global')!.get('.codex/gsd-core/references/questioning.md')!.contents);
  const claudeText = String(built.get('claude/global')!.get('.claude/gsd-core/references/questioning.md')!.contents);
  assert.ok(codexText.endsWith('\nCodex-only note: ask with request_user_input.\nShared closing line.\n'));
  assert.ok(claudeText.endsWith('\n\nShared closing line.\n'));
  assert.not.match(codexText + claudeText, /gsd:only/);
});

only.run();

const ratchet = suite('budget ratchet');

ratchet('should accept lowered ceilings and report every loosening against a baseline', () => {
  const text = JSON.stringify(
    {
      tiers: { workflow: { DEFAULT: 30000, LARGE: 50000 } },
      closure: { command: 40000 },
      files: { 'gsd-core/workflows/a.md': { ceiling: 9000 }, 'gsd-core/workflows/b.md': { tier: 'LARGE' } },
    },
    null,
    2,
  );
  const { loaded } = loadBudgets('budgets.json', text);
  const tighter = { tiers: { workflow: { DEFAULT: 38000, LARGE: 54000 } }, closure: { command: 40000 }, files: { 'gsd-core/workflows/a.md': { ceiling: 9500 }, 'gsd-core/workflows/b.md': { tier: 'LARGE' } } };
  assert.equal(compareWithBaseline(tighter, loaded!), []);
  const looser = { tiers: { workflow: { DEFAULT: 25000, LARGE: 50000 } }, closure: { command: 30000 }, files: { 'gsd-core/workflows/a.md': { ceiling: 8000 }, 'gsd-core/workflows/c.md': { ceiling: 100 } } };
  const messages = compareWithBaseline(looser, loaded!).map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`);
  assert.equal(messages, [
    '4:18 budget-loosened expected the workflow DEFAULT cap at or below the baseline 25000, found 30000',
    '9:16 budget-loosened expected the command closure cap at or below the baseline 30000, found 40000',
    '13:18 budget-loosened expected the ceiling of gsd-core/workflows/a.md at or below the baseline 8000, found 9000',
    '16:15 budget-loosened expected the tier cap of gsd-core/workflows/b.md (DEFAULT → LARGE) at or below the baseline 25000, found 50000',
    '11:12 budget-loosened expected a ceiling for gsd-core/workflows/c.md at or below the baseline 100, found none',
  ]);
});

ratchet.run();
