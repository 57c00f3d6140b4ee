// Codex: the app server (JSON-RPC on stdio) answers skills/list (skills with
// per-file parse errors), hooks/list (hooks with parse warnings) and
// config/read (the merged config with the layer each key came from);
// `--print-startup-config` fails on a config.toml type or syntax error; and
// `codex debug prompt-input` renders what the model would see, including the
// agent roles read from .codex/agents/*.toml (a malformed one is only logged,
// on the app server's stderr). The project's .codex/ is read only when the
// user config trusts the project.
import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';

const version = '0.171.0';

function codex(ctx) {
  return ctx.bin('codex', 'bin/codex.js');
}

function flatten(value, prefix = '', out = new Map()) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  } else out.set(prefix, value);
  return out;
}

function stringsWith(value, needle, out = []) {
  if (typeof value === 'string') {
    if (value.includes(needle)) out.push(value);
  } else if (value && typeof value === 'object') for (const inner of Object.values(value)) stringsWith(inner, needle, out);
  return out;
}

const lowerFirst = (s) => s.charAt(0).toLowerCase() + s.slice(1);

async function appServer(ctx) {
  const { project, home } = ctx.box;
  const session = ctx.session([codex(ctx), 'app-server']);
  await session.request('initialize', { clientInfo: { name: 'gsd-build-runtime-tests', version: '0' } });
  session.notify('initialized');
  const skills = (await session.request('skills/list', { cwds: [project], forceReload: true })).result?.data?.[0] ?? {};
  const hooks = (await session.request('hooks/list', { cwds: [project] })).result?.data?.[0] ?? {};
  const config = (await session.request('config/read', { cwd: project, includeLayers: true })).result ?? {};
  const { stderr } = await session.close();

  const scope = ctx.scope === 'global' ? 'user' : 'repo';
  ctx.findings.listed('skills', ctx.expected.commands, new Map((skills.skills ?? []).filter((s) => s.scope === scope).map((s) => [s.name, s.description])));
  for (const error of skills.errors ?? []) ctx.findings.fail(`skills/list error: ${error.path}: ${error.message}`);

  const ours = (hooks.hooks ?? []).filter((h) => h.sourcePath?.startsWith(ctx.scope === 'global' ? home : project));
  ctx.findings.listed(
    'hooks',
    ctx.expected.hooks.map((h) => ({ name: `${lowerFirst(h.event)} ${h.matcher} ${h.command}` })),
    new Map(ours.map((h) => [`${h.eventName} ${h.matcher ?? ''} ${h.command}`, undefined])),
    { where: 'hooks/list', namesOnly: true },
  );
  for (const warning of [...(hooks.warnings ?? []), ...(hooks.errors ?? [])]) ctx.findings.fail(`hooks/list: ${typeof warning === 'string' ? warning : JSON.stringify(warning)}`);

  // Every key of the bundle's config.toml is in the merged config, taken from our file.
  const configFile = ctx.expected.configFiles.find((file) => file.endsWith('config.toml'));
  if (configFile) {
    const ownLayer = (name) => (ctx.scope === 'global' ? name?.type === 'user' && name.file === path.join(home, configFile) : name?.type === 'project' && name.dotCodexFolder === path.join(project, ctx.scopeDef.root));
    const wanted = flatten(parseToml(readFileSync(path.join(ctx.bundleDir, configFile), 'utf8')));
    const merged = flatten(config.config ?? {});
    let found = 0;
    for (const [key, value] of wanted) {
      const origin = config.origins?.[key]?.name;
      if (!ownLayer(origin)) ctx.findings.fail(`config/read: ${key} does not come from ${configFile} (origin ${JSON.stringify(origin ?? null)})`);
      else if (JSON.stringify(merged.get(key)) !== JSON.stringify(value)) ctx.findings.fail(`config/read: ${key} is ${JSON.stringify(merged.get(key))}, expected ${JSON.stringify(value)}`);
      else found += 1;
    }
    ctx.findings.count('config keys', wanted.size, found);
  }
  // A malformed agent role is only logged; so is anything else Codex refuses in our folders.
  ctx.findings.noProblems(
    'codex app-server',
    stderr.split('\n').filter((line) => /ERROR|WARN|malformed|Ignoring/i.test(line) && (line.includes(`${home}/.`) || line.includes(`${project}/.`))),
  );
}

async function startupConfig(ctx) {
  const result = await ctx.run([codex(ctx), 'app-server', '--print-startup-config']);
  if (result.code !== 0) ctx.findings.fail(`codex app-server --print-startup-config exited ${result.code}: ${result.stdout.trim().slice(0, 400)}`);
}

async function agentRoles(ctx) {
  const result = await ctx.run([codex(ctx), 'debug', 'prompt-input']);
  if (result.code !== 0) {
    ctx.findings.fail(`codex debug prompt-input exited ${result.code}: ${result.stderr.trim().slice(-400)}`);
    return;
  }
  const text = stringsWith(JSON.parse(result.stdout), 'Available roles:')[0] ?? '';
  const roles = new Map();
  for (const match of text.slice(text.indexOf('Available roles:')).matchAll(/^([\w.-]+): \{\n([\s\S]*?)\n\}/gm)) roles.set(match[1], match[2]);
  ctx.findings.listed('agents', ctx.expected.agents, roles, { where: 'codex debug prompt-input' });
}

export default {
  id: 'codex',
  program: 'Codex',
  version,
  packages: [{ key: 'codex', name: '@openai/codex', version }],
  scopes: ['global', 'local'],
  env: {},
  async setup(ctx) {
    if (ctx.scope === 'local') {
      mkdirSync(path.join(ctx.box.home, '.codex'), { recursive: true });
      writeFileSync(path.join(ctx.box.home, '.codex', 'config.toml'), `[projects.${JSON.stringify(ctx.box.project)}]\ntrust_level = "trusted"\n`);
    }
  },
  async probe(ctx) {
    // One program process at a time: first runs in a fresh home can race over the program's startup state.
    await appServer(ctx);
    await startupConfig(ctx);
    await agentRoles(ctx);
  },
  fixture: {
    scope: 'local',
    what: 'skill with broken YAML, malformed agent TOML, unknown hook handler type',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: "${command.name}\ndescription: [\n---\nbody\n`);
      writeFileSync(agentFile, `name = "${agent.name}"\ndescription = \n`);
      const hooksFile = ctx.placed(ctx.expected.hookFile);
      const hooks = JSON.parse(readFileSync(hooksFile, 'utf8'));
      hooks.hooks.PreToolUse[0].hooks[0].type = 'bogus';
      writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));
      return [new RegExp(`skills ${command.name}:`), new RegExp(`skills/list error: .*${command.name}`), new RegExp(`agents ${agent.name}:`), new RegExp(`${agent.name}\\.toml`), /hooks\/list: .*bogus/];
    },
  },
};
