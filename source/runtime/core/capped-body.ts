// One way to read an HTTP answer under a size cap, for the supply-chain
// lookups and the update-check hook alike.

/**
 * The body as text, read chunk by chunk and given up the moment it passes
 * `maxBytes` (null then): a chunked answer declares no length, and reading it
 * whole first would hold all of it in memory.
 */
export async function cappedText(res: Response, maxBytes: number): Promise<string | null> {
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
