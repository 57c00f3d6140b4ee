// gsd-build site: the docs, rendered from the same IR as the bundles.
//   collect pages (collect-pages.ts) → render each (render-page.ts, with the
//   layout of layout.ts) → the search index and static assets.
// Pure: a VirtualTree out, written by write/write-tree.ts.
import { readFileSync } from 'node:fs';
import type { VirtualTree } from '../emit/virtual-tree.ts';
import type { SiteInput } from './site-types.ts';
import { siteContext } from './site-context.ts';
import { collectPages } from './collect-pages.ts';
import { renderPage } from './render-page.ts';
import { searchIndexScript } from './search-index.ts';

const ASSETS = ['site.css', 'search.js'].map((name) => ({ path: `assets/${name}`, contents: readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8') }));

export function buildSite(input: SiteInput): VirtualTree {
  const pages = collectPages(siteContext(input));
  const files = new Map<string, string>();
  for (const page of pages) files.set(page.path, renderPage(page, input.version));
  files.set('search-index.js', searchIndexScript(pages));
  for (const asset of ASSETS) files.set(asset.path, asset.contents);
  const tree: VirtualTree = new Map();
  for (const path of [...files.keys()].sort()) tree.set(path, { contents: files.get(path)! });
  return tree;
}
