// The docs site built once per test run, by the CLI as a user runs it, and
// shared by the site tests; plus a reader for the links and ids of its pages.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { runCli, temporaryDir, type CliResult } from './fixture-support.ts';

export interface BuiltSite {
  dir: string;
  result: CliResult;
}

let built: BuiltSite | null = null;

export function builtSite(env: Record<string, string> = {}): BuiltSite {
  if (built) return built;
  const dir = path.join(temporaryDir('site'), 'site');
  const result = runCli(['site', '--out', dir], { env });
  process.on('exit', () => rmSync(path.dirname(dir), { recursive: true, force: true }));
  built = { dir, result };
  return built;
}

export function siteFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath ?? entry.path, entry.name)).split(path.sep).join('/'))
    .sort();
}

export interface PageLinks {
  /** Every href and src value, entities decoded. */
  urls: string[];
  ids: Set<string>;
  /** The IR node the page documents (`<main data-node>`). */
  node: string | null;
}

export function readPage(file: string): PageLinks {
  // Attributes of real tags only: a "<" in text is always written as &#x3C;.
  const html = [...readFileSync(file, 'utf8').matchAll(/<[A-Za-z][^>]*>/g)].map((match) => match[0]).join('\n');
  const decode = (value: string) => value.replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16))).replace(/&amp;/g, '&').replace(/&quot;/g, '"');
  return {
    urls: [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((match) => decode(match[1]!)),
    ids: new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decode(match[1]!))),
    node: /<main data-node="([^"]*)"/.exec(html)?.[1] ?? null,
  };
}
