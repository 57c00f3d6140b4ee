// The docs site in a real browser: Debian's chromium, headless, driven by
// playwright-core, the site opened from file://. Search finds a command; its
// page links to its workflow, the workflow to an agent; the runtime matrix
// reads as the target definitions say. Screenshots go to dist/test-artifacts/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from '../pipeline.ts';
import { DEFAULT_TARGETS_DIR, loadTargets } from '../targets/load-targets.ts';
import { matrixRows, readValidatedBy } from '../report/support-matrix.ts';
import { suite, assert } from './harness.ts';
import { builtSite } from './site-support.ts';

const CHROMIUM = process.env['GSD_CHROMIUM'] ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'dist', 'test-artifacts');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const browser = suite('site in a browser');

interface Session {
  context: BrowserContext;
  page: Page;
  profile: string;
  /** Every URL the browser requested. */
  requests: string[];
  /** Script errors and console errors (a blocked request shows as one). */
  errors: string[];
}

let session: Promise<Session> | null = null;

/**
 * The browser, started by the first test that needs it (so a missing or
 * broken Chromium fails tests, which are counted, rather than a hook).
 */
function open(): Promise<Session> {
  session ??= launch();
  return session;
}

async function launch(): Promise<Session> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM}. The site's browser test needs Debian's chromium package: apt-get update && apt-get install -y chromium (or set GSD_CHROMIUM to a Chromium binary).`);
  }
  const profile = mkdtempSync(path.join(os.tmpdir(), 'gsd-build-chromium-'));
  // A persistent context is how playwright takes a --user-data-dir: a fresh, empty one.
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 860 }, timeout: 30_000 }).catch((error: unknown) => {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  });
  context.setDefaultTimeout(10_000);
  const page = context.pages()[0] ?? (await context.newPage());
  const opened: Session = { context, page, profile, requests: [], errors: [] };
  context.on('request', (request) => opened.requests.push(request.url()));
  page.on('pageerror', (error) => opened.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') opened.errors.push(message.text());
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return opened;
}

browser.after(async () => {
  const opened = await session?.catch(() => null);
  if (!opened) return;
  await opened.context.close().catch(() => undefined);
  rmSync(opened.profile, { recursive: true, force: true });
});

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(ARTIFACTS, `site-${name}.png`) });

browser('should find a command by search, from file://', async () => {
  const { page } = await open();
  const { dir, result } = builtSite();
  assert.is(result.status, 0, result.stderr);
  await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
  await page.fill('#search', '/gsd-plan-phase');
  const first = page.locator('#search-results li a').first();
  assert.match(await first.innerText(), /^plan-phase\s*command/);
  await shot(page, '1-search');
  await page.press('#search', 'Enter');
  await page.waitForURL(/\/commands\/plan-phase\.html$/);
  assert.match(await page.locator('h1').innerText(), /^plan-phase\s*command$/);
});

browser('should show the command invocation of every runtime', async () => {
  const { page } = await open();
  const { targets } = await loadTargets(DEFAULT_TARGETS_DIR);
  const cells = await page.locator('#invocation + table tbody tr').allInnerTexts();
  assert.is(cells.length, targets.length);
  for (const { definition } of targets) {
    const expected = (definition.slash ?? '/gsd-{name}').replace('{name}', 'plan-phase');
    assert.ok(cells.some((row) => row.startsWith(definition.name) && row.includes(expected)), `${definition.name}: ${expected}`);
  }
  await shot(page, '2-command');
});

browser('should follow command → workflow → agent links', async () => {
  const { page } = await open();
  await page.locator('#runs + ul a').first().click();
  await page.waitForURL(/\/workflows\/[^/]+\.html$/);
  const sections = await page.locator('#sections ~ table').first().innerText();
  assert.match(sections, /flag:--prd/);
  await shot(page, '3-workflow');
  const agent = page.locator('#spawns + ul li > a').first();
  const name = (await agent.innerText()).trim();
  await agent.click();
  await page.waitForURL(new RegExp(`/agents/${name}\\.html$`));
  assert.match(await page.locator('#tools + p + table').innerText(), /Runtime\s+Tools\s+How/);
  await shot(page, '4-agent');
});

browser('should read the runtime matrix as the target definitions give it', async () => {
  const { page } = await open();
  await page.locator('header nav a', { hasText: 'Runtimes' }).click();
  await page.waitForURL(/\/runtimes\.html$/);
  const { targets } = await loadTargets(DEFAULT_TARGETS_DIR);
  const expected = matrixRows(targets, readValidatedBy(REPO_ROOT));
  const rows = await page.locator('#matrix + table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  assert.is(rows.length, expected.length);
  for (const [index, row] of expected.entries()) {
    assert.equal(rows[index]!.slice(0, 3), [row.runtime, row.scope, row.root], `row ${index + 1}`);
    assert.is(rows[index]![7], row.validation, `row ${index + 1}: validated by`);
  }
  await shot(page, '5-runtimes');
});

browser('should make no request outside the site and raise no error', async () => {
  const { requests, errors } = await open();
  assert.ok(requests.length > 5, 'pages, scripts and styles were requested');
  assert.equal(requests.filter((url) => !url.startsWith('file://')), []);
  assert.equal(errors, []);
});

browser.run();
