// requirements mark-complete <IDs>
import path from 'node:path';
import { CliError } from '../core/errors.ts';
import { readTextIfExists, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { markRequirements, splitIds } from '../planning/requirements.ts';
import type { Handler } from '../main.ts';

const markComplete: Handler = (inv, ctx) => {
  const ids = splitIds(inv.words.ids ?? []);
  for (const id of ids) if (!/^[A-Za-z][A-Za-z0-9_]*-\d+[A-Za-z0-9.-]*$/.test(id)) throw new CliError('invalid-args', `"${id}" is not a requirement ID like AUTH-01`);
  return withLock(ctx.planningPath('.lock'), () => {
    const file = path.join(ctx.planning, 'REQUIREMENTS.md');
    const text = readTextIfExists(file);
    if (text === null) throw new CliError('not-found', `${ctx.rel(file)} does not exist`);
    const r = markRequirements(text, ids);
    const updated = r.text !== text;
    if (updated) writeAtomic(file, r.text);
    const { text: _t, ...rest } = r;
    void _t;
    return { data: { updated, ...rest, total: ids.length, write_set_complete: r.write_set.every((w) => w.applied || r.already_complete.includes(w.requirement)) } };
  });
};

export const handlers: Record<string, Handler> = { 'requirements mark-complete': markComplete };
