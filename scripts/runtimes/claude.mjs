// Claude Code: the print-mode stream-json `initialize` control request lists
// every command/skill (description suffixed "(user)" or "(project)") and agent
// as Claude's own loader read them; `--debug-file` logs any file it could not
// parse and any settings.json entry it skipped; `claude plugin validate
// --strict` checks the same files (skills, commands, agents and the hooks of
// settings.json) against the plugin schemas, warnings included.
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const version = '2.1.332';

function claude(ctx) {
  return ctx.bin('claude', 'bin/claude.exe');
}

/** The scope's .claude folder as laid out in the sandbox. */
function claudeDir(ctx) {
  return path.join(ctx.scope === 'global' ? ctx.box.home : ctx.box.project, ctx.scopeDef.root);
}

async function listing(ctx) {
  const debugFile = path.join(ctx.box.tmp, 'claude-debug.log');
  const session = ctx.session([claude(ctx), '-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--debug-file', debugFile]);
  session.send({ type: 'control_request', request_id: 'r0', request: { subtype: 'initialize' } });
  const reply = await session.waitFor((m) => m.type === 'control_response' && m.response?.request_id === 'r0', 'initialize');
  await session.close();
  const init = reply.response.response ?? {};
  const where = ctx.scope === 'global' ? 'user' : 'project';
  const commands = new Map((init.commands ?? []).filter((c) => !c.builtin).map((c) => [c.name, c.description]));
  ctx.findings.listed(ctx.scope === 'global' ? 'skills' : 'commands', ctx.expected.commands, commands, { describe: (d) => `${d} (${where})` });
  ctx.findings.listed('agents', ctx.expected.agents, new Map((init.agents ?? []).map((a) => [a.name, a.description])));
  // The loader's own complaints about our files: unparsable frontmatter, skipped settings.
  const debug = existsSync(debugFile) ? readFileSync(debugFile, 'utf8').split('\n') : [];
  ctx.findings.noProblems(
    'claude --debug-file',
    debug.filter((line) => /\[(WARN|ERROR)\]/.test(line) && line.includes(`${claudeDir(ctx)}/`)),
  );
}

/** A plugin made of the sandbox's files: skills/commands/agents as they are, hooks from settings.json. */
function pluginOf(ctx) {
  const source = claudeDir(ctx);
  const plugin = path.join(ctx.box.tmp, 'plugin');
  mkdirSync(path.join(plugin, '.claude-plugin'), { recursive: true });
  writeFileSync(
    path.join(plugin, '.claude-plugin', 'plugin.json'),
    JSON.stringify({ name: 'gsd', version: '0.0.0', description: 'GSD bundle under test', author: { name: 'gsd-build' }, license: 'MIT' }),
  );
  writeFileSync(
    path.join(plugin, 'README.md'),
    'GSD bundle under test. This plugin folder is assembled by the gsd-build runtime test suite from one built bundle, so that the plugin validator of Claude Code checks its skills, commands, agents and hooks with the same schemas Claude Code applies when it loads them from a settings folder.\n',
  );
  for (const part of ['skills', 'commands', 'agents']) {
    if (existsSync(path.join(source, part))) cpSync(path.join(source, part), path.join(plugin, part), { recursive: true });
  }
  const settings = path.join(source, 'settings.json');
  if (existsSync(settings)) {
    mkdirSync(path.join(plugin, 'hooks'));
    let hooks;
    try {
      hooks = JSON.parse(readFileSync(settings, 'utf8')).hooks;
    } catch (error) {
      ctx.findings.fail(`settings.json: not JSON: ${error.message}`);
    }
    writeFileSync(path.join(plugin, 'hooks', 'hooks.json'), JSON.stringify({ hooks: hooks ?? {} }, null, 2));
  }
  return plugin;
}

