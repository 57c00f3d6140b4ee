// Rendering corpus text for the site: prompt tags, raw HTML, links, and the
// per-runtime facts an agent page shows.
import { suite, assert } from './harness.ts';
import { markdownBlocks } from '../site/parse-markdown.ts';
import { renderPage } from '../site/render-page.ts';
import { toolsPerRuntime } from '../site/agent-tools.ts';
import { modelsPerProfile } from '../site/model-profiles.ts';
import type { IrNode } from '../ir/types.ts';
import type { Target } from '../targets/target-types.ts';

const render = suite('site rendering');

function html(markdown: string, resolve: (url: string) => string | null = () => null): string {
  const page = renderPage({ path: 'x/page.html', title: 't', kind: 'reference', summary: '', content: markdownBlocks(markdown, resolve) }, '0.0.0');
  return page.slice(page.indexOf('<main'), page.indexOf('</main>'));
}

render('should show prompt tags as labels and parse the prose between them as Markdown', () => {
  const out = html('<role>\nYou are **the planner**.\n</role>\n\n<execution_context>\n@~/.claude/x.md\n</execution_context>\n');
  assert.match(out, /<p class="tag"><code>&#x3C;role><\/code><\/p>/);
  assert.match(out, /You are <strong>the planner<\/strong>\./);
  assert.match(out, /<p class="tag"><code>&#x3C;\/execution_context><\/code><\/p>/);
});

render('should show gsd: markers as notes and drop other comments', () => {
  const out = html('<!-- gsd:section id="a" when="flag:--x" -->\nText.\n<!-- /gsd:section -->\n<!-- a note for editors -->\n');
  assert.match(out, /<p class="marker"><code>gsd:section id="a" when="flag:--x"<\/code><\/p>/);
  assert.not.match(out, /editors/);
});

render('should never let corpus HTML through as HTML', () => {
  const out = html('<script>alert(1)</script>\n\nSee <img src="http://example.com/x.png" onerror="alert(2)"> here.\n\n<div>\n<iframe src="http://example.com"></iframe>\n</div>\n');
  assert.not.match(out, /<(?:script|img|iframe|div)[\s>]/);
  assert.match(out, /&#x3C;script>/);
});

render('should keep code fences as written, tags inside them included', () => {
  const out = html('```\n<objective>\nDo it.\n</objective>\n```\n');
  assert.match(out, /<pre><code>&#x3C;objective>\nDo it.\n&#x3C;\/objective>\n<\/code><\/pre>/);
});

render('should point links to corpus files at their pages and turn other links into text', () => {
  const out = html('[principles](../references/p.md), [site](https://example.com/) and ![diagram](d.png)', (url) => (url === '../references/p.md' ? '../references/p.html' : null));
  assert.match(out, /<a href="..\/references\/p.html">principles<\/a>/);
  assert.not.match(out, /example\.com|<img/);
  assert.match(out, /site and diagram/);
});

const agent = { id: 'agent:a', kind: 'agent', name: 'a', path: 'agents/a.md', frontmatter: { raw: '', line: 2, data: { tools: 'Read, Write, Bash' } } } as unknown as IrNode;
const target = (id: string, agents: unknown[], toolMaps = {}): Target => ({ definition: { id, name: id, toolMaps, scopes: { global: { base: 'home', root: `.${id}`, commands: [], agents } } }, files: {} }) as unknown as Target;

render('should work out each runtime\'s tools as emit writes them', () => {
  const rows = toolsPerRuntime(agent, [
    target('kept', [{ format: 'markdown', path: 'a.md' }]),
    target('mapped', [{ format: 'markdown', path: 'a.md', frontmatter: [{ key: 'tools', from: 'tools', toolMap: 'm' }] }], { m: { map: { Read: 'read_file', Bash: null }, otherwise: 'lowercase' } }),
    target('none', [{ format: 'markdown', path: 'a.md', frontmatter: [{ key: 'name', value: '{name}' }] }]),
    target('codex', [{ format: 'codex-toml', path: 'a.toml', sandbox: { writeTools: ['Write'], write: 'workspace-write', readOnly: 'read-only' } }]),
    target('perm', [{ format: 'markdown', path: 'a.md', frontmatter: [{ key: 'permission', permissions: { keys: ['read', 'edit', 'bash'], toolMap: 'p', deny: 'deny' } }] }], { p: { map: { Read: 'read', Write: 'edit' }, otherwise: 'drop' } }),
  ]);
  assert.equal(rows.map((row) => [row.runtime, row.tools]), [
    ['kept', ['Read', 'Write', 'Bash']],
    ['mapped', ['read_file', 'write']],
    ['none', null],
    ['codex', null],
    ['perm', ['read', 'edit']],
  ]);
  assert.match(rows[3]!.how, /sandbox_mode = workspace-write/);
});

render('should read the model per profile as data, unknown agents included', () => {
  const data = { profiles: ['quality', 'balanced', 'adaptive', 'inherit'], defaultProfile: 'balanced', adaptive: { heavy: 'opus', light: 'haiku' }, unknownAgent: { quality: 'opus', balanced: 'sonnet', tier: 'light' }, agents: { a: { quality: 'opus', balanced: 'opus', tier: 'heavy' } } };
  assert.equal(modelsPerProfile('a', data)?.rows.map((row) => row.model), ['opus', 'opus', 'opus', 'inherit']);
  assert.equal(modelsPerProfile('b', data)?.rows.map((row) => row.model), ['opus', 'sonnet', 'haiku', 'inherit']);
  assert.is(modelsPerProfile('a', { something: 'else' }), null);
});

render.run();
