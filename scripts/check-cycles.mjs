// Prints every import cycle among the modules of compiler/ and source/ and exits 1 if there is one,
// or if built code (source/runtime, source/hooks, outside their tests) imports a compiler/ module:
// gsd-tools.cjs and the hooks must stay self-contained.
// Every import counts: `import`, `import type`, `export … from`, dynamic `import()` and `require()`
// (TypeScript's own preProcessFile lists them all, type-only ones included, which esbuild's metafile
// cannot: it sees only what survives type erasure).
// Usage: node scripts/check-cycles.mjs [--json] [root]
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fg from 'fast-glob';
import ts from 'typescript';

const AREAS = ['compiler', 'source'];
const EXTENSIONS = ['ts', 'mts', 'mjs', 'js', 'cjs'];

/** Every module file of the areas, as repository-relative POSIX paths, sorted. */
export function listModules(root) {
  return fg
    .sync(AREAS.map((area) => `${area}/**/*.{${EXTENSIONS.join(',')}}`), { cwd: root, ignore: ['**/node_modules/**', '**/fixtures/**', '**/*.d.ts'] })
    .sort();
}

/** The relative specifiers a module imports, type-only and dynamic ones included. */
export function importsOf(text) {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((file) => file.fileName).filter((name) => name.startsWith('./') || name.startsWith('../'));
}

/** The module a relative specifier names, or null when it is not one of ours. */
function resolve(from, specifier, known) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  const candidates = [base, ...EXTENSIONS.map((ext) => `${base}.${ext}`), ...EXTENSIONS.map((ext) => `${base}/index.${ext}`)];
  if (base.endsWith('.js')) candidates.push(base.replace(/\.js$/, '.ts'));
  return candidates.find((candidate) => known.has(candidate)) ?? null;
}

/** Module → the modules it imports (ours only). */
export function importGraph(root) {
  const modules = listModules(root);
  const known = new Set(modules);
  const graph = new Map();
  for (const module of modules) {
    const targets = new Set();
    for (const specifier of importsOf(readFileSync(path.join(root, module), 'utf8'))) {
      const target = resolve(module, specifier, known);
      if (target) targets.add(target);
    }
    graph.set(module, [...targets].sort());
  }
  return graph;
}

/** Strongly connected components with more than one module, or one that imports itself (Tarjan). */
export function tangles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  let next = 0;
  const visit = (start) => {
    // Iterative, so a deep import chain cannot overflow the call stack.
    const work = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [node, at] = frame;
      const edges = graph.get(node) ?? [];
      if (at < edges.length) {
        frame[1] += 1;
        const target = edges[at];
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push([target, 0]);
        } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const members = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          members.push(member);
        } while (member !== node);
        if (members.length > 1 || edges.includes(node)) found.push(members.sort());
      }
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** The shortest cycle through `start` inside its component (breadth-first), as a list that ends where it starts. */
function shortestCycle(graph, start, members) {
  const inside = new Set(members);
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const node = queue.shift();
    for (const target of graph.get(node) ?? []) {
      if (!inside.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** Every distinct cycle that is the shortest through one of its modules; rotations count once. */
export function findCycles(graph) {
  const cycles = [];
  const seen = new Set();
  for (const members of tangles(graph)) {
    for (const member of members) {
      const cycle = shortestCycle(graph, member, members);
      const ring = cycle.slice(0, -1);
      const first = ring.indexOf([...ring].sort()[0]);
      const rotated = [...ring.slice(first), ...ring.slice(0, first)];
      const key = rotated.join(' ');
      if (seen.has(key)) continue;
      seen.add(key);
      cycles.push([...rotated, rotated[0]]);
    }
  }
  return cycles.sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : 1));
}

const BUILT = ['source/runtime/', 'source/hooks/'];
const isTest = (module) => /\/test\//.test(module) || /\.test\.[cm]?[jt]s$/.test(module);

/** Imports from built code into compiler/, as [importer, imported] pairs. */
export function boundaryBreaches(graph) {
  const breaches = [];
  for (const [module, targets] of graph) {
    if (!BUILT.some((area) => module.startsWith(area)) || isTest(module)) continue;
    for (const target of targets) if (target.startsWith('compiler/')) breaches.push([module, target]);
  }
  return breaches.sort((a, b) => (a.join(' ') < b.join(' ') ? -1 : 1));
}

function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const root = path.resolve(args.find((arg) => !arg.startsWith('--')) ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (!existsSync(path.join(root, 'compiler')) && !existsSync(path.join(root, 'source'))) {
    console.error(`check-cycles: expected a repository with compiler/ or source/ at ${root}, found neither`);
    process.exit(2);
  }
  const graph = importGraph(root);
  const cycles = findCycles(graph);
  const breaches = boundaryBreaches(graph);
  if (json) console.log(JSON.stringify({ modules: graph.size, cycles, breaches }, null, 2));
  else {
    if (cycles.length === 0) console.log(`no import cycle among ${graph.size} modules of ${AREAS.join('/ and ')}/`);
    else {
      console.log(`${cycles.length} import cycle${cycles.length === 1 ? '' : 's'} among ${graph.size} modules (expected none):`);
      for (const cycle of cycles) console.log(`  ${cycle.join(' -> ')}`);
    }
    if (breaches.length > 0) {
      console.log(`${breaches.length} import${breaches.length === 1 ? '' : 's'} from built code into compiler/ (expected none: gsd-tools.cjs and the hooks are self-contained):`);
      for (const [from, to] of breaches) console.log(`  ${from} -> ${to}`);
    }
  }
  process.exitCode = cycles.length === 0 && breaches.length === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
