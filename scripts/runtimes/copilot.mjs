// GitHub Copilot CLI: `copilot skill list --json` lists skills (the ones that
// failed to load go to stderr), `copilot instruction list` the instruction
// files. Custom agents and hooks need a session: with COPILOT_OFFLINE and a
// bring-your-own-key provider on 127.0.0.1 (nothing listens there) the CLI
// needs no GitHub login, so `copilot --acp` opens one. Its session/new reply
// offers every custom agent with its description, and the local `/env`
// command reports the loaded instructions, skills, agents and hooks per event
// and source file, without a model call.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const version = '1.0.102';

function copilot(ctx) {
  return ctx.bin('copilot', 'npm-loader.js');
}

const lowerFirst = (s) => s.charAt(0).toLowerCase() + s.slice(1);

async function skillList(ctx) {
  const result = await ctx.run([copilot(ctx), 'skill', 'list', '--json']);
  let skills = [];
  try {
    skills = JSON.parse(result.stdout);
  } catch {
    ctx.findings.fail(`copilot skill list --json exited ${result.code} without JSON: ${result.stdout.slice(0, 200)} ${result.stderr.slice(0, 200)}`);
  }
  const source = ctx.scope === 'global' ? 'personal-copilot' : 'project';
  ctx.findings.listed('skills', ctx.expected.commands, new Map(skills.filter((s) => s.source === source).map((s) => [s.name, s.description])), { where: 'copilot skill list' });
  for (const skill of skills.filter((s) => s.source === source && s.enabled === false)) ctx.findings.fail(`skills ${skill.name}: listed as disabled`);
  // The "failed to load" block: one bullet per file.
  ctx.findings.noProblems(
    'copilot skill list',
    result.stderr.split('\n').filter((line) => /^\s*•/.test(line)),
  );
}

async function instructionList(ctx) {
  const result = await ctx.run([copilot(ctx), 'instruction', 'list']);
  const files = ctx.expected.configFiles.filter((file) => file.endsWith('copilot-instructions.md'));
  let found = 0;
  for (const file of files) {
    const shown = ctx.scope === 'global' ? path.join(ctx.box.home, file) : file;
    if (result.stdout.includes(shown)) found += 1;
    else ctx.findings.fail(`instructions ${file}: not listed by copilot instruction list (${result.stdout.trim().split('\n').join(' | ').slice(0, 300)})`);
  }
  ctx.findings.count('instructions', files.length, found);
}

async function acpSession(ctx) {
  const session = ctx.session([copilot(ctx), '--acp']);
  await session.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const created = await session.request('session/new', { cwd: ctx.box.project, mcpServers: [] });
  if (created.error) {
    ctx.findings.fail(`copilot --acp session/new: ${JSON.stringify(created.error).slice(0, 300)}`);
    await session.kill();
    return;
  }
  const agentOption = (created.result.configOptions ?? []).find((option) => option.id === 'agent');
  ctx.findings.listed('agents', ctx.expected.agents, new Map((agentOption?.options ?? []).filter((o) => o.value).map((o) => [o.value, o.description])), { where: 'copilot --acp session/new' });

  const { sessionId } = created.result;
  await session.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/env' }] });
  const env = session.messages
    .filter((m) => m.method === 'session/update' && m.params?.sessionId === sessionId && m.params.update?.sessionUpdate === 'agent_message_chunk')
    .map((m) => m.params.update.content?.text ?? '')
    .join('');
  await session.kill();

  // "- preToolUse: 4 hooks (sources: `.github/hooks/gsd.json` (4))"
  const hookFile = ctx.expected.hookFile;
  if (hookFile) {
    const shown = ctx.scope === 'global' ? path.join(ctx.box.home, hookFile) : hookFile;
    const perEvent = new Map();
    for (const hook of ctx.expected.hooks) perEvent.set(lowerFirst(hook.event), (perEvent.get(lowerFirst(hook.event)) ?? 0) + 1);
    const loaded = new Map();
    // A lone source is shown without its count: "- sessionStart: 1 hook (sources: `…/gsd.json`)".
    for (const match of env.matchAll(/^- (\w+): (\d+) hooks? \(sources: (.*)\)$/gm)) {
      for (const source of match[3].matchAll(/`([^`]+)`(?: \((\d+)\))?/g)) if (source[1] === shown) loaded.set(match[1], Number(source[2] ?? match[2]));
    }
    let found = 0;
    for (const [event, n] of perEvent) {
      if (loaded.get(event) === n) found += n;
      else ctx.findings.fail(`hooks ${event}: copilot /env shows ${loaded.get(event) ?? 'no'} hook(s) from ${hookFile}, expected ${n}`);
    }
    ctx.findings.count('hooks', ctx.expected.hooks.length, found);
  }
  const agentsSection = /\*\*Custom Agents\*\*\n\n([\s\S]*?)\n\n\*\*/.exec(env)?.[1] ?? '';
  for (const agent of ctx.expected.agents) {
    if (!agentsSection.split('\n').includes(`- ${agent.name}`)) ctx.findings.fail(`agents ${agent.name}: not in copilot /env's Custom Agents`);
  }
}

export default {
  id: 'copilot',
  program: 'GitHub Copilot CLI',
  version,
  packages: [{ key: 'copilot', name: '@github/copilot', version }],
  scopes: ['global', 'local'],
  env: {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
    COPILOT_PROVIDER_API_KEY: 'dummy',
    COPILOT_MODEL: 'gpt-4o',
    COPILOT_AUTO_UPDATE: 'false',
  },
  async probe(ctx) {
    // One program process at a time: first runs in a fresh home can race over the program's startup state.
    await skillList(ctx);
    await instructionList(ctx);
    await acpSession(ctx);
  },
  fixture: {
    scope: 'local',
    what: 'skill with broken YAML, agent with broken YAML, hooks file that is not JSON',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: ${command.name}\ndescription: "unterminated\n  tools: [\n---\nbody\n`);
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^name: .*$/m, `name: [${agent.name}`));
      writeFileSync(ctx.placed(ctx.expected.hookFile), '{ "version": 1, "hooks": { ');
      return [new RegExp(`skills ${command.name}:`), new RegExp(`copilot skill list: .*${command.name}`), new RegExp(`agents ${agent.name}:`), /hooks preToolUse:/];
    },
  },
};
