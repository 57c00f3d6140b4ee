// slug, timestamp: pure helpers that never look for a project.
import { slugify } from '../planning/phases.ts';
import type { Handler } from '../cli/handler.ts';

const slug: Handler = (inv) => {
  const s = slugify(inv.args.text!);
  return { data: { slug: s }, raw: s };
};

const timestamp: Handler = (inv, ctx) => {
  const now = ctx.now();
  const iso = now.toISOString();
  const format = inv.args.format ?? 'full';
  const value = format === 'date' ? iso.slice(0, 10) : format === 'filename' ? iso.slice(0, 19).replace(/:/g, '-') : iso;
  return { data: { timestamp: value, format }, raw: value };
};

export const handlers: Record<string, Handler> = { slug, timestamp };
