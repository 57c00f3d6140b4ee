// Maps a corpus-relative path to its node kind and name, from compiler/data/layout.json.
import layoutData from '../data/layout.json' with { type: 'json' };
import type { NodeKind } from '../ir/types.ts';

export interface Classified {
  kind: NodeKind;
  name: string;
  parent?: string;
}

const nodePatterns = layoutData.nodes.map((entry) => ({ pattern: new RegExp(entry.pattern), kind: entry.kind as NodeKind }));
const ignorePatterns = layoutData.ignore.map((pattern) => new RegExp(pattern));

/** The node a path holds, 'ignored', or 'unknown' for a misplaced file. */
export function classifyPath(path: string): Classified | 'ignored' | 'unknown' {
  for (const { pattern, kind } of nodePatterns) {
    const match = pattern.exec(path);
    if (match?.groups) {
      const { name, parent } = match.groups;
      return parent ? { kind, name: `${parent}/${name}`, parent: `workflow:${parent}` } : { kind, name: name! };
    }
  }
  if (ignorePatterns.some((pattern) => pattern.test(path))) return 'ignored';
  return layoutData.families.some((family) => path.startsWith(family)) ? 'unknown' : 'ignored';
}
