// The six namespace routers and the help page of the corpus in source/: every
// command is reachable from a router, every router keeps the shape the
// nested layouts rewrite, and help lists every command there is.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';

const COMMANDS = path.join(REPO_ROOT, 'source', 'commands', 'gsd');
const HELP = path.join(REPO_ROOT, 'source', 'gsd-core', 'workflows', 'help.md');
const NAMESPACES = ['workflow', 'project', 'quality', 'context', 'manage', 'ideate'];

interface Command {
  stem: string;
  data: Record<string, unknown>;
  body: string;
}

function commands(): Command[] {
  return fs
    .readdirSync(COMMANDS)
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => {
      const text = fs.readFileSync(path.join(COMMANDS, file), 'utf8');
      const match = /^---\n([\s\S]*?\n)---\n([\s\S]*)$/.exec(text);
      assert.ok(match, `${file}: frontmatter`);
      return { stem: file.slice(0, -3), data: parseYaml(match![1]!) as Record<string, unknown>, body: match![2]! };
    });
}

const routers = () => commands().filter((command) => command.stem.startsWith('ns-'));
const concrete = () => commands().filter((command) => !command.stem.startsWith('ns-'));

/** The `gsd-<stem> [--flag]` cells of a router's `| User wants | Invoke |` table. */
function routes(router: Command): { stem: string; flags: string[] }[] {
  const lines = router.body.split('\n');
  const header = lines.findIndex((line) => /^\|\s*User wants\s*\|\s*Invoke\s*\|$/.test(line));
  assert.ok(header >= 0, `${router.stem}: a | User wants | Invoke | table`);
  const rows: { stem: string; flags: string[] }[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cell = /\|\s*gsd-([a-z0-9-]+)((?:\s+--[a-z][\w-]*)*)\s*\|$/.exec(line);
    assert.ok(cell, `${router.stem}: the last cell of "${line}" is gsd-<stem> with optional flags`);
    rows.push({ stem: cell![1]!, flags: cell![2]!.trim().split(/\s+/).filter(Boolean) });
  }
  assert.ok(rows.length > 0, `${router.stem}: rows`);
  return rows;
}

const test = suite('routers and help');

test('should have the six namespace routers with keyword-tag descriptions', () => {
  assert.equal(routers().map((router) => router.stem).sort(), NAMESPACES.map((ns) => `ns-${ns}`).sort());
  for (const router of routers()) {
    const ns = router.stem.slice(3);
    assert.is(router.data['name'], `gsd-${ns}`);
    const description = String(router.data['description']);
    assert.ok(description.length <= 60, `${router.stem}: description over 60 characters`);
    assert.match(description, /^[a-z][a-z ]* \| [a-z][a-z ]*$/, `${router.stem}: "<category> | <keywords>"`);
    assert.is(router.data['argument-hint'], '');
    assert.equal(router.data['allowed-tools'], ['Read', 'Skill']);
    assert.match(router.body, /\bSkill tool\b/, `${router.stem}: the closing line names the Skill tool`);
  }
});

test('should route only required, existing commands, with flags their argument hints name', () => {
  const byStem = new Map(concrete().map((command) => [command.stem, command]));
  for (const router of routers()) {
    const required = router.data['requires'] as string[];
    const rows = routes(router);
    assert.equal([...new Set(rows.map((row) => row.stem))].sort(), [...required].sort(), `${router.stem}: requires lists exactly the routed commands`);
    for (const row of rows) {
      const target = byStem.get(row.stem);
      assert.ok(target, `${router.stem}: gsd-${row.stem} is not a command`);
      for (const flag of row.flags) assert.ok(String(target!.data['argument-hint']).includes(flag), `${router.stem}: gsd-${row.stem} has no ${flag}`);
    }
  }
});

test('should route every command from at least one router', () => {
  const routed = new Set(routers().flatMap((router) => routes(router).map((row) => row.stem)));
  for (const command of concrete()) assert.ok(routed.has(command.stem), `no router routes ${command.stem}`);
});

test('should list every command on the help page', () => {
  const help = fs.readFileSync(HELP, 'utf8');
  for (const command of commands()) assert.ok(help.includes(`/gsd-${command.stem}`), `help does not list /gsd-${command.stem}`);
});

test('should give help\'s --brief and topic modes a reference they can be read from', () => {
  const help = fs.readFileSync(HELP, 'utf8');
  const purpose = /<purpose>([\s\S]*?)<\/purpose>/.exec(help)?.[1] ?? '';
  const reference = /<reference>([\s\S]*?)<\/reference>/.exec(help)?.[1] ?? '';
  // --brief prints each ## heading with the command names under it: every section but Files lists its commands as "- `/gsd-…`".
  const sections = reference.split(/^## /m).slice(1).map((text) => ({ heading: text.split('\n', 1)[0]!, text }));
  assert.ok(sections.length >= 8, `${sections.length} sections`);
  for (const { heading, text } of sections) {
    if (heading === 'Files') assert.match(text, /^\| `\.planning\//m, 'Files is a table of .planning paths');
    else assert.match(text, /^- `\/gsd-[a-z-]+[^`]*`:/m, `help section "${heading}" names no command the way --brief reads them`);
  }
  // Each topic word the purpose offers as an example finds a section that names it.
  const topics = [.../a topic word \(([^)]*)\)/.exec(purpose)?.[1]?.matchAll(/`([a-z]+)`/g) ?? []].map((match) => match[1]!);
  assert.ok(topics.length >= 3, `topic examples: ${topics.join(', ')}`);
  for (const topic of topics) assert.ok(sections.some(({ text }) => text.toLowerCase().includes(topic)), `no help section names the topic "${topic}"`);
});

test.run();
