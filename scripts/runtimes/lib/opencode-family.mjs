// OpenCode and its fork Kilo read the same shapes. `debug config` prints the
// fully resolved configuration, commands and agents included, and exits 1 on
// an invalid config file; `agent list` prints each agent with its mode. They
// keep a command or agent whose frontmatter fails to parse, with the whole
// file (frontmatter included) as its template or prompt, so the probe compares
// names, descriptions, modes and permissions with the bundle's own.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { frontmatter } from './bundle.mjs';

/** [[pathSegments, value]] for every leaf of a JSON value. */
function leaves(value, prefix = [], out = []) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, [...prefix, key], out);
  } else out.push([prefix, value]);
  return out;
}

function at(value, segments) {
  return segments.reduce((inner, key) => (inner && typeof inner === 'object' ? inner[key] : undefined), value);
}

function stripJsonc(text) {
  return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (match, string) => string ?? '').replace(/,(\s*[}\]])/g, '$1');
}

function jsonOf(stdout) {
  const start = stdout.indexOf('{');
  return JSON.parse(stdout.slice(start));
}

/**
 * `debug config` runs first, alone: the first run creates the program's SQLite
 * database in the fresh home, and two first runs at once race on it. `also`
 * (another check of the same program) then runs next to `agent list`.
 */
export async function probeOpencodeFamily(ctx, { exe, name, also = async () => {}, agentList: listAgents = true }) {
  // Into a file, not a pipe: the program exits before a pipe drains, which cut
  // the resolved config (over 200 KB with our bundle) mid-string.
  const configFile = path.join(ctx.box.tmp, `${name}-debug-config.json`);
  const debug = await ctx.run(['bash', '-c', 'exec "$0" debug config > "$1"', exe, configFile]);
  if (debug.code === 0) debug.stdout = readFileSync(configFile, 'utf8');
  const [agentList] = await Promise.all([listAgents ? ctx.run([exe, 'agent', 'list']) : null, also()]);
  if (debug.code !== 0) {
    ctx.findings.fail(`${name} debug config exited ${debug.code}: ${(debug.stderr || debug.stdout).trim().split('\n').slice(0, 6).join(' | ')}`);
    return;
  }
  const config = jsonOf(debug.stdout);

  const commands = new Map();
  for (const [command, entry] of Object.entries(config.command ?? {})) {
    commands.set(command, entry.description);
    if (String(entry.template ?? '').startsWith('---')) ctx.findings.fail(`commands ${command}: frontmatter not parsed (the template starts with ---)`);
  }
  ctx.findings.listed('commands', ctx.expected.commands, commands, { where: `${name} debug config` });

  const agents = new Map();
  for (const [agent, entry] of Object.entries(config.agent ?? {})) {
    agents.set(agent, entry.description);
    if (String(entry.prompt ?? '').startsWith('---')) ctx.findings.fail(`agents ${agent}: frontmatter not parsed (the prompt starts with ---)`);
  }
  ctx.findings.listed('agents', ctx.expected.agents, agents, { where: `${name} debug config` });
  // Mode and permission map as written, and each agent in `agent list` with that mode.
  const listedModes = new Map([...(agentList?.stdout ?? '').matchAll(/^(\S+) \((\w+)\)$/gm)].map((m) => [m[1], m[2]]));
  if (agentList && agentList.code !== 0) ctx.findings.fail(`${name} agent list exited ${agentList.code}: ${agentList.stderr.trim().slice(-300)}`);
  for (const agent of ctx.expected.agents) {
    const entry = config.agent?.[agent.name];
    if (!entry) continue;
    const meta = frontmatter(readFileSync(path.join(ctx.bundleDir, agent.file), 'utf8'));
    if (meta.mode && entry.mode !== meta.mode) ctx.findings.fail(`agents ${agent.name}: mode ${entry.mode}, expected ${meta.mode}`);
    if (agentList && meta.mode && listedModes.get(agent.name) !== meta.mode) ctx.findings.fail(`agents ${agent.name}: ${name} agent list shows ${listedModes.get(agent.name) ?? 'nothing'}, expected (${meta.mode})`);
    if (meta.permission && JSON.stringify(entry.permission) !== JSON.stringify(meta.permission)) {
      ctx.findings.fail(`agents ${agent.name}: permission ${JSON.stringify(entry.permission)}, expected ${JSON.stringify(meta.permission)}`);
    }
  }
  // Every entry of the bundle's config file is in the resolved config.
  for (const file of ctx.expected.configFiles) {
    const wanted = leaves(JSON.parse(stripJsonc(readFileSync(path.join(ctx.bundleDir, file), 'utf8'))));
    let found = 0;
    for (const [segments, value] of wanted) {
      const actual = at(config, segments);
      if (JSON.stringify(actual) === JSON.stringify(value)) found += 1;
      else ctx.findings.fail(`${file}: ${segments.join(' → ')} resolves to ${JSON.stringify(actual)}, expected ${JSON.stringify(value)}`);
    }
    ctx.findings.count('config keys', wanted.length, found);
  }
  ctx.findings.noProblems(
    `${name} debug config`,
    debug.stderr.split('\n').filter((line) => /error|warn|invalid/i.test(line)),
  );
}
