// Augment (auggie): `auggie command list` lists every skill (nested ones too:
// Auggie scans skill folders recursively) with its description, offline and
// logged out. Sub-agents and hooks are only loaded for a session: with a
// session whose tenant URL is a stub of the Augment API on loopback (it
// answers get-models with the sub-agent and hooks feature flags on),
// `auggie --print` sends its chat request there, and that request carries the
// skills (name, description, source) and one sub-agent tool per agent, with
// the agent's description.
//   - Hooks: Auggie reads `settings.json` of the user (~/.augment) and the
//     workspace (.augment) and runs PreToolUse hooks before each tool. The
//     stub answers the chat request with two tool calls GSD's guards refuse
//     (view of .secrets, a launch-process `git commit` with a non-conventional
//     message); a blocked call goes back to the model as an error tool result
//     holding the hook's stderr, so the refusal in the next request proves the
//     hooks are loaded, matched on Auggie's tool names and run through the
//     bundle's command lines and the --runtime augment translation.
//   - Auggie's log (--log-file) says which settings file it loaded and warns
//     about hook entries it ignores and hooks that fail or time out; print
//     mode only says "Some plugin hooks use unsupported configuration.", and a
//     hook that fails is shown as "Failed with non-blocking status code".
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const version = '0.36.0';

/** Tool calls the stub makes (Auggie's tool names and parameters), and the refusal each must get from GSD's guards. */
const GUARDED_CALLS = [
  { name: 'view', input: { path: '.secrets', type: 'file' }, refusal: /GSD secret guard: reading \S*\.secrets is blocked/ },
  {
    name: 'launch-process',
    input: { command: 'git commit --allow-empty -m "did some things"', wait: true, max_wait_seconds: 10 },
    refusal: /GSD commit check: "did some things" is not a Conventional Commit header/,
  },
];

/** Log lines of Auggie's hook loader and runner at warn or error level. */
const HOOK_LOG_PROBLEM = /\[(warn|error)\] '(Hook\w*|hook-[\w-]+)'/;
/** What print mode shows for hook problems: ignored entries, a hook that failed or timed out. */
const HOOK_OUTPUT_PROBLEM = /^(Some plugin hooks use unsupported configuration|Failed with non-blocking status code|Hook '.*' failed:)/;

function auggie(ctx) {
  return ctx.bin('augment', 'augment.mjs');
}

/** The "Commands:" section of commander's help: name, then a description that may wrap. */
function commandsSection(text) {
  const listed = new Map();
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.trim() === 'Commands:');
  if (start === -1) return listed;
  let current = null;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break;
    const entry = /^ {2}(\S+)(?: \[[^\]]*\]| <[^>]*>)*\s{2,}(.*)$/.exec(line);
    if (entry) {
      current = entry[1];
      listed.set(current, entry[2].trim());
    } else if (current && /^ {6,}\S/.test(line)) {
      listed.set(current, `${listed.get(current)} ${line.trim()}`);
    }
  }
  return listed;
}

async function commandList(ctx) {
  const result = await ctx.run(['node', auggie(ctx), 'command', 'list']);
  const listed = commandsSection(`${result.stdout}\n${result.stderr}`);
  const where = ctx.scope === 'global' ? 'user' : 'workspace';
  ctx.findings.listed('skills', ctx.expected.commands, listed, { describe: (d) => `${d} (${where})`, where: 'auggie command list' });
}

async function session(ctx) {
  const guarded = ctx.expected.hooks.length > 0;
  if (guarded) {
    writeFileSync(path.join(ctx.box.project, '.secrets'), 'API_KEY=not-a-real-key\n');
    // The commit check is opt-in (hooks.conventional_commits): this project turns it on.
    mkdirSync(path.join(ctx.box.project, '.planning'), { recursive: true });
    writeFileSync(path.join(ctx.box.project, '.planning', 'config.json'), '{ "hooks": { "conventional_commits": true } }\n');
  }
  const stub = ctx.stub({
    augmentFlags: { beachhead_enable_sub_agent_tool: true, enable_hooks: true },
    ...(guarded ? { toolCalls: GUARDED_CALLS.map(({ name, input }) => ({ name, arguments: JSON.stringify(input) })) } : {}),
  });
  const log = path.join(ctx.box.tmp, 'auggie.log');
  // One turn per tool call, then the one with the stub's one-word reply.
  const turns = String(guarded ? GUARDED_CALLS.length + 1 : 1);
  const result = await ctx.run(['node', auggie(ctx), '--print', 'hi', '--dont-save-session', '--max-turns', turns, '--log-file', log], {
    stub,
    env: { AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: 'dummy', tenantURL: 'http://127.0.0.1:8765/', scopes: ['email'] }) },
  });
  const requests = ctx.requests(stub).filter((r) => r.url === '/chat-stream' && r.json);
  const request = requests[0];
  if (!request) {
    ctx.findings.fail(`auggie --print sent no chat request to the stub (exit ${result.code}): ${result.stderr.trim().slice(-300)}`);
    return;
  }
  const source = ctx.scope === 'global' ? 'user' : 'workspace';
  const skills = new Map((request.json.skills ?? []).filter((s) => s.source === source).map((s) => [s.name, s.description]));
  ctx.findings.listed('skills', ctx.expected.commands, skills, { where: "auggie's chat request" });
  const agents = new Map();
  for (const tool of request.json.tool_definitions ?? []) {
    const match = /^- Name: (.*)\n- Description: (.*)$/m.exec(tool.description ?? '');
    if (tool.name?.startsWith('sub-agent-') && match) agents.set(match[1], match[2]);
  }
  ctx.findings.listed('agents', ctx.expected.agents, agents, { where: "auggie's sub-agent tools" });
  const output = `${result.stdout}\n${result.stderr}`.split('\n');
  ctx.findings.noProblems(
    'auggie --print',
    output.filter((line) => /error|warn|invalid/i.test(line) && line.includes('.augment/') && !HOOK_OUTPUT_PROBLEM.test(line)),
  );
  if (!guarded) return;
  hooksLoaded(ctx, log, output);
  hookRuns(ctx, requests);
}

