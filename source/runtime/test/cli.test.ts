import fs from 'node:fs';
import path from 'node:path';
import AjvModule from 'ajv';
import { suite, assert } from '../../../compiler/test/harness.ts';
import { parseArgv, validateInvocation } from '../cli/parse.ts';
import { pick, render } from '../cli/output.ts';
import { leafPaths, TABLE } from '../cli/table.ts';
import { loadHandler, main } from '../main.ts';
import tableSchema from '../command-table.schema.json' with { type: 'json' };
import profiles from '../model-profiles.json' with { type: 'json' };
import profilesSchema from '../model-profiles.schema.json' with { type: 'json' };
import { project, run, tmpDir } from './helpers.ts';

type AjvCtor = new (o: object) => { compile(s: unknown): ((d: unknown) => boolean) & { errors?: unknown } };
const Ajv = ((AjvModule as unknown as { default?: AjvCtor }).default ?? AjvModule) as unknown as AjvCtor;

const s = suite('runtime cli');

s('should validate command-table.json and model-profiles.json against their schemas', () => {
  const v = new Ajv({ allErrors: true, strict: false }).compile(tableSchema);
  assert.ok(v(TABLE), JSON.stringify(v.errors));
  const p = new Ajv({ allErrors: true, strict: false }).compile(profilesSchema);
  assert.ok(p(profiles), JSON.stringify(p.errors));
});

s('should reject a table that breaks the schema', () => {
  const v = new Ajv({ allErrors: true, strict: false }).compile(tableSchema);
  const broken = structuredClone(TABLE) as unknown as { commands: Record<string, { flags?: unknown; subcommands?: unknown }> };
  broken.commands.slug!.flags = { '--Bad': { type: 'boolean' } };
  assert.not.ok(v(broken));
  const both = structuredClone(TABLE) as unknown as { commands: Record<string, { args?: unknown }> };
  both.commands.state!.args = [];
  assert.not.ok(v(both), 'a command with subcommands cannot also take args');
});

s('should have exactly one handler for every leaf command', async () => {
  for (const p of leafPaths()) {
    const h = await loadHandler(p);
    assert.type(h, 'function', p.join(' '));
  }
  // Every command module, read from the folder, so a new one cannot be left out.
  const mods = fs.readdirSync(new URL('../commands/', import.meta.url)).filter((n) => n.endsWith('.ts')).map((n) => n.slice(0, -3));
  assert.ok(mods.length >= 15);
  const leaves = new Set(leafPaths().map((p) => p.join(' ')));
  for (const m of mods) {
    const mod = (await import(`../commands/${m}.ts`)) as { handlers: Record<string, unknown> };
    for (const key of Object.keys(mod.handlers)) assert.ok(leaves.has(key), `handler "${key}" has no table entry`);
  }
});

s('should resolve query prefixes, dotted verbs and upstream aliases', () => {
  assert.equal(parseArgv(['query', 'state.update', 'Status', 'x']).path, ['state', 'update']);
  assert.equal(parseArgv(['init.plan-phase', '1']).path, ['init', 'plan-phase']);
  assert.equal(parseArgv(['find-phase', '2.1']).path, ['phase', 'find']);
  assert.equal(parseArgv(['generate-slug', 'Hello', 'World']).args.text, 'Hello World');
  assert.equal(parseArgv(['validate', 'health', '--repair']).path, ['health']);
  assert.equal(parseArgv(['list-todos']).path, ['todo', 'list']);
});

s('should take global flags anywhere and typed flags in both spellings', () => {
  const inv = parseArgv(['--raw', 'commit', 'fix:', 'a', 'thing', '--files', 'a.md', 'b.md', '--no-verify', '--pick', 'hash']);
  assert.is(inv.global.raw, true);
  assert.is(inv.global.pick, 'hash');
  assert.is(inv.args.message, 'fix: a thing');
  assert.equal(inv.flags['--files'], ['a.md', 'b.md']);
  assert.is(inv.flags['--no-verify'], true);
  assert.is(parseArgv(['init', 'execute-phase', '3', '--wave=2']).flags['--wave'], 2);
  assert.is(parseArgv(['config-get', 'x', '--default=--weird']).flags['--default'], '--weird');
});