async function validate(ctx) {
  const plugin = pluginOf(ctx);
  const result = await ctx.run([claude(ctx), 'plugin', 'validate', '--strict', plugin]);
  const lines = result.stdout.split('\n');
  // Findings per validated file: "Validating skill: <path>", then "Found N error(s)/warning(s)" and "❯ …" lines.
  let file = null;
  let inFindings = false;
  const provided = new Map();
  for (const raw of lines) {
    const line = raw.trim();
    const validating = /^Validating [\w ]+: (.*)$/.exec(line);
    if (validating) {
      file = path.relative(plugin, validating[1]);
      inFindings = false;
    } else if (/^(Provides:|Plugin directory checks)/.test(line)) {
      file = null;
      inFindings = false;
    } else if (/^[✘⚠] Found \d+ (error|warning)/.test(line)) {
      inFindings = file !== null && file !== '.claude-plugin/plugin.json';
    } else if (inFindings && line.startsWith('❯')) {
      ctx.findings.fail(`claude plugin validate --strict: ${file}: ${line.slice(1).trim()}`);
    }
    // An entry without a matcher (SessionStart) is listed with none: "❯ hooks: SessionStart command …".
    const hook = /^❯ hooks: (\S+)(?: (.*?))? command (".*")$/.exec(line);
    if (hook) provided.set(`${hook[1]} ${hook[2] ?? ''} ${JSON.parse(hook[3])}`, undefined);
  }
  if (result.code !== 0 && !ctx.findings.failures.some((f) => f.startsWith('claude plugin validate'))) {
    ctx.findings.fail(`claude plugin validate --strict exited ${result.code}: ${lines.filter((l) => /✘|Error/.test(l)).join(' | ').slice(0, 400)}`);
  }
  // The validator lists what a plugin provides only when it passes.
  if (result.code === 0) ctx.findings.listed(
    'hooks',
    ctx.expected.hooks.map((h) => ({ name: `${h.event} ${h.matcher} ${h.command}` })),
    provided,
    { where: 'claude plugin validate', namesOnly: true },
  );
}

/** `claude plugin validate --strict <dir>`: every ✘ finding fails, and a run that does not pass. */
async function validateDir(ctx, dir, label) {
  const result = await ctx.run([claude(ctx), 'plugin', 'validate', '--strict', dir]);
  const lines = result.stdout.split('\n').map((line) => line.trim());
  let inErrors = false;
  for (const line of lines) {
    if (/^✘ Found \d+ error/.test(line)) inErrors = true;
    else if (/^(?:[⚠ℹ✔]|Plugin directory checks|Provides:)/.test(line)) inErrors = false;
    else if (inErrors && line.startsWith('❯')) ctx.findings.fail(`claude plugin validate --strict ${label}: ${line.slice(1).trim()}`);
  }
  if (result.code !== 0 && !ctx.findings.failures.some((f) => f.startsWith(`claude plugin validate --strict ${label}`))) {
    ctx.findings.fail(`claude plugin validate --strict ${label} exited ${result.code}: ${lines.filter((l) => /✘|Error/.test(l)).join(' | ').slice(0, 400)}`);
  }
  return { passed: result.code === 0 && lines.includes('✔ Validation passed'), lines };
}