/** The hook file must be loaded, with no warning about an entry and no hook that failed or timed out. */
function hooksLoaded(ctx, log, output) {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
  const file = ctx.placed(ctx.expected.hookFile);
  const loaded = lines.some((line) => line.endsWith(`Loaded hooks configuration from ${file}`));
  if (!loaded) ctx.findings.fail(`hooks: Auggie did not load ${ctx.expected.hookFile} (no "Loaded hooks configuration" in its log)`);
  const problems = lines.filter((line) => HOOK_LOG_PROBLEM.test(line));
  // Auggie reads a hook's `timeout` in milliseconds (default 60000): seconds there kill every hook at once, reported once here.
  const killed = killedHooks(problems);
  if (killed.length > 0) {
    ctx.findings.fail(`hooks: Auggie killed ${killed.join(', ')}: it reads "timeout" in milliseconds, ${ctx.expected.hookFile} gives seconds, so the tool ran unguarded`);
  }
  const timedOut = (line) => /timed out after \d+ms/.test(line);
  ctx.findings.noProblems('auggie.log', problems.filter((line) => !timedOut(line)));
  ctx.findings.noProblems('auggie --print', output.filter((line) => HOOK_OUTPUT_PROBLEM.test(line) && !timedOut(line)));
  ctx.findings.count('hooks', ctx.expected.hooks.length, loaded && problems.length === 0 ? ctx.expected.hooks.length : 0);
}

/** "<script> after <n> ms" for each hook Auggie's log says it killed at its timeout. */
function killedHooks(logLines) {
  const killed = new Set();
  for (const line of logLines) {
    const match = /Hook execution failed for command '(.*)': Hook execution timed out after (\d+)ms/.exec(line);
    if (match) killed.add(`${/[\w.-]+\.js/.exec(match[1])?.[0] ?? match[1]} after ${match[2]} ms`);
  }
  return [...killed];
}

/** Each stub tool call must come back, in a later request, as an error tool result holding GSD's refusal. */
function hookRuns(ctx, requests) {
  const results = requests.flatMap((r) => r.json.nodes ?? []).filter((node) => node.type === 1).map((node) => node.tool_result_node);
  let refused = 0;
  for (const [index, call] of GUARDED_CALLS.entries()) {
    const result = results.find((r) => r?.tool_use_id === `toolu_stub_${index + 1}`);
    const blocked = result?.is_error === true && result.content.includes(`PreToolUse:${call.name} hook returned blocking error`);
    if (blocked && call.refusal.test(result.content)) refused += 1;
    else ctx.findings.fail(`hook runs: ${call.name} ${JSON.stringify(call.input)} was not refused by GSD's guard; the model saw ${result ? JSON.stringify(result.content.slice(0, 300)) : 'no tool result'}`);
  }
  ctx.findings.count('hook runs', GUARDED_CALLS.length, refused);
}

export default {
  id: 'augment',
  program: 'Auggie',
  version,
  packages: [{ key: 'augment', name: '@augmentcode/auggie', version }],
  scopes: ['global', 'local'],
  env: { AUGMENT_DISABLE_AUTO_UPDATE: '1' },
  async probe(ctx) {
    // One program process at a time: first runs in a fresh home can race over the program's startup state.
    await commandList(ctx);
    await session(ctx);
  },
  fixture: {
    scope: 'local',
    what: 'skill with broken YAML, agent without description, hook entry with an unknown event, hook command that fails',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: ${command.name}\ndescription: "unterminated\n  x: [\n---\nbody\n`);
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^description:.*\n/m, ''));
      const settings = ctx.placed(ctx.expected.hookFile);
      const config = JSON.parse(readFileSync(settings, 'utf8'));
      config.hooks.BeforeEverything = [{ hooks: [{ type: 'command', command: 'true' }] }];
      // The commit check's script is missing: node exits 1, which Auggie treats as "go ahead".
      writeFileSync(settings, JSON.stringify(config, null, 2).replace('gsd-validate-commit.cjs', 'gsd-missing.cjs'));
      return [
        new RegExp(`skills ${command.name}:.*auggie command list`),
        new RegExp(`agents ${agent.name}:`),
        /auggie\.log: .*'HookConfigLoader': Zod validation warnings for \S*\.augment\/settings\.json/,
        /auggie --print: Some plugin hooks use unsupported configuration/,
        // Its own failure, or (while the bundle's timeouts are seconds) the kill that comes first.
        /auggie --print: Failed with non-blocking status code 1|hooks: Auggie killed .*gsd-missing\.cjs/,
        /hook runs: launch-process .* was not refused/,
      ];
    },
  },
};
