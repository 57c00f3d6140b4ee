// How registry answers are fetched: one injectable function. In real use it is
// Node's global fetch with a timeout; under GSD_REGISTRY_FIXTURES it reads
// recorded answers from a folder and never touches the network.
import fs from 'node:fs';
import path from 'node:path';
import { cappedBody } from '../../hooks/lib/capped-body.ts';

/** A registry's answer: HTTP status and the body as text (parsed by the adapter, so a malformed body is its finding). */
export interface Answer {
  status: number;
  body: string;
}

/** Resolves to an answer, or rejects on a timeout (error name TimeoutError) or a network failure. */
export type FetchJson = (url: string) => Promise<Answer>;

export const DEFAULT_TIMEOUT_MS = 5000;
const USER_AGENT = 'gsd-tools package-legitimacy (https://github.com/opengsd)';

/** Node's fetch with a timeout and a size cap; crates.io refuses requests without a User-Agent. */
export function networkFetch(timeoutMs: number, maxBytes: number, fetchImpl: typeof fetch = globalThis.fetch): FetchJson {
  return async (url) => {
    let res: Response;
    try {
      res = await fetchImpl(url, {
        headers: { 'user-agent': USER_AGENT, accept: 'application/json' },
        redirect: 'follow',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if ((error as Error)?.name === 'TimeoutError') throw timeoutError(`timed out after ${timeoutMs} ms`);
      throw error;
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > maxBytes) throw new Error(`answer of ${declared} bytes is over the ${maxBytes}-byte cap`);
    const body = await cappedBody(res, maxBytes);
    if (body === null) throw new Error(`answer is over the ${maxBytes}-byte cap`);
    return { status: res.status, body };
  };
}

export const timeoutError = (message: string) => Object.assign(new Error(message), { name: 'TimeoutError' });

/** The file a URL's recorded answer lives in: the URL without its scheme, every character but [A-Za-z0-9.-] as "_", plus ".json". */
export function fixtureName(url: string): string {
  let out = '';
  for (const c of url.replace(/^https?:\/\//, '')) out += /[A-Za-z0-9.-]/.test(c) ? c : '_';
  return `${out}.json`;
}

/**
 * Recorded answers: `{"status": 200, "body": <JSON>}`, `{"status": 200, "bodyText": "<raw text>"}`,
 * `{"error": "timeout"}` or `{"error": "network", "message": "..."}`. A URL with no file is a
 * network failure naming the file, so a test can never fall through to the network.
 */
export function fixtureFetch(dir: string): FetchJson {
  return async (url) => {
    const file = path.join(dir, fixtureName(url));
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      throw new Error(`no recorded answer for ${url} (expected ${path.basename(file)})`);
    }
    const rec = JSON.parse(text) as { status?: number; body?: unknown; bodyText?: string; error?: string; message?: string };
    if (rec.error === 'timeout') throw timeoutError(rec.message ?? 'timed out (recorded)');
    if (rec.error !== undefined) throw new Error(rec.message ?? rec.error);
    return { status: rec.status ?? 200, body: rec.bodyText ?? JSON.stringify(rec.body ?? null) };
  };
}
