// Augment (auggie): `auggie command list` lists every skill (nested ones too:
// Auggie scans skill folders recursively) with its description, offline and
// logged out. Sub-agents are only loaded for a session: with a session whose
// tenant URL is a stub of the Augment API on loopback (it answers get-models
// with the sub-agent feature flag on, everything else with {}), `auggie
// --print` sends its chat request there, and that request carries the skills
// (name, description, source) and one sub-agent tool per agent, with the
// agent's description. Hooks are read only when a tool runs, which needs a
// model reply, so this probe does not check them.
import { readFileSync, writeFileSync } from 'node:fs';

const version = '0.36.0';

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
  const stub = ctx.stub({ augmentFlags: { beachhead_enable_sub_agent_tool: true } });
  const result = await ctx.run(['node', auggie(ctx), '--print', 'hi', '--dont-save-session', '--max-turns', '1'], {
    stub,
    env: { AUGMENT_SESSION_AUTH: JSON.stringify({ accessToken: 'dummy', tenantURL: 'http://127.0.0.1:8765/', scopes: ['email'] }) },
  });
  const request = ctx.requests(stub).find((r) => r.url === '/chat-stream' && r.json);
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
  ctx.findings.noProblems(
    'auggie --print',
    `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => /error|warn|invalid/i.test(line) && line.includes('.augment/')),
  );
}

export default {
  id: 'augment',
  program: 'Auggie',
  version,
  coverage: 'skills, agents; hooks by goldens',
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
    what: 'skill with broken YAML, agent without description',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: ${command.name}\ndescription: "unterminated\n  x: [\n---\nbody\n`);
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^description:.*\n/m, ''));
      return [new RegExp(`skills ${command.name}:.*auggie command list`), new RegExp(`agents ${agent.name}:`)];
    },
  },
};
