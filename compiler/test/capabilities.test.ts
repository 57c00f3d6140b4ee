// Capabilities composed into loop points: order, the composed text, where
// findings on composed text land, third-party rules, and the version ranges
// of engines.gsd. Each test builds a small corpus in a temporary folder.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatDiagnostic } from '../diagnostics.ts';
import { compile, emitBundles, errorsOf, REPO_ROOT } from '../pipeline.ts';
import { satisfies } from '../util/semver.ts';
import { suite, assert } from './harness.ts';
import { temporaryDir } from './fixture-support.ts';

const caps = suite('capabilities');

// Loop markers sit right after a text line and before a blank one, as in the corpus.
const SHIP = '# Ship\n<!-- gsd:loop point="ship:pre" roles="orchestrator" -->\n\nShip it.\n<!-- gsd:loop point="ship:post" roles="orchestrator" -->\n\nDone.\n';

function write(root: string, files: Record<string, string>): string {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

function capability(id: string, entry: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): string {
  const key = `${id}.enabled`;
  return `${JSON.stringify(
    {
      id,
      version: '1.2.0',
      engines: { gsd: '^0.1.0' },
      description: `The ${id} capability.`,
      config: { [key]: { type: 'boolean', default: false, description: 'On.' } },
      contributions: [{ kind: 'contribution', point: 'ship:pre', into: 'orchestrator', fragment: 'fragments/f.md', when: key, ...entry }],
      ...extra,
    },
    null,
    2,
  )}\n`;
}

function corpus(files: Record<string, string>): string {
  return write(path.join(temporaryDir('caps'), 'source'), { 'gsd-core/workflows/ship.md': SHIP, ...files });
}

async function findings(sourceDir: string, options: Parameters<typeof compile>[0]['capabilities'] = []): Promise<string[]> {
  const compiled = await compile({ sourceDir, capabilities: options });
  return compiled.diagnostics.map((d) => formatDiagnostic(d));
}

caps('should order contributions at a point producers first, then by capability id', async () => {
  const source = corpus({
    'capabilities/zeta/capability.json': capability('zeta', { produces: ['NOTES.md'] }),
    'capabilities/zeta/fragments/f.md': 'Write NOTES.md.\n',
    'capabilities/alpha/capability.json': capability('alpha', { consumes: ['NOTES.md'] }),
    'capabilities/alpha/fragments/f.md': 'Read NOTES.md.\n',
    'capabilities/beta/capability.json': capability('beta'),
    'capabilities/beta/fragments/f.md': 'Say hello.\n',
  });
  const compiled = await compile({ sourceDir: source });
  assert.equal(compiled.diagnostics.map((d) => formatDiagnostic(d)), []);
  assert.equal(compiled.ir.composition!['ship:pre']!.map((entry) => entry.capability), ['beta', 'zeta', 'alpha']);
  assert.equal(compiled.ir.composition!['ship:pre']!.map((entry) => entry.when), ['config:beta.enabled', 'config:zeta.enabled', 'config:alpha.enabled']);
  const { bundles } = emitBundles(compiled, [{ target: 'claude', scope: 'global' }]);
  const tree = bundles.get('claude/global')!;
  const host = String(tree.get('.claude/gsd-core/workflows/ship.md')!.contents);
  // Inline, each in its section (the marker lines go at emit): the selection rule in words, what to do, the fragment.
  const inline = (id: string, fragment: string) =>
    `<capability id="${id}" version="1.2.0" point="ship:pre">\nOnly when \`section_manifest\` is null or lists \`${id}-ship-pre\` as included, do what this block says; otherwise skip to its end.\nDo what follows yourself, at this point of the workflow. If this cannot be done (a tool or file is missing), say so and go on.\n\n${fragment}\n</capability>\n`;
  assert.is(host, `# Ship\n\n${inline('beta', 'Say hello.')}\n${inline('zeta', 'Write NOTES.md.')}\n${inline('alpha', 'Read NOTES.md.')}\nShip it.\n\nDone.\n`);
  assert.ok(![...tree.keys()].some((file) => file.includes('/ship/steps/')), 'no step files: everything fits inline');
  assert.equal(compiled.ir.composition!['ship:pre']!.map((entry) => entry.placement), ['inline', 'inline', 'inline']);
  const manifest = JSON.parse(String(tree.get('.claude/gsd-core/workflows/section-manifest.json')!.contents)) as { workflows: Record<string, { id: string; when: string; inline?: true }[]> };
  assert.equal(manifest.workflows['ship']!.map((entry) => `${entry.id} ${entry.when} ${entry.inline}`), ['beta-ship-pre config:beta.enabled true', 'zeta-ship-pre config:zeta.enabled true', 'alpha-ship-pre config:alpha.enabled true']);
  const list = JSON.parse(String(tree.get('.claude/gsd-core/capabilities.json')!.contents)) as { capabilities: { id: string; origin: string }[] };
  assert.equal(list.capabilities.map((entry) => `${entry.id} ${entry.origin}`), ['alpha first-party', 'beta first-party', 'zeta first-party']);
});

caps('should splice contributions inline while the host stays within its ceiling, move the next to a step file, and count composed text in the closure', async () => {
  const command = '---\nname: gsd:ship\ndescription: Ship the phase\nallowed-tools:\n  - Read\n---\n<execution_context>\n@~/.claude/gsd-core/workflows/ship.md\n</execution_context>\n';
  const long = `${'Check every note of the phase against the plan and say which ones still need work before the branch is made.\n'.repeat(8)}`;
  const files = {
    'commands/gsd/ship.md': command,
    'capabilities/alpha/capability.json': capability('alpha'),
    'capabilities/alpha/fragments/f.md': 'Say hello.\n',
    'capabilities/zeta/capability.json': capability('zeta'),
    'capabilities/zeta/fragments/f.md': long,
  };
  const bare = await compile({ sourceDir: corpus({ 'commands/gsd/ship.md': command }) });
  const open = await compile({ sourceDir: corpus(files) });
  const [alpha, zeta] = open.ir.composition!['ship:pre']!;
  assert.equal([alpha!.placement, zeta!.placement], ['inline', 'inline'], 'no ceiling: all inline');
  const closure = (compiled: typeof bare) => compiled.budgetRows.find((row) => row.path === 'commands/gsd/ship.md')!.closureBytes!;
  assert.is(closure(open) - closure(bare), alpha!.hostBytes + zeta!.hostBytes, 'the closure counts the inline text');

  // Room for alpha inline and a stub, not for zeta inline.
  const ceiling = Buffer.byteLength(SHIP) + alpha!.inlineBytes + 400;
  assert.ok(zeta!.inlineBytes > 400);
  const tight = await compile({ sourceDir: corpus({ ...files, 'budgets.json': JSON.stringify({ tiers: { workflow: { DEFAULT: ceiling } } }) }) });
  assert.equal(errorsOf(tight.diagnostics).map((d) => formatDiagnostic(d)), []);
  assert.equal(tight.diagnostics.map((d) => `${d.file} ${d.severity} ${d.code}`), ['capabilities/zeta/capability.json warning capability-moved']);
  const [inline, moved] = tight.ir.composition!['ship:pre']!;
  assert.equal([inline!.placement, moved!.placement, moved!.step], ['inline', 'step', 'gsd-core/workflows/ship/steps/zeta-ship-pre.md']);
  assert.ok(moved!.hostBytes < 400 && moved!.stepBytes > moved!.inlineBytes - 400, `${moved!.hostBytes} ${moved!.stepBytes}`);
  assert.is(closure(tight) - closure(bare), inline!.hostBytes + moved!.hostBytes, 'the closure counts the stub, not the lazily read step');
  const tree = emitBundles(tight, [{ target: 'claude', scope: 'global' }]).bundles.get('claude/global')!;
  const host = String(tree.get('.claude/gsd-core/workflows/ship.md')!.contents);
  assert.ok(host.includes('\nSay hello.\n</capability>\n') && !host.includes('Check every note'), 'alpha inline, zeta behind its stub');
  assert.ok(host.includes('`~/.claude/gsd-core/workflows/ship/steps/zeta-ship-pre.md`'));
  assert.ok(String(tree.get('.claude/gsd-core/workflows/ship/steps/zeta-ship-pre.md')!.contents).endsWith(long));
  const manifest = JSON.parse(String(tree.get('.claude/gsd-core/workflows/section-manifest.json')!.contents)) as { workflows: Record<string, Record<string, unknown>[]> };
  assert.equal(manifest.workflows['ship'], [
    { id: 'alpha-ship-pre', when: 'config:alpha.enabled', inline: true },
    { id: 'zeta-ship-pre', when: 'config:zeta.enabled', read: 'gsd-core/workflows/ship/steps/zeta-ship-pre.md' },
  ]);
});

caps('should compose byte-identically from CRLF sources and twice in a row', async () => {
  const files = { 'capabilities/beta/capability.json': capability('beta'), 'capabilities/beta/fragments/f.md': 'Say hello.\n' };
  const text = async (source: string) => {
    const compiled = await compile({ sourceDir: source });
    const tree = emitBundles(compiled, [{ target: 'codex', scope: 'local' }]).bundles.get('codex/local')!;
    return [...tree].filter(([file]) => file.includes('workflows/ship')).map(([file, entry]) => `${file}\n${String(entry.contents)}`).join('\n');
  };
  const plain = await text(corpus(files));
  assert.is(await text(corpus(files)), plain);
  const crlf = Object.fromEntries(Object.entries({ 'gsd-core/workflows/ship.md': SHIP, ...files }).map(([file, body]) => [file, body.replace(/\n/g, '\r\n')]));
  assert.is(await text(corpus(crlf)), plain);
});

caps('should put findings on composed text on the fragment and on the host line as written', async () => {
  const source = corpus({
    'gsd-core/workflows/ship.md': SHIP.replace('Done.', 'Done: see /gsd-nowhere.'),
    'capabilities/beta/capability.json': capability('beta'),
    'capabilities/beta/fragments/f.md': 'Say hello,\nthen run /gsd-missing-command.\n',
  });
  assert.equal(await findings(source), [
    'capabilities/beta/fragments/f.md:2:10: error ref-command-unknown expected the name of a command in commands/gsd/, found "missing-command"',
    'gsd-core/workflows/ship.md:7:11: error ref-command-unknown expected the name of a command in commands/gsd/, found "nowhere"',
  ]);
});

caps('should refuse a third-party capability that takes a first-party id, and one made for another gsd-build', async () => {
  const source = corpus({ 'capabilities/beta/capability.json': capability('beta'), 'capabilities/beta/fragments/f.md': 'Hello.\n' });
  const outside = write(temporaryDir('caps-third'), {
    'beta/capability.json': capability('beta'),
    'beta/fragments/f.md': 'Hello.\n',
    'later/capability.json': capability('later', {}, { engines: { gsd: '>=1.0.0 <2.0.0' } }),
    'later/fragments/f.md': 'Hello.\n',
  });
  assert.equal(
    await findings(source, [
      { dir: path.join(outside, 'beta'), display: 'vendor/beta', origin: 'third-party' },
      { dir: path.join(outside, 'later'), display: 'vendor/later', origin: 'third-party' },
    ]),
    [
      'vendor/beta/capability.json:1:1: error capability-clash expected a capability id not taken, found "beta" already defined by first-party capabilities/beta',
      'vendor/later/capability.json:5:12: error capability-engines expected engines.gsd to admit gsd-build 0.1.0, found ">=1.0.0 <2.0.0"',
    ],
  );
});

caps('should follow a symlink that stays inside the folder and refuse one that leads out', async () => {
  const source = corpus({ 'capabilities/beta/capability.json': capability('beta'), 'capabilities/beta/shared/text.md': 'Hello.\n', 'secret.md': 'Secret.\n' });
  mkdirSync(path.join(source, 'capabilities/beta/fragments'));
  symlinkSync('../shared/text.md', path.join(source, 'capabilities/beta/fragments/f.md'));
  const compiled = await compile({ sourceDir: source });
  assert.equal(errorsOf(compiled.diagnostics).map((d) => formatDiagnostic(d)), []);
  assert.ok(compiled.ir.nodes.some((node) => node.path === 'gsd-core/workflows/ship.md' && node.text.includes('\nHello.\n</capability>\n')));
  symlinkSync(path.join(source, 'secret.md'), path.join(source, 'capabilities/beta/fragments/leak.md'));
  assert.equal(await findings(source), ['capabilities/beta/fragments/leak.md:1:1: error capability-path expected a symlink that stays inside the capability folder, found one leading out of it']);
});

caps('should refuse a contribution into a role that does not act at its point', async () => {
  const source = corpus({ 'capabilities/beta/capability.json': capability('beta', { into: 'executor' }), 'capabilities/beta/fragments/f.md': 'Hello.\n' });
  assert.equal(await findings(source), ['capabilities/beta/capability.json:16:5: error loop-unknown-role expected a role that acts at ship:pre (orchestrator), found "executor"']);
});

const OWN_COMMAND = '---\nname: gsd:notes\ndescription: Show the notes the notes capability keeps\nallowed-tools:\n  - Read\n---\n<objective>\nShow NOTES.md.\n</objective>\n';
const OWN_AGENT = '---\nname: gsd-note-taker\ndescription: Keeps NOTES.md for the notes capability.\ntools: Read, Write\ncolor: green\n---\n\n<role>\nYou keep NOTES.md.\n</role>\n';

function ownCapability(extra: Record<string, unknown> = {}, files: Record<string, string> = {}): Record<string, string> {
  return {
    'notes/capability.json': capability('notes', {}, { commands: ['commands/gsd/notes.md'], agents: ['agents/gsd-note-taker.md'], templates: ['templates/notes.md'], hooks: [{ entry: 'hooks/check.cjs', event: 'PostToolUse', matcher: 'Write|Edit', timeout: 5, description: 'Checks NOTES.md after each write.' }], ...extra }),
    'notes/fragments/f.md': 'Keep notes.\n',
    'notes/commands/gsd/notes.md': OWN_COMMAND,
    'notes/agents/gsd-note-taker.md': OWN_AGENT,
    'notes/templates/notes.md': '# Notes\n',
    'notes/hooks/check.cjs': '#!/usr/bin/env node\nprocess.exit(0);\n',
    ...files,
  };
}

caps('should ship a capability\'s own commands, agents, templates and hooks where the corpus ships its own, and list them in the manifest', async () => {
  const source = corpus({});
  const vendor = write(temporaryDir('caps-own'), ownCapability());
  const compiled = await compile({ sourceDir: source, capabilities: [{ dir: path.join(vendor, 'notes'), display: 'vendor/notes', origin: 'third-party' }] });
  assert.equal(errorsOf(compiled.diagnostics).map((d) => formatDiagnostic(d)), []);
  const { bundles, diagnostics } = emitBundles(compiled, [{ target: 'claude', scope: 'global' }]);
  assert.equal(errorsOf(diagnostics).map((d) => formatDiagnostic(d)), []);
  const tree = bundles.get('claude/global')!;
  const has = (file: string) => tree.has(file);
  assert.ok(has('.claude/agents/gsd-note-taker.md'), 'the agent, as agents ship');
  assert.ok(has('.claude/gsd-core/templates/notes.md'), 'the template under gsd-core/templates');
  assert.ok([...tree.keys()].some((file) => /notes/.test(file) && /commands|skills/.test(file)), 'the command, as commands ship');
  const script = tree.get('.claude/hooks/notes-check.cjs')!;
  assert.ok(script && script.executable, 'the hook script, executable, named after its capability');
  assert.match(String(tree.get(".claude/settings.json")?.contents), /notes-check\.cjs/, [...tree.keys()].join(" "));
  const manifest = JSON.parse(String(tree.get('gsd-file-manifest.json')!.contents)) as { capabilities: { id: string; hooks: boolean; files: string[] }[] };
  const entry = manifest.capabilities.find((c) => c.id === 'notes')!;
  assert.is(entry.hooks, true);
  assert.ok(entry.files.includes('.claude/hooks/notes-check.cjs') && entry.files.includes('.claude/agents/gsd-note-taker.md') && entry.files.includes('.claude/gsd-core/templates/notes.md'), entry.files.join(' '));
  assert.ok(!entry.files.some((file) => file.includes('/steps/')), 'no step file: its contribution went inline');
  assert.ok(!entry.files.includes('.claude/gsd-core/workflows/ship.md'), 'not the host it was composed into');
});

caps('should hold a capability\'s own files to the corpus\'s checks and refuse names, paths and events it may not use', async () => {
  const source = corpus({ 'agents/gsd-note-taker.md': OWN_AGENT });
  const vendor = write(temporaryDir('caps-own-bad'), {
    ...ownCapability({ templates: ['notes.md'], hooks: [{ entry: 'hooks/check.cjs', event: 'FileSaved', description: 'x' }] }),
    'notes/commands/gsd/notes.md': OWN_COMMAND.replace('name: gsd:notes\n', ''),
  });
  const found = await findings(source, [{ dir: path.join(vendor, 'notes'), display: 'vendor/notes', origin: 'third-party' }]);
  assert.ok(found.some((line) => /^vendor\/notes\/capability\.json:\d+:\d+: error capability-path expected templates file "notes\.md" as templates\/<name>\.md$/.test(line)), found.join('\n'));
  assert.ok(found.some((line) => /^vendor\/notes\/capability\.json:\d+:\d+: error capability-hook expected an event of hooks\/hooks\.json's vocabulary \(.*\), found "FileSaved"$/.test(line)), found.join('\n'));
  // With the manifest fixed, the agent name clash and the command's schema finding land on the capability's own files.
  const fixed = write(temporaryDir('caps-own-clash'), { ...ownCapability(), 'notes/commands/gsd/notes.md': OWN_COMMAND.replace('name: gsd:notes\n', '') });
  const clash = await findings(source, [{ dir: path.join(fixed, 'notes'), display: 'vendor/notes', origin: 'third-party' }]);
  assert.ok(clash.includes('vendor/notes/agents/gsd-note-taker.md:1:1: error capability-clash expected a agent name the corpus and other capabilities leave free, found agents/gsd-note-taker.md taken'), clash.join('\n'));
  assert.ok(clash.some((line) => line.startsWith('vendor/notes/commands/gsd/notes.md:') && /frontmatter/.test(line)), clash.join('\n'));
});

caps('should hold a capability\'s own agent to the corpus\'s byte budgets, on its own file', async () => {
  const budgets = JSON.parse(readFileSync(path.join(REPO_ROOT, 'source', 'budgets.json'), 'utf8')) as { tiers: { agent: { DEFAULT: number } } };
  budgets.tiers.agent.DEFAULT = 100;
  const source = corpus({ 'budgets.json': `${JSON.stringify(budgets, null, 2)}\n` });
  const vendor = write(temporaryDir('caps-own-budget'), ownCapability());
  const found = await findings(source, [{ dir: path.join(vendor, 'notes'), display: 'vendor/notes', origin: 'third-party' }]);
  const budget = found.filter((line) => line.includes('gsd-note-taker'));
  assert.equal(budget.length, 1, found.join('\n'));
  assert.match(budget[0]!, /^vendor\/notes\/agents\/gsd-note-taker\.md:1:1: error budget-\S+ .*100/);
});

caps('should refuse a capability hook for a target without its event or its tools', async () => {
  const source = corpus({});
  const vendor = write(temporaryDir('caps-own-event'), ownCapability({ hooks: [{ entry: 'hooks/check.cjs', event: 'Notification', matcher: 'Write', description: 'Says hello.' }] }));
  const compiled = await compile({ sourceDir: source, capabilities: [{ dir: path.join(vendor, 'notes'), display: 'vendor/notes', origin: 'third-party' }] });
  assert.equal(errorsOf(compiled.diagnostics).map((d) => formatDiagnostic(d)), []);
  assert.equal(errorsOf(emitBundles(compiled, [{ target: 'claude', scope: 'global' }]).diagnostics), [], 'claude has Notification');
  const codex = errorsOf(emitBundles(compiled, [{ target: 'codex', scope: 'global' }]).diagnostics).map((d) => formatDiagnostic(d));
  assert.equal(codex.map((line) => line.replace(/:\d+:\d+:/, ':L:C:')), ['vendor/notes/capability.json:L:C: error capability-hook expected codex (global) to have event Notification for hook notes-check, found none']);
});

caps('should match engines.gsd ranges: comparators, ^, ~, and alternatives', () => {
  const cases: [string, string, boolean | null][] = [
    ['0.1.0', '>=0.1.0 <1.0.0', true],
    ['1.0.0', '>=0.1.0 <1.0.0', false],
    ['0.1.5', '^0.1.0', true],
    ['0.2.0', '^0.1.0', false],
    ['1.4.0', '^1.2.0', true],
    ['1.2.9', '~1.2.0', true],
    ['1.3.0', '~1.2.0', false],
    ['0.1.0-rc.1', '>=0.1.0', false],
    ['2.0.0', '<1.0.0 || >=2.0.0', true],
    ['0.1.0', '0.1.0', true],
    ['0.1.0', 'latest', null],
    ['0.1.0', '>=0.1', null],
    ['0.1.0', '>=0.1.0 ||', null],
  ];
  for (const [version, range, expected] of cases) assert.is(satisfies(version, range), expected, `${version} in "${range}"`);
});

caps.run();
