// Pi (@mariozechner/pi-coding-agent). Both scopes; Pi finds them without flags
// (~/.pi/agent/{prompts,skills} and .pi/{prompts,skills}).
//   - `pi --mode rpc --offline`, `get_commands`: every prompt template (a GSD
//     command, `/gsd-<name>`) and every skill (a GSD agent, `skill:gsd-<x>`)
//     Pi loaded, with its description and scope (user or project). A file Pi
//     cannot parse, or a skill without a description, is left out.
//   - Pi's own resource loader (DefaultResourceLoader, the code the CLI runs at
//     startup) in a short script: the warnings it collects for skills and
//     prompt templates (a name that breaks the Agent Skills rules, a name that
//     differs from its folder, a description over 1024 characters, unreadable
//     YAML). The interactive TUI prints these; RPC mode does not, so the script
//     asks the loader directly. There must be none.
//   - One prompt, `/gsd-help probe-args`, in print mode against a loopback
//     stub (a custom provider in models.json): the request must carry the
//     expanded template (the preamble, and the typed words where $ARGUMENTS
//     was), and its system prompt must not list the agents (they are skills
//     with disable-model-invocation: read when a command names them).
// Pi has no hook registry (hooks are TypeScript extensions), so the bundle has none.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const version = '0.73.1';
const STUB_PORT = 8765;
const PROBE_ARGS = 'probe-args-7f3e';

function pi(ctx, ...args) {
  return [process.execPath, ctx.bin('pi', 'dist/cli.js'), ...args];
}

function problems(stderr) {
  return stderr.split('\n').filter((line) => /error|warn|invalid|fail/i.test(line));
}

async function commands(ctx) {
  const input = `${JSON.stringify({ id: 'list', type: 'get_commands' })}\n`;
  const result = await ctx.run(pi(ctx, '--mode', 'rpc', '--offline'), { input });
  const reply = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .find((message) => message.id === 'list');
  if (!reply?.success) {
    ctx.findings.fail(`pi --mode rpc get_commands exited ${result.code} without a listing: ${(reply?.error ?? result.stderr).toString().trim().slice(-300)}`);
    return;
  }
  const scope = ctx.scope === 'global' ? 'user' : 'project';
  const prompts = new Map();
  const skills = new Map();
  for (const command of reply.data.commands) {
    if (command.sourceInfo?.scope !== scope) continue;
    if (command.source === 'prompt') prompts.set(command.name, command.description);
    if (command.source === 'skill') skills.set(command.name.replace(/^skill:/, ''), command.description);
  }
  ctx.findings.listed('commands', ctx.expected.commands, prompts, { where: `Pi's get_commands (prompt templates, ${scope})` });
  ctx.findings.listed('agents', ctx.expected.agents, skills, { where: `Pi's get_commands (skills, ${scope})` });
  ctx.findings.noProblems('pi --mode rpc', problems(result.stderr));
}

/** Runs Pi's resource loader on the sandbox and returns its skill and prompt warnings. */
async function loaderWarnings(ctx) {
  const script = path.join(ctx.box.tmp, 'pi-loader.mjs');
  const entry = pathToFileURL(ctx.bin('pi', 'dist/index.js')).href;
  writeFileSync(
    script,
    [
      `import { DefaultResourceLoader, getAgentDir } from ${JSON.stringify(entry)};`,
      'const loader = new DefaultResourceLoader({ cwd: process.cwd(), agentDir: getAgentDir() });',
      'await loader.reload();',
      'const out = { skills: loader.getSkills().diagnostics, prompts: loader.getPrompts().diagnostics };',
      'process.stdout.write(JSON.stringify(out));',
    ].join('\n'),
  );
  const result = await ctx.run([process.execPath, script]);
  let found;
  try {
    found = JSON.parse(result.stdout);
  } catch {
    ctx.findings.fail(`Pi's resource loader exited ${result.code} without JSON: ${result.stderr.trim().slice(-300)}`);
    return;
  }
  for (const [kind, diagnostics] of Object.entries(found)) {
    for (const d of diagnostics) ctx.findings.fail(`Pi's resource loader (${kind}): ${d.type} ${d.message} (${d.path ?? d.collision?.name ?? ''})`);
  }
  ctx.findings.noProblems("Pi's resource loader", problems(result.stderr));
}

