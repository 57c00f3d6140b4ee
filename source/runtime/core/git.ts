// git through execFileSync with an argument array, never a shell, so no
// message or path is ever interpreted. Only the verbs that need git load this.
import { execFileSync } from 'node:child_process';
import type { Ctx } from './context.ts';
import { CliError } from './errors.ts';

export interface GitResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

export function git(ctx: Ctx, args: string[]): GitResult {
  try {
    const stdout = execFileSync('git', args, {
      cwd: ctx.root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
      windowsHide: true,
      env: { ...process.env, ...ctx.env, GIT_TERMINAL_PROMPT: '0' } as NodeJS.ProcessEnv,
    });
    return { ok: true, code: 0, stdout, stderr: '' };
  } catch (error) {
    const e = error as { status?: number | null; stdout?: string; stderr?: string; code?: string };
    if (e.code === 'ENOENT') throw new CliError('failed', 'git is not installed or not on PATH');
    return { ok: false, code: e.status ?? 1, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '').trim() };
  }
}
