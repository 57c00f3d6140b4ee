// requirements mark-complete | mark-pending <IDs>
import path from 'node:path';
import { CliError } from '../core/errors.ts';
import { readTextIfExists, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { markRequirements, splitIds } from '../planning/requirements.ts';
import type { Handler } from '../cli/handler.ts';

/** mark-complete and mark-pending: the same edit in opposite directions; the output names say which. */
const mark =
  (complete: boolean): Handler =>
  (inv, ctx) => {
    const ids = splitIds(inv.words.ids ?? []);
    for (const id of ids) if (!/^[A-Za-z][A-Za-z0-9_]*-\d+[A-Za-z0-9.-]*$/.test(id)) throw new CliError('invalid-args', `"${id}" is not a requirement ID like AUTH-01`);
    return withLock(ctx.planningPath('.lock'), () => {
      const file = ctx.planningPath('REQUIREMENTS.md');
      const text = readTextIfExists(file);
      if (text === null) throw new CliError('not-found', `${ctx.rel(file)} does not exist`);
      const r = markRequirements(text, ids, complete);
      const updated = r.text !== text;
      if (updated) writeAtomic(file, r.text);
      const state = complete ? 'complete' : 'pending';
      return {
        data: {
          updated,
          [`marked_${state}`]: r.marked,
          [`already_${state}`]: r.already,
          not_found: r.not_found,
          table_unmatched: r.table_unmatched,
          write_set: r.write_set,
          total: ids.length,
          write_set_complete: r.write_set.every((w) => w.applied || r.already.includes(w.requirement)),
        },
      };
    });
  };

export const handlers: Record<string, Handler> = { 'requirements mark-complete': mark(true), 'requirements mark-pending': mark(false) };
