// OpenCode: `opencode debug config` and `opencode agent list` (see lib/opencode-family.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { probeOpencodeFamily } from './lib/opencode-family.mjs';

const version = '1.18.33';

export default {
  id: 'opencode',
  program: 'OpenCode',
  version,
  packages: [{ key: 'opencode', name: 'opencode-ai', version }],
  scopes: ['global', 'local'],
  env: { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_SHARE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
  async probe(ctx) {
    await probeOpencodeFamily(ctx, { exe: ctx.bin('opencode', 'bin/opencode.exe'), name: 'opencode' });
  },
  fixture: {
    scope: 'local',
    what: 'command and agent with broken YAML frontmatter',
    async break(ctx) {
      const { command, agent, commandFile, agentFile } = ctx.victims();
      writeFileSync(commandFile, '---\ndescription: "unterminated\n---\nbody\n');
      writeFileSync(agentFile, readFileSync(agentFile, 'utf8').replace(/^mode: .*$/m, 'mode: [subagent'));
      return [new RegExp(`commands ${command.name}: frontmatter not parsed`), new RegExp(`agents ${agent.name}: frontmatter not parsed`)];
    },
  },
};
