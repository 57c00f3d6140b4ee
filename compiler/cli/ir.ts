// gsd-build ir: the corpus IR as a table or JSON.
import { parse, type Io } from './args.ts';
import { HELP } from './help.ts';
import { compileFrom, table } from './common.ts';

export async function runIr(args: string[], io: Io): Promise<number> {
  const values = parse(args, { json: { type: 'boolean' } });
  if (values.help) {
    io.out(HELP.ir);
    return 0;
  }
  const compiled = await compileFrom(values, io, { outline: true });
  if (!compiled) return 1;
  if (values.json) {
    io.out(JSON.stringify(compiled.ir, null, 2));
    return 0;
  }
  const rows = compiled.ir.nodes.map((node) => [
    node.id,
    node.path,
    String(node.bytes),
    String(node.edges.length),
    String(node.sections.filter((s) => s.explicit).length),
  ]);
  io.out(table(['id', 'path', 'bytes', 'edges', 'sections'], rows));
  const byKind = new Map<string, number>();
  for (const node of compiled.ir.nodes) byKind.set(node.kind, (byKind.get(node.kind) ?? 0) + 1);
  io.out(`\n${compiled.ir.nodes.length} nodes: ${[...byKind].map(([kind, count]) => `${count} ${kind}`).join(', ')}`);
  return 0;
}
