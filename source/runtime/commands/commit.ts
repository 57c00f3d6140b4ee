// commit <message…> [--files …] [--amend] [--no-verify]: stage and commit
// planning files. git always runs through execFileSync with an argument
// array, never a shell, so no message or path is ever interpreted.
import fs from 'node:fs';
import path from 'node:path';
import { bool, list } from '../cli/parse.ts';
import type { Ctx } from '../core/context.ts';
import { CliError } from '../core/errors.ts';
import { git } from '../core/git.ts';
import { confine } from '../core/paths.ts';
import { loadConfig } from '../config/config.ts';
import type { Handler } from '../main.ts';

/** Neutralise text that could pose as a role marker when the log is read back into a prompt. */
export function sanitizeMessage(msg: string): string {
  return msg
    .replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/g, '')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/<(\/?)(system|assistant|human|user)>/gi, '＜$1$2-text＞')
    .replace(/\[(SYSTEM|INST)\]/g, '[$1-TEXT]')
    .replace(/<<SYS>>/g, '«SYS-TEXT»')
    .trim();
}

const commit: Handler = (inv, ctx) => {
  const message = sanitizeMessage(inv.args.message ?? '');
  if (message === '') throw new CliError('invalid-args', 'commit: the message is empty');
  const cfg = loadConfig(ctx);
  const no = (reason: string, extra: Record<string, unknown> = {}) => ({
    data: { committed: false, hash: null, reason, ...extra },
    raw: reason.startsWith('skipped') ? 'skipped' : reason === 'nothing_to_commit' ? 'nothing' : 'failed',
  });
  const files = list(inv, '--files');
  const listed = files ? files.map((f) => path.relative(ctx.root, confine(ctx.root, f, '--files')).split(path.sep).join('/') || '.') : ['.planning'];
  const isPlanning = (p: string) => p === '.planning' || p.startsWith('.planning/');
  // commit_docs governs planning documents only: code listed beside them is
  // still committed (an executor's task commit), the planning paths are not.
  const docsOff = cfg.resolved.commit_docs === false;
  const withheld = docsOff ? listed.filter(isPlanning) : [];
  const paths = listed.filter((p) => !withheld.includes(p));
  if (paths.length === 0) return { ...no('skipped_commit_docs_false'), data: { committed: false, skipped: true, hash: null, reason: 'skipped_commit_docs_false' } };
  const inside = git(ctx, ['rev-parse', '--is-inside-work-tree']);
  if (!inside.ok || inside.stdout.trim() !== 'true') return no('not_a_git_repo');
  if (!files || paths.every(isPlanning)) {
    if (git(ctx, ['check-ignore', '-q', '.planning']).ok) return { ...no('skipped_gitignored'), data: { committed: false, skipped: true, hash: null, reason: 'skipped_gitignored' } };
  }
  const present = files ? paths.filter((p) => fs.existsSync(path.join(ctx.root, p))) : paths;
  const skipped = files ? paths.filter((p) => !present.includes(p)) : [];
  if (present.length === 0) return no('nothing_to_commit', { skipped_files: skipped });
  const add = git(ctx, files ? ['add', '--', ...present] : ['add', '-A', '--', ...present]);
  if (!add.ok) {
    git(ctx, ['reset', '-q', '--', ...present]);
    return no('staging_failed', { error: add.stderr, failures: present });
  }
  const staged = git(ctx, ['diff', '--cached', '--quiet', '--', ...present]);
  const amend = bool(inv, '--amend');
  if (staged.ok && !amend) return no('nothing_to_commit', { skipped_files: skipped });
  const gitDir = git(ctx, ['rev-parse', '--git-dir']).stdout.trim();
  const merging = gitDir !== '' && fs.existsSync(path.resolve(ctx.root, gitDir, 'MERGE_HEAD'));
  const args = ['commit', '-q', '-m', message];
  if (bool(inv, '--no-verify')) args.push('--no-verify');
  if (amend) args.push('--amend');
  if (!amend && !merging) args.push('--', ...present);
  const done = git(ctx, args);
  if (!done.ok) {
    git(ctx, ['reset', '-q', '--', ...present]);
    return no('commit_failed', { error: done.stderr || done.stdout.trim() });
  }
  const hash = git(ctx, ['rev-parse', '--short', 'HEAD']).stdout.trim();
  return { data: { committed: true, hash, reason: 'committed', files: present, skipped_files: skipped, ...(withheld.length ? { withheld_planning_files: withheld } : {}) }, raw: hash };
};

export const handlers: Record<string, Handler> = { commit };