/** One print-mode session with the plugin loaded from `dir`: until its SessionStart hooks have all answered. */
async function pluginSession(ctx, dir) {
  const session = ctx.session([claude(ctx), '-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--plugin-dir', dir]);
  session.send({ type: 'control_request', request_id: 'r0', request: { subtype: 'initialize' } });
  await session.waitFor((m) => m.type === 'control_response' && m.response?.request_id === 'r0', 'initialize');
  const sessionStart = (subtype) => session.messages.filter((m) => m.type === 'system' && m.subtype === subtype && m.hook_event === 'SessionStart');
  const deadline = Date.now() + 15_000;
  while (sessionStart('hook_response').length < sessionStart('hook_started').length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await session.close();
  return sessionStart('hook_response');
}

/**
 * What installing the plugin does not do and its SessionStart link hook must:
 * after a session with the plugin, ~/.claude/gsd-core (where the prompts read
 * the payload) leads to the plugin's own gsd-core/; a user's own install
 * there, or a link of the user's that leads nowhere, is left as it was (and
 * the latter is told to the model on the hook's stdout).
 */
async function payloadLink(ctx, dir, name) {
  const link = path.join(ctx.box.home, '.claude', 'gsd-core');
  const own = path.join(dir, 'gsd-core');
  let passed = 0;
  const responses = await pluginSession(ctx, dir);
  for (const response of responses.filter((r) => r.exit_code !== 0 || r.stdout)) {
    ctx.findings.fail(`plugin ${name}: SessionStart hook exited ${response.exit_code}: ${String(response.stdout || response.stderr).trim().slice(0, 300)}`);
  }
  if (!existsSync(link)) ctx.findings.fail(`plugin ${name}: ~/.claude/gsd-core: no link to the plugin's gsd-core/ after session start`);
  else if (!lstatSync(link).isSymbolicLink() || !existsSync(own) || realpathSync(link) !== realpathSync(own)) ctx.findings.fail(`plugin ${name}: ~/.claude/gsd-core leads to ${realpathSync(link)}, not the plugin's gsd-core/`);
  else if (!existsSync(path.join(link, 'bin', 'gsd-tools.cjs'))) ctx.findings.fail(`plugin ${name}: ~/.claude/gsd-core/bin/gsd-tools.cjs: not there through the link`);
  else passed += 1;
  // A user's own install: the next session leaves it alone.
  rmSync(link, { recursive: true, force: true });
  mkdirSync(link, { recursive: true });
  writeFileSync(path.join(link, 'mine.txt'), 'a user install\n');
  await pluginSession(ctx, dir);
  if (lstatSync(link).isSymbolicLink() || !existsSync(path.join(link, 'mine.txt'))) ctx.findings.fail(`plugin ${name}: a session replaced the user's own ~/.claude/gsd-core`);
  else passed += 1;
  // A link of the user's that leads nowhere: left as it is, and the hook says so (its stdout is the model's context).
  rmSync(link, { recursive: true, force: true });
  const nowhere = path.join(ctx.box.tmp, 'removed-checkout', 'gsd-core');
  symlinkSync(nowhere, link);
  const told = (await pluginSession(ctx, dir)).some((r) => r.exit_code === 0 && /leads to no folder; the plugin leaves it alone/.test(String(r.stdout)));
  if (!lstatSync(link).isSymbolicLink() || readlinkSync(link) !== nowhere) ctx.findings.fail(`plugin ${name}: a session replaced the user's own dangling ~/.claude/gsd-core link`);
  else if (!told) ctx.findings.fail(`plugin ${name}: a session with a dangling ~/.claude/gsd-core of the user's said nothing about it`);
  else passed += 1;
  rmSync(link, { force: true });
  ctx.findings.count('payload links', 3, passed);
}

/**
 * The marketplace tree of `gsd-build plugin` (ctx.tree): the validator on the
 * marketplace and on each plugin it lists, then what it does not check: each
 * listed plugin folder exists, every hook command's
 * "${CLAUDE_PLUGIN_ROOT}/…" script is in the plugin, and a session with the
 * plugin links ~/.claude/gsd-core to its payload (payloadLink).
 */
async function validatePlugin(ctx) {
  const marketplace = await validateDir(ctx, ctx.tree, 'marketplace');
  ctx.findings.count('marketplaces', 1, marketplace.passed ? 1 : 0);
  let listed = [];
  try {
    listed = JSON.parse(readFileSync(path.join(ctx.tree, '.claude-plugin', 'marketplace.json'), 'utf8')).plugins ?? [];
  } catch (error) {
    ctx.findings.fail(`.claude-plugin/marketplace.json: not JSON: ${error.message}`);
  }
  let passed = 0;
  for (const entry of listed) {
    const dir = path.join(ctx.tree, String(entry.source));
    if (!existsSync(path.join(dir, '.claude-plugin', 'plugin.json'))) {
      ctx.findings.fail(`marketplace.json: plugin ${entry.name}: no .claude-plugin/plugin.json under ${entry.source}`);
      continue;
    }
    const result = await validateDir(ctx, dir, `plugin ${entry.name}`);
    if (result.passed) passed += 1;
    await payloadLink(ctx, dir, entry.name);
    const hooksFile = path.join(dir, 'hooks', 'hooks.json');
    const hooks = existsSync(hooksFile) ? JSON.parse(readFileSync(hooksFile, 'utf8')).hooks ?? {} : {};
    for (const [event, groups] of Object.entries(hooks)) {
      for (const hook of groups.flatMap((group) => group.hooks ?? [])) {
        for (const [, file] of String(hook.command).matchAll(/\$\{CLAUDE_PLUGIN_ROOT\}\/([^"'\s]+)/g)) {
          if (!existsSync(path.join(dir, file))) ctx.findings.fail(`plugin ${entry.name}: hooks/hooks.json: ${event} runs ${file}, which the plugin does not ship`);
        }
      }
    }
  }
  ctx.findings.count('plugins', listed.length, passed);
}

export default {
  id: 'claude',
  program: 'Claude Code',
  version,
  packages: [{ key: 'claude', name: '@anthropic-ai/claude-code', version }],
  scopes: ['global', 'local'],
  env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1' },
  async setup(ctx) {
    writeFileSync(path.join(ctx.box.home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  },
  async probe(ctx) {
    await listing(ctx);
    await validate(ctx);
  },
  plugin: {
    what: 'plugin.json version a number, the link hook script missing, marketplace without owner',
    validate: validatePlugin,
    async break(ctx) {
      const marketplaceFile = path.join(ctx.tree, '.claude-plugin', 'marketplace.json');
      const marketplace = JSON.parse(readFileSync(marketplaceFile, 'utf8'));
      delete marketplace.owner;
      writeFileSync(marketplaceFile, JSON.stringify(marketplace, null, 2));
      const dir = path.join(ctx.tree, marketplace.plugins[0].source);
      const manifestFile = path.join(dir, '.claude-plugin', 'plugin.json');
      writeFileSync(manifestFile, JSON.stringify({ ...JSON.parse(readFileSync(manifestFile, 'utf8')), version: 1 }, null, 2));
      // The SessionStart link hook: the validator does not see it is gone, the file check and the session do.
      const hooks = JSON.parse(readFileSync(path.join(dir, 'hooks', 'hooks.json'), 'utf8')).hooks;
      const script = /\$\{CLAUDE_PLUGIN_ROOT\}\/(hooks\/[^"]+)/.exec(hooks.SessionStart[0].hooks[0].command)[1];
      rmSync(path.join(dir, script));
      return [
        /marketplace: .*owner/,
        /plugin \S+: version/,
        new RegExp(`runs ${script.replace(/[.]/g, '\\.')}, which the plugin does not ship`),
        /SessionStart hook exited|no link to the plugin's gsd-core/,
      ];
    },
  },
  fixture: {
    scope: 'local',
    what: 'command with broken YAML, agent without description, unknown hook event',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, '---\ndescription: "unterminated\nargument-hint: [\n---\nbody\n');
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^description:.*\n/m, ''));
      const settings = path.join(claudeDir(ctx), 'settings.json');
      const json = JSON.parse(readFileSync(settings, 'utf8'));
      json.hooks.NotAnEvent = json.hooks.PreToolUse;
      writeFileSync(settings, JSON.stringify(json, null, 2));
      return [new RegExp(`commands ${command.name}:`), new RegExp(`${command.name}\\.md.*(YAML|frontmatter)`, 'i'), new RegExp(`agents ${agent.name}:`), /NotAnEvent/];
    },
  },
};
