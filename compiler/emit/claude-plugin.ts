// The Claude Code plugin and its marketplace, laid out from the claude/global
// bundle. Pure: bundle in, a tree out (the CLI writes it, a test validates it).
//
//   .claude-plugin/marketplace.json          lists the one plugin, at ./plugins/<name>
//   plugins/<name>/.claude-plugin/plugin.json
//   plugins/<name>/README.md
//   plugins/<name>/skills/, agents/           as the bundle has them under .claude/
//   plugins/<name>/hooks/hooks.json           settings.json's hooks, each script at "${CLAUDE_PLUGIN_ROOT}/hooks/…"
//   plugins/<name>/hooks/*.cjs                the hook scripts, and the SessionStart hook that links
//                                             ~/<root>/<payload> to the plugin's copy (LINK_HOOK)
//   plugins/<name>/<payload>/                 workflows, references, templates and the runtime CLI
//
// The bundle's own files that only its installer reads (gsd-file-manifest.json,
// README.txt) and settings a plugin cannot set (statusLine) are left out.
import { readFileSync } from 'node:fs';
import { compareText } from '../diagnostics.ts';
import { schemaValidator, describeSchemaErrors } from '../schemas.ts';
import type { TreeFile, VirtualTree } from './virtual-tree.ts';
import { escapeRegExp } from '../util/text.ts';

export interface PluginData {
  marketplace: { name: string; description: string; owner: { name: string; email?: string; url?: string } };
  plugin: { name: string; description: string; author: { name: string; email?: string; url?: string }; license: string; keywords?: string[] };
}

const DATA_FILE = new URL('../data/claude-plugin.json', import.meta.url);
/** The plugin's own SessionStart hook: links ~/<root>/<payload> to the plugin's copy (see the script). */
const LINK_HOOK = { file: 'gsd-plugin-link.cjs', source: new URL('../data/claude-plugin-link.cjs', import.meta.url), timeout: 10 };
const LINK_SETTINGS_LINE = 'const SETTINGS = null; // gsd-build: settings';
/** The folders of the bundle's root that a plugin carries as they are. */
const CARRIED = ['skills/', 'agents/', 'hooks/'];

/** compiler/data/claude-plugin.json, checked against schemas/claude-plugin-data.schema.json. */
export function loadPluginData(): PluginData {
  const data = JSON.parse(readFileSync(DATA_FILE, 'utf8')) as unknown;
  const validate = schemaValidator('claude-plugin-data.schema.json');
  if (!validate(data)) {
    const problems = describeSchemaErrors(validate.errors, data).map((finding) => `${finding.path.join('.')}: ${finding.message}`);
    throw new Error(`internal: compiler/data/claude-plugin.json: ${problems.join('; ')}`);
  }
  return data as PluginData;
}

/** The plugin's folder inside the marketplace tree. */
export function pluginFolder(data: PluginData): string {
  return `plugins/${data.plugin.name}`;
}

/**
 * The marketplace tree of one claude/global bundle. `root` is the bundle's
 * root folder (`.claude`); `payload` the corpus's payload folder (gsd-core).
 */
