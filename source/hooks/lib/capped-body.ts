// An HTTP answer's body read against a size cap: chunk by chunk, given up
// the moment it passes the cap. A chunked answer declares no length, and
// reading it whole first would hold all of it in memory. One reader for the
// hooks (update check) and the runtime CLI (supply-chain lookups).

/** The body as UTF-8 text, or null when it passed `maxBytes` (the rest is not read). */
export async function cappedBody(res: Response, maxBytes: number): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
