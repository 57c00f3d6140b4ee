// todo add | list | complete: one Markdown file per todo under
// .planning/todos/{pending,completed}/<date>-<slug>.md with a small frontmatter.
import fs from 'node:fs';
import path from 'node:path';
import { bool, str } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { listDir, readText, readTextIfExists, writeAtomic } from '../core/fs.ts';
import { withLock } from '../core/lock.ts';
import { readFrontmatter, withFrontmatter } from '../md/frontmatter.ts';
import { slugify } from '../planning/phases.ts';
import type { Handler } from '../main.ts';

const dirOf = (ctx: Ctx, which: 'pending' | 'completed') => path.join(ctx.planning, 'todos', which);

function readTodo(ctx: Ctx, file: string) {
  const text = readText(file);
  let fm: Record<string, unknown> = {};
  try {
    fm = readFrontmatter(text, ctx.rel(file)).data;
  } catch (error) {
    ctx.warn((error as Error).message);
  }
  const title = typeof fm.title === 'string' ? fm.title : (/^#\s+(.+)$/m.exec(text)?.[1] ?? path.basename(file, '.md'));
  return {
    id: path.basename(file, '.md'),
    file: ctx.rel(file),
    title,
    area: typeof fm.area === 'string' ? fm.area : null,
    created: typeof fm.created === 'string' ? fm.created : null,
    ...(typeof fm.completed === 'string' ? { completed: fm.completed } : {}),
  };
}

const add: Handler = (inv, ctx) => {
  const title = inv.args.title!.trim().replace(/\s+/g, ' ');
  const area = str(inv, '--area');
  if (area !== undefined && !/^[a-z0-9][a-z0-9-]{0,40}$/.test(area)) throw new CliError('invalid-args', `--area "${area}" must be lowercase letters, digits and hyphens`);
  const date = ctx.today();
  const base = `${date}-${slugify(title, 50) || 'todo'}`;
  return withLock(ctx.planningPath('.lock'), () => {
    const dir = dirOf(ctx, 'pending');
    let name = `${base}.md`;
    for (let n = 2; fs.existsSync(path.join(dir, name)) || fs.existsSync(path.join(dirOf(ctx, 'completed'), name)); n++) name = `${base}-${n}.md`;
    const body = `\n# ${title}\n${str(inv, '--body') ? `\n${str(inv, '--body')!.trim()}\n` : ''}`;
    const file = path.join(dir, name);
    writeAtomic(file, withFrontmatter({ title, ...(area ? { area } : {}), created: ctx.now().toISOString() }, body));
    return { data: { added: true, id: name.slice(0, -3), path: ctx.rel(file), title, area: area ?? null }, raw: ctx.rel(file) };
  });
};

const listTodos: Handler = (inv, ctx) => {
  const which = bool(inv, '--completed') ? 'completed' : 'pending';
  const dir = dirOf(ctx, which);
  const area = inv.args.area;
  const todos = listDir(dir)
    .filter((n) => n.endsWith('.md'))
    .map((n) => readTodo(ctx, path.join(dir, n)))
    .filter((t) => area === undefined || t.area === area);
  return { data: { count: todos.length, status: which, todos } };
};

const complete: Handler = (inv, ctx) => {
  const id = inv.args.id!.replace(/\.md$/, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) throw new CliError('invalid-args', `todo id "${id}" is not a file name`);
  return withLock(ctx.planningPath('.lock'), () => {
    const pending = dirOf(ctx, 'pending');
    const names = listDir(pending).filter((n) => n.endsWith('.md'));
    const match = names.find((n) => n === `${id}.md`) ?? (() => {
      const hits = names.filter((n) => n.slice(0, -3).endsWith(id) || n.slice(11, -3) === id);
      if (hits.length > 1) throw new CliError('invalid-args', `todo "${id}" matches ${hits.length} todos: ${hits.join(', ')}`);
      return hits[0];
    })();
    if (!match) throw new CliError('not-found', `no pending todo "${id}" in ${ctx.rel(pending)}`);
    const from = path.join(pending, match);
    const to = path.join(dirOf(ctx, 'completed'), match);
    const text = readTextIfExists(from) ?? '';
    const fm = readFrontmatter(text, ctx.rel(from));
    writeAtomic(to, withFrontmatter({ ...fm.data, completed: ctx.now().toISOString() }, fm.split.body, fm.split.yaml === null ? undefined : fm));
    fs.unlinkSync(from);
    return { data: { completed: true, id: match.slice(0, -3), path: ctx.rel(to) }, raw: ctx.rel(to) };
  });
};

export const handlers: Record<string, Handler> = { 'todo add': add, 'todo list': listTodos, 'todo complete': complete };
