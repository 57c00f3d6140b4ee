// emit: (IR, target, scope) → the bundle as a virtual tree of files. Pure.
import { stringify as stringifyToml } from 'smol-toml';
import { compareText } from '../diagnostics.ts';
import type { CorpusIr, IrNode } from '../ir/types.ts';
import { buildSectionManifest } from '../compose/section-manifest.ts';
import type { ScopeId, Target, TargetScope } from '../targets/target-types.ts';
import { renderAgent } from './agent-formats.ts';
import { renderFrontmatter } from './render-frontmatter.ts';
import { renderString, renderText, type RenderContext } from './render-text.ts';

export interface TreeFile {
  contents: string | Uint8Array;
  executable?: boolean;
}

/** Bundle-relative POSIX path → file, always iterated in sorted order by writers. */
export type VirtualTree = Map<string, TreeFile>;

export interface EmitInput {
  ir: CorpusIr;
  target: Target;
  scope: ScopeId;
  version: string;
  /** Files built from source/runtime and source/hooks, bundle-root-relative to {root}. */
  generated?: { path: string; contents: string; executable?: boolean }[];
}

/** Node kinds shipped as-is (rendered) under {root}/gsd-core/. */
const PAYLOAD_KINDS = new Set(['workflow', 'step', 'mode', 'reference', 'template', 'fragment']);

export function emitBundle({ ir, target, scope: scopeId, version, generated = [] }: EmitInput): VirtualTree {
  const scope = target.definition.scopes[scopeId];
  if (!scope) throw new Error(`target ${target.definition.id} has no ${scopeId} scope`);
  const context: RenderContext = { target: target.definition, scope };
  const tree: VirtualTree = new Map();
  const put = (path: string, contents: string | Uint8Array, executable = false) => {
    if (tree.has(path)) throw new Error(`internal: two files emitted at ${path}`);
    tree.set(path, executable ? { contents, executable } : { contents });
  };
  const at = (pattern: string, name = '') => expandPath(pattern, scope, name);

  for (const node of ir.nodes) {
    if (node.kind === 'command') put(at(scope.commands.path, node.name), renderCommand(node, target, context));
    if (node.kind === 'agent') {
      for (const surface of scope.agents) put(at(surface.path, node.name), renderAgent(node, surface, context));
    }
    if (PAYLOAD_KINDS.has(node.kind) && node.path.startsWith('gsd-core/')) {
      put(at(`{root}/${node.path}`), renderPayload(node, context));
    }
  }
  put(at('{root}/gsd-core/workflows/section-manifest.json'), `${JSON.stringify(buildSectionManifest(ir.nodes), null, 2)}\n`);
  put(at('{root}/gsd-core/VERSION'), `${version}\n`);
  for (const file of generated) put(at(`{root}/${file.path}`), file.contents, file.executable ?? false);
  for (const config of scope.config ?? []) put(at(config.path), renderConfig(config.format, config.entries));
  return sortTree(tree);
}

function renderCommand(command: IrNode, target: Target, context: RenderContext): string {
  const surface = context.scope.commands;
  const frontmatter = renderFrontmatter(surface.frontmatter, command.frontmatter?.data ?? {}, command.name, (text) => renderString(text, context));
  const preamble = surface.preamble ? target.files[surface.preamble] ?? '' : '';
  return `---\n${frontmatter}---\n${preamble}${renderText(command, context)}`;
}

function renderPayload(node: IrNode, context: RenderContext): string {
  return renderText(node, context, 0);
}

function renderConfig(format: 'json' | 'toml', entries: Record<string, unknown>): string {
  if (format === 'json') return `${JSON.stringify(entries, null, 2)}\n`;
  return `# Entries GSD adds to this file. The installer merges them into yours and removes exactly them on uninstall.\n${stringifyToml(entries)}\n`;
}

export function expandPath(pattern: string, scope: TargetScope, name: string): string {
  return pattern.replaceAll('{root}', scope.root).replaceAll('{name}', name);
}

function sortTree(tree: VirtualTree): VirtualTree {
  return new Map([...tree.entries()].sort(([a], [b]) => compareText(a, b)));
}