export function claudePlugin(bundle: VirtualTree, version: string, data: PluginData, root: string, payload: string): VirtualTree {
  const folder = pluginFolder(data);
  const tree: VirtualTree = new Map();
  const put = (file: string, entry: TreeFile) => tree.set(`${folder}/${file}`, entry);
  const carried = [...CARRIED, `${payload}/`];
  for (const [file, entry] of bundle) {
    if (!file.startsWith(`${root}/`)) continue;
    const inRoot = file.slice(root.length + 1);
    if (carried.some((prefix) => inRoot.startsWith(prefix))) put(inRoot, entry);
  }
  const settings = bundle.get(`${root}/settings.json`);
  const hooks: Record<string, { matcher?: string; hooks: { type?: string; command?: string; timeout?: number }[] }[]> = settings
    ? ((JSON.parse(String(settings.contents)) as { hooks?: typeof hooks }).hooks ?? {})
    : {};
  // A global bundle's hook runs "$HOME/<root>/hooks/<script>"; the plugin's runs its own copy.
  const script = new RegExp(`^node "\\$HOME/${escapeRegExp(root)}/hooks/([A-Za-z0-9_.-]+)"$`);
  for (const groups of Object.values(hooks)) {
    for (const hook of groups.flatMap((group) => group.hooks)) {
      const found = hook.command === undefined ? null : script.exec(hook.command);
      if (!found || !bundle.has(`${root}/hooks/${found[1]}`)) throw new Error(`internal: expected a hook command running a script of ${root}/hooks/, found ${JSON.stringify(hook.command)}`);
      hook.command = `node "\${CLAUDE_PLUGIN_ROOT}/hooks/${found[1]}"`;
    }
  }
  if (bundle.has(`${root}/hooks/${LINK_HOOK.file}`)) throw new Error(`internal: the bundle ships a hook script named ${LINK_HOOK.file}, the plugin's own link hook`);
  put(`hooks/${LINK_HOOK.file}`, { contents: linkHookScript({ root, payload, plugin: data.plugin.name }), executable: true });
  // First of the session-start hooks, so the others and the first prompt find the payload.
  hooks.SessionStart = [{ hooks: [{ type: 'command', command: `node "\${CLAUDE_PLUGIN_ROOT}/hooks/${LINK_HOOK.file}"`, timeout: LINK_HOOK.timeout }] }, ...(hooks.SessionStart ?? [])];
  put('hooks/hooks.json', { contents: `${JSON.stringify({ hooks }, null, 2)}\n` });
  const { name, description, author, license, keywords } = data.plugin;
  put('.claude-plugin/plugin.json', { contents: `${JSON.stringify({ name, version, description, author, license, ...(keywords ? { keywords } : {}) }, null, 2)}\n` });
  put('README.md', { contents: pluginReadme(data, version, root, payload) });
  tree.set('.claude-plugin/marketplace.json', {
    contents: `${JSON.stringify(
      {
        name: data.marketplace.name,
        description: data.marketplace.description,
        owner: data.marketplace.owner,
        plugins: [{ name, description, version, source: `./${folder}`, author, license }],
      },
      null,
      2,
    )}\n`,
  });
  return new Map([...tree.entries()].sort(([a], [b]) => compareText(a, b)));
}

/** The link hook's script with its settings filled in: the link's place and the plugin's name, from our data only. */
export function linkHookScript(settings: { root: string; payload: string; plugin: string }): string {
  const script = readFileSync(LINK_HOOK.source, 'utf8');
  const parts = script.split(LINK_SETTINGS_LINE);
  if (parts.length !== 2) throw new Error(`internal: compiler/data/claude-plugin-link.cjs: expected the line ${JSON.stringify(LINK_SETTINGS_LINE)} once, found it ${parts.length - 1} times`);
  return parts.join(`const SETTINGS = ${JSON.stringify(settings)};`);
}

function pluginReadme(data: PluginData, version: string, root: string, payload: string): string {
  return [
    `# ${data.plugin.name} ${version}`,
    '',
    data.plugin.description,
    '',
    'Built by gsd-build from the claude/global bundle: its skills, agents and hooks',
    `in the plugin layout, and its ${payload}/ folder (workflows, references, templates,`,
    'the gsd-tools runtime CLI). The prompts read that folder where a global install',
    `puts it, ~/${root}/${payload}/: at each session start the hook hooks/${LINK_HOOK.file}`,
    `links ~/${root}/${payload} to this plugin's copy, unless something of yours is there`,
    '(your own install is left alone and used).',
    '',
    'Install from a marketplace repository that holds this tree:',
    '',
    '```',
    `/plugin install ${data.plugin.name} --marketplace <owner>/<repo>`,
    '```',
    '',
  ].join('\n');
}
