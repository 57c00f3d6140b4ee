// gsd-build plugin: the Claude Code plugin and its marketplace, from the claude/global bundle.
import path from 'node:path';
import { emitBundles, type Compiled } from '../pipeline.ts';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import { DEFAULT_PAYLOAD } from '../load/layout.ts';
import { writeTrees } from '../write/write-tree.ts';
import { claudePlugin, loadPluginData, pluginFolder } from '../emit/claude-plugin.ts';
import { parse, UsageError, type Io } from './args.ts';
import { HELP } from './help.ts';
import { compileFrom, reportEmitted } from './common.ts';

/** The bundle a plugin is made of: Claude Code's, installed for the user. */
const PLUGIN_BUNDLE = { target: 'claude', scope: 'global' } as const;

/** The marketplace tree of the built claude/global bundle, or null when the targets have no such bundle. */
export function marketplaceTree(compiled: Compiled, bundles: ReadonlyMap<string, VirtualTree>): VirtualTree | null {
  const scope = compiled.targets.find((candidate) => candidate.definition.id === PLUGIN_BUNDLE.target)?.definition.scopes[PLUGIN_BUNDLE.scope];
  const bundle = bundles.get(`${PLUGIN_BUNDLE.target}/${PLUGIN_BUNDLE.scope}`);
  return scope && bundle ? claudePlugin(bundle, compiled.version, loadPluginData(), scope.root, compiled.ir.payload ?? DEFAULT_PAYLOAD) : null;
}

export async function runPlugin(args: string[], io: Io): Promise<number> {
  const values = parse(args, { out: { type: 'string' } });
  if (values.help) {
    io.out(HELP.plugin);
    return 0;
  }
  const started = performance.now();
  const compiled = await compileFrom(values, io);
  if (!compiled) return 1;
  const target = compiled.targets.find((candidate) => candidate.definition.id === PLUGIN_BUNDLE.target);
  const scope = target?.definition.scopes[PLUGIN_BUNDLE.scope];
  if (!target || !scope) throw new UsageError(`expected a ${PLUGIN_BUNDLE.target} target with a ${PLUGIN_BUNDLE.scope} scope in the target definitions, found none`);
  const out = values.out ?? path.join('dist', 'claude-plugin');
  const { bundles, diagnostics } = emitBundles(compiled, [PLUGIN_BUNDLE]);
  if (!reportEmitted(diagnostics, io, out)) return 1;
  const data = loadPluginData();
  const tree = marketplaceTree(compiled, bundles)!;
  await writeTrees(path.dirname(out), new Map([[path.basename(out), tree]]));
  const folder = `${pluginFolder(data)}/`;
  const count = (part: string, pattern: RegExp) => [...tree.keys()].filter((file) => file.startsWith(`${folder}${part}/`) && pattern.test(file)).length;
  io.out(
    `wrote the Claude Code plugin ${data.plugin.name} ${compiled.version} (${tree.size} files: ${count('skills', /\/SKILL\.md$/)} skills, ${count('agents', /\.md$/)} agents, ${count('hooks', /\.(?:c?js|sh)$/)} hook scripts) and its marketplace into ${out}/ in ${Math.round(performance.now() - started)} ms; validate with: claude plugin validate ${path.join(out, pluginFolder(data))}`,
  );
  return 0;
}