s('should turn every malformed call into a usage error naming the command', () => {
  const bad: [string[], RegExp][] = [
    [[], /no command given/],
    [['nope'], /unknown command "nope"/],
    [['state'], /state: a subcommand is required/],
    [['state', 'bogus'], /unknown state subcommand "bogus"/],
    [['state', 'update', 'Status'], /state update: missing <value…>/],
    [['state', 'json', 'extra'], /unexpected argument "extra"/],
    [['roadmap', 'get-phase', 'one'], /phase number like 3/],
    [['init', 'execute-phase', '1', '--wave', 'x'], /--wave must be an integer/],
    [['timestamp', 'weekly'], /must be one of full, date, filename/],
    [['state', 'json', '--bogus'], /unknown flag --bogus/],
    [['frontmatter', 'validate', 'a.md'], /--schema is required/],
    [['commit', 'msg', '--files'], /--files needs at least one value/],
    [['slug', 'x', '--version'], /--version is not supported/],
    [['config-get', 'x', '--default'], /--default needs a value/],
    [['state', 'patch', '{"a":'], /invalid JSON/],
    [['health', '--repair', '--repair'], /--repair given twice/],
  ];
  for (const [argv, re] of bad) {
    const r = validateInvocation(argv);
    assert.is(r.ok, false, argv.join(' '));
    if (!r.ok) assert.match(r.message, re, argv.join(' '));
  }
});

s('should accept shell placeholders as values when checking prompt text', () => {
  assert.is(validateInvocation(['roadmap', 'get-phase', '$PHASE']).ok, false);
  assert.is(validateInvocation(['roadmap', 'get-phase', '$PHASE'], { placeholders: true }).ok, true);
  assert.is(validateInvocation(['init', 'execute-phase', '${PHASE}', '--wave', '$W'], { placeholders: true }).ok, true);
  assert.is(validateInvocation(['$VERB'], { placeholders: true }).ok, false);
});

s('should pick fields by dotted path and index, empty when missing', () => {
  const data = { a: { b: [1, { c: 'x' }] }, list: ['p', 'q'] };
  assert.is(pick(data, 'a.b[1].c'), 'x');
  assert.is(pick(data, 'list[-1]'), 'q');
  assert.is(pick(data, 'a.zz'), undefined);
  assert.is(pick({}, '__proto__'), undefined);
  assert.is(render({ data }, { raw: false, pick: 'a.missing' }), '');
  assert.is(render({ data, raw: 'R' }, { raw: true }), 'R');
  assert.is(render({ data: 'v' }, { raw: true }), '"v"');
});

s('should report errors as text or JSON with exit 1 or 2, and print help with exit 0', async () => {
  const cwd = tmpDir();
  const errs: string[] = [];
  const outs: string[] = [];
  const io = { cwd, env: {}, stdout: (t: string) => outs.push(t), stderr: (t: string) => errs.push(t) };
  assert.is(await main(['state', 'nope'], io), 2);
  assert.match(errs.pop()!, /^Error: unknown state subcommand "nope"/);
  assert.is(await main(['state', 'json', '--json-errors'], io), 1);
  assert.equal(JSON.parse(errs.pop()!), { ok: false, reason: 'not-found', message: `no .planning/ directory found in ${cwd} or its parents` });
  assert.is(await main(['state', 'json'], { ...io, env: { GSD_JSON_ERRORS: '1' } }), 1);
  assert.is(JSON.parse(errs.pop()!).reason, 'not-found');
  assert.is(await main(['--help'], io), 0);
  assert.match(outs.pop()!, /^Usage: gsd-tools <command>/);
  assert.is(await main(['state', 'update', '--help'], io), 0);
  assert.match(outs.pop()!, /Usage: gsd-tools state update <field> <value…>/);
  assert.is(await main(['slug', 'Héllo', 'Wörld!', '--raw'], io), 0);
  assert.is(outs.pop(), 'hello-world');
});

s('should find the project from a subdirectory and honour --cwd', async () => {
  const root = project({ '.planning/STATE.md': '# State\n\nStatus: Ready\n' });
  fs.mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
  let r = await run(['state', 'get', 'Status', '--raw'], { cwd: path.join(root, 'src', 'deep') });
  assert.is(r.stdout, 'Ready');
  r = await run(['state', 'get', 'Status', '--raw', '--cwd', root], { cwd: tmpDir() });
  assert.is(r.stdout, 'Ready');
  r = await run(['state', 'json', '--cwd', '/no/such/dir'], { cwd: root });
  assert.is(r.code, 2);
  assert.match(r.stderr, /--cwd: \/no\/such\/dir is not a directory/);
  r = await run(['timestamp', 'date', '--raw'], { cwd: tmpDir() });
  assert.is(r.stdout, '2025-03-04');
});

s.run();