async function expansion(ctx) {
  const stub = ctx.stub({ port: STUB_PORT });
  const result = await ctx.run(pi(ctx, '-p', '--offline', '--no-session', '--provider', 'gsd-stub', '--model', 'dummy', `/gsd-help ${PROBE_ARGS}`), { stub });
  const request = ctx.requests(stub).find((r) => r.url.endsWith('/chat/completions') && Array.isArray(r.json?.messages));
  if (!request) {
    ctx.findings.fail(`pi -p /gsd-help sent no model request to the stub (exit ${result.code}): ${result.stderr.trim().slice(-300)}`);
    return;
  }
  const text = (m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((part) => part.text ?? '').join('\n'));
  const system = request.json.messages.filter((m) => m.role === 'system' || m.role === 'developer').map(text).join('\n');
  const user = request.json.messages.filter((m) => m.role === 'user').map(text).join('\n');
  const help = ctx.expected.commands.find((c) => c.name === 'gsd-help');
  const body = readFileSync(ctx.placed(help.file), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
  const want = body.replaceAll('$ARGUMENTS', PROBE_ARGS).trim();
  ctx.findings.check(user.includes('<pi_command_notes>'), 'prompt /gsd-help: the request to the model does not carry the command notes');
  ctx.findings.check(!body.includes('$ARGUMENTS') || user.includes(PROBE_ARGS), 'prompt /gsd-help: the typed words did not reach the model where $ARGUMENTS stands');
  ctx.findings.check(user.includes(want), 'prompt /gsd-help: the request to the model is not the template with $ARGUMENTS expanded');
  const listed = ctx.expected.agents.filter((agent) => system.includes(`<name>${agent.name}</name>`));
  ctx.findings.check(listed.length === 0, `system prompt lists agent skills ${listed.map((a) => a.name).join(', ')}; expected none (disable-model-invocation)`);
  ctx.findings.count('expansion', 1, ctx.findings.failures.some((f) => f.startsWith('prompt /gsd-help') || f.startsWith('system prompt')) ? 0 : 1);
}

export default {
  id: 'pi',
  program: 'Pi',
  version,
  packages: [{ key: 'pi', name: '@mariozechner/pi-coding-agent', version }],
  scopes: ['global', 'local'],
  env: { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
  setup(ctx) {
    // A custom provider on loopback: ~/.pi/agent/models.json, a file the bundle does not hold.
    const dir = path.join(ctx.box.home, '.pi', 'agent');
    const provider = { baseUrl: `http://127.0.0.1:${STUB_PORT}/v1`, api: 'openai-completions', apiKey: 'dummy', compat: { supportsDeveloperRole: false, supportsReasoningEffort: false }, models: [{ id: 'dummy' }] };
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'models.json'), JSON.stringify({ providers: { 'gsd-stub': provider } }));
  },
  async probe(ctx) {
    await commands(ctx);
    await loaderWarnings(ctx);
    await expansion(ctx);
  },
  fixture: {
    scope: 'local',
    what: 'prompt template with broken YAML, agent skill without description, agent skill whose name is not its folder',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, '---\ndescription: "unterminated\n---\nbody\n');
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^description:.*\n/m, ''));
      const other = ctx.expected.agents[1];
      const otherFile = ctx.placed(other.file);
      writeFileSync(otherFile, readFileSync(otherFile, 'utf8').replace(/^name: .*$/m, 'name: Not_Kebab'));
      return [new RegExp(`commands ${command.name}:`), new RegExp(`agents ${agent.name}:`), /resource loader \(skills\): warning .*name/];
    },
  },
};

