// Kilo (an OpenCode fork): `kilo config check` validates kilo.json(c) and lists
// every issue; `kilo debug config` and `kilo agent list` as for OpenCode
// (see lib/opencode-family.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { probeOpencodeFamily } from './lib/opencode-family.mjs';

const version = '7.7.7';

function kilo(ctx) {
  return ctx.bin('kilo', 'bin/kilo');
}

async function configCheck(ctx) {
  const result = await ctx.run([kilo(ctx), 'config', 'check']);
  const out = `${result.stdout}\n${result.stderr}`.trim();
  if (result.code !== 0 || !/No config warnings\./.test(out)) {
    ctx.findings.fail(`kilo config check exited ${result.code}: ${out.split('\n').slice(0, 8).join(' | ')}`);
  }
}

export default {
  id: 'kilo',
  program: 'Kilo CLI',
  version,
  packages: [{ key: 'kilo', name: '@kilocode/cli', version }],
  scopes: ['global', 'local'],
  env: { KILO_DISABLE_MODELS_FETCH: '1', KILO_DISABLE_AUTOUPDATE: '1', KILO_DISABLE_SHARE: '1', KILO_DISABLE_LSP_DOWNLOAD: '1' },
  async probe(ctx) {
    // `kilo agent list` is left out: the fork is slow to start, and debug config already gives each agent's mode.
    await probeOpencodeFamily(ctx, { exe: kilo(ctx), name: 'kilo', also: () => configCheck(ctx), agentList: false });
  },
  fixture: {
    scope: 'global',
    what: 'kilo.jsonc with an unknown key, command with broken YAML',
    async break(ctx) {
      const { command, commandFile } = ctx.victims();
      const config = ctx.placed(ctx.expected.configFiles[0]);
      writeFileSync(config, readFileSync(config, 'utf8').replace('{', '{\n  "bogusKey": true,'));
      writeFileSync(commandFile, '---\ndescription: "unterminated\n---\nbody\n');
      return [/kilo config check exited 1: .*bogusKey/, new RegExp(`commands ${command.name}:`)];
    },
  },
};
