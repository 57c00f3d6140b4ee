// What a built bundle holds, read back from its files with the target
// definition's path patterns: the commands/skills and agents a runtime must
// list (name and description), and the hooks it must register.
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import fg from 'fast-glob';
import YAML from 'yaml';
import { parse as parseToml } from 'smol-toml';
import '../../../compiler/bin/register.mjs';

const { validateTarget } = await import('../../../compiler/targets/load-targets.ts');

/** A target definition as the compiler loads it: its scopes merged with the shared block. */
export function loadTarget(repoRoot, id) {
  const { definition, diagnostics } = validateTarget(`${id}/target.json`, readFileSync(path.join(repoRoot, 'targets', id, 'target.json'), 'utf8'));
  if (!definition) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  return definition;
}

/** The YAML frontmatter of a Markdown file ({} when it has none). Throws on bad YAML. */
export function frontmatter(text) {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?(?:\n|$)/.exec(text);
  if (!match) return {};
  return YAML.parse(match[1]) ?? {};
}

function escapeRegex(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Matches bundle files against a definition path ("{root}/skills/gsd-{name}/SKILL.md")
 * and returns [{ file, name }] where name is the segment holding {name}, without
 * its extension: the name the runtime lists ("gsd-help").
 */
function filesFor(files, pattern, root) {
  const template = pattern.replaceAll('{root}', root);
  const segments = template.split('/');
  const nameIndex = segments.findIndex((segment) => segment.includes('{name}'));
  const regex = new RegExp(
    `^${segments
      .map((segment) => escapeRegex(segment).replace('\\{name\\}', '([^/]+)').replace('\\{router\\}', '[^/]+').replace('\\{event\\}', '[^/]+'))
      .join('/')}$`,
  );
  const out = [];
  for (const file of files) {
    const match = regex.exec(file);
    if (!match) continue;
    const segment = segments[nameIndex].replace('{name}', match[1]);
    out.push({ file, name: segment.replace(/(\.agent)?\.(md|toml|ya?ml)$/, '') });
  }
  return out;
}

function hooksOf(format, text) {
  const hooks = [];
  if (format === 'settings-json') {
    for (const [event, groups] of Object.entries(JSON.parse(text).hooks ?? {})) {
      for (const group of groups) for (const hook of group.hooks ?? []) hooks.push({ event, matcher: group.matcher ?? '', command: hook.command });
    }
  } else if (format === 'copilot-json') {
    for (const [event, entries] of Object.entries(JSON.parse(text).hooks ?? {})) {
      for (const entry of entries) hooks.push({ event, matcher: '', command: entry.bash ?? entry.command });
    }
  } else if (format === 'kimi-toml') {
    for (const hook of parseToml(text).hooks ?? []) hooks.push({ event: hook.event, matcher: hook.matcher ?? '', command: hook.command });
  }
  return hooks;
}

/**
 * Everything a runtime should show for one scope's bundle:
 * { commands: [{ name, description, file, nested }], agents: [{ name, description, tools, file }],
 *   hooks: [{ event, matcher, command }], hookFile, configFiles: [relative paths] }.
 */
export function expectedItems(bundleDir, definition, scopeId) {
  const scope = definition.scopes[scopeId];
  const files = fg.sync('**/*', { cwd: bundleDir, dot: true, onlyFiles: true }).sort();
  const read = (file) => readFileSync(path.join(bundleDir, file), 'utf8');
  const commands = [];
  for (const surface of scope.commands) {
    const top = filesFor(files, surface.path, scope.root);
    const nested = surface.nested ? filesFor(files, surface.nested.child, scope.root) : [];
    const topFiles = new Set(top.map((entry) => entry.file));
    for (const [entries, isNested] of [
      [top, false],
      [nested.filter((entry) => !topFiles.has(entry.file)), true],
    ]) {
      for (const { file, name } of entries) {
        const meta = frontmatter(read(file));
        commands.push({ name: typeof meta.name === 'string' && file.endsWith('SKILL.md') ? meta.name : name, description: meta.description, file, nested: isNested });
      }
    }
  }
  const agents = [];
  for (const surface of scope.agents) {
    for (const { file, name } of filesFor(files, surface.path, scope.root)) {
      if (surface.format === 'codex-toml') {
        const spec = parseToml(read(file));
        agents.push({ name: spec.name ?? name, description: spec.description, file });
      } else {
        const meta = frontmatter(read(file));
        agents.push({ name: meta.name ?? name, description: meta.description, tools: meta.tools, file });
      }
    }
  }
  let hooks = [];
  let hookFile = null;
  if (scope.hooks && !scope.hooks.path.includes('{event}')) {
    hookFile = scope.hooks.path.replaceAll('{root}', scope.root);
    if (existsSync(path.join(bundleDir, hookFile))) hooks = hooksOf(scope.hooks.format, read(hookFile));
  } else if (scope.hooks) {
    // One executable per event, named for it (the folder may hold the hook scripts too).
    hooks = filesFor(files, scope.hooks.path.replace('{event}', '{name}'), scope.root)
      .filter(({ name }) => /^[A-Z][A-Za-z]+$/.test(name))
      .map(({ name }) => ({ event: name, matcher: '', command: name }));
  }
  const configFiles = (scope.config ?? []).map((entry) => entry.path.replaceAll('{root}', scope.root)).filter((file) => existsSync(path.join(bundleDir, file)));
  return { commands, agents, hooks, hookFile, configFiles };
}
