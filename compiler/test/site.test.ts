// The docs site: built by `gsd-build site`, every internal link resolves,
// every IR node has a page, nothing points outside the site, and two builds
// are byte-identical.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { compile, REPO_ROOT } from '../pipeline.ts';
import { suite, assert } from './harness.ts';
import { runCli, snapshotTree, temporaryDir } from './fixture-support.ts';
import { builtSite, readPage, siteFiles, type PageLinks } from './site-support.ts';

const site = suite('site');

function pages(dir: string): Map<string, PageLinks> {
  return new Map(siteFiles(dir).filter((file) => file.endsWith('.html')).map((file) => [file, readPage(path.join(dir, file))]));
}

site('should build the site into the --out folder and say where', () => {
  const { dir, result } = builtSite();
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /^built the site, \d+ pages and \d+ other files \(\d+ bytes\), into .* in \d+ ms/);
  for (const file of ['index.html', 'runtimes.html', 'budgets.html', 'loop-points.html', 'capabilities/nyquist-validation.html', 'search-index.js', 'assets/search.js', 'assets/site.css']) assert.ok(existsSync(path.join(dir, file)), file);
});

site('should resolve every internal link and fragment, with relative URLs only', () => {
  const { dir } = builtSite();
  const all = pages(dir);
  const files = new Set(siteFiles(dir));
  const broken: string[] = [];
  for (const [file, page] of all) {
    for (const url of page.urls) {
      if (/^[a-z][a-z0-9+.-]*:|^\/|^\/\//i.test(url)) {
        broken.push(`${file}: ${url} is not relative`);
        continue;
      }
      const [target, fragment] = url.split('#') as [string, string | undefined];
      const resolved = target === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
      if (!files.has(resolved)) broken.push(`${file}: ${url} names no file`);
      else if (fragment !== undefined && !all.get(resolved)?.ids.has(fragment)) broken.push(`${file}: ${url} names no id in ${resolved}`);
    }
  }
  assert.equal(broken, []);
  assert.ok([...all.values()].reduce((sum, page) => sum + page.urls.length, 0) > all.size * 5, 'pages link to each other');
});

site('should give every IR node a page, and every page a way in from the index', async () => {
  const { dir } = builtSite();
  const all = pages(dir);
  const compiled = await compile({ sourceDir: path.join(REPO_ROOT, 'source') });
  const documented = [...all.values()].map((page) => page.node).filter((node): node is string => node !== null);
  assert.equal(documented.sort(), compiled.ir.nodes.map((node) => node.id).sort());
  const reached = new Set(['index.html']);
  const queue = ['index.html'];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const url of all.get(file)?.urls ?? []) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), url.split('#')[0]!));
      if (all.has(target) && !reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  assert.equal([...all.keys()].filter((file) => !reached.has(file)), []);
});

site('should show what each capability contributes at each loop point', () => {
  const { dir } = builtSite();
  const page = readFileSync(path.join(dir, 'loop-points.html'), 'utf8');
  const row = page.slice(page.indexOf('<code>plan:post</code>'), page.indexOf('<code>execute:pre</code>'));
  assert.match(row, /href="capabilities\/nyquist-validation\.html">nyquist-validation<\/a> \(contribution, inline, \d+ bytes\)/);
  const capability = readFileSync(path.join(dir, 'capabilities/nyquist-validation.html'), 'utf8');
  assert.match(capability, /<code>workflow\.nyquist_validation<\/code>/);
  assert.match(capability, /<code>nyquist-validation-plan-post<\/code>/);
  // Where it went and what it costs the workflow.
  assert.match(capability, /<td>inline<\/td>\s*<td>\d+<\/td>/);
  // A capability's own agent is listed on its page and links to the agent's page; the mapper's step precedes the planner's contribution.
  const mapper = readFileSync(path.join(dir, 'capabilities/pattern-mapper.html'), 'utf8');
  assert.match(mapper, /Files of its own[\s\S]*<a href="[^"]*gsd-pattern-mapper[^"]*"><code>gsd-pattern-mapper<\/code><\/a>/);
  const pre = page.slice(page.indexOf('<code>plan:pre</code>'), page.indexOf('<code>plan:post</code>'));
  assert.match(pre, /pattern-mapper<\/a> \(step, inline, \d+ bytes\), <a [^>]*>pattern-mapper<\/a> \(contribution, inline, \d+ bytes\)/);
});

site('should list every page in the search index', () => {
  const { dir } = builtSite();
  const script = readFileSync(path.join(dir, 'search-index.js'), 'utf8');
  const entries = JSON.parse(script.slice(script.indexOf('['), script.lastIndexOf(']') + 1)) as { t: string; k: string; d: string; u: string }[];
  const listed = new Set(entries.map((entry) => entry.u));
  const expected = siteFiles(dir).filter((file) => file.endsWith('.html') && file !== 'index.html');
  assert.equal(expected.filter((file) => !listed.has(file)), []);
  assert.ok(entries.some((entry) => entry.k === 'command' && entry.d.length > 0), 'commands carry their descriptions');
});

site('should build byte-identical sites, modes included, whatever TZ, locale or umask', () => {
  const { dir, result } = builtSite();
  assert.is(result.status, 0, result.stderr);
  const other = path.join(temporaryDir('site2'), 'site');
  try {
    const second = runCli(['site', '--out', other], { env: { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' }, umask: '077' });
    assert.is(second.status, 0, second.stderr);
    const first = snapshotTree(dir);
    assert.ok(first.size > 10);
    assert.equal([...snapshotTree(other)], [...first]);
  } finally {
    rmSync(path.dirname(other), { recursive: true, force: true });
  }
});

site('should print help for "gsd-build site --help" and refuse unknown options', () => {
  const help = runCli(['site', '--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /^Usage: gsd-build site/);
  assert.is(runCli(['site', '--bogus']).status, 2);
});

site.run();
