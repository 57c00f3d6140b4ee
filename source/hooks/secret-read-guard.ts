// gsd-secret-read-guard (PreToolUse: Read|Grep|Bash). Blocks reading secret
// files: .env, .env.<suffix> and .secrets; templates (.env.example,
// .env.sample, .env.template, .env.dist) stay readable. Crash policy: deny
// (a guard that fails must fail closed).
import path from 'node:path';
import { allow, denyTool, runHook, type HookAnswer, type HookInput } from './lib/hook.ts';

const TEMPLATE = /^\.env\.(?:example|sample|template|dist|defaults|schema)$/i;

export function isSecretPath(p: string): boolean {
  const base = path.basename(p.replace(/["'`]/g, ''));
  if (TEMPLATE.test(base)) return false;
  return base === '.env' || /^\.env\.[A-Za-z0-9_.-]+$/.test(base) || base === '.secrets' || /^\.secrets\.[A-Za-z0-9_.-]+$/.test(base);
}

/** Shell words that read a file's contents. */
const READERS = /\b(?:cat|less|more|head|tail|bat|grep|rg|ag|awk|sed|cut|sort|uniq|strings|xxd|od|hexdump|base64|source|nl|tac|cp|scp|rsync|curl|openssl|gpg|python3?|node|ruby|perl|tee|diff|vim?|nano|code|jq|yq)\b|(?:^|[;&|]\s*)\.\s|<\s*/;

export function bashReadsSecret(command: string): string | null {
  const words = command.split(/[\s;&|()<>]+/).filter(Boolean);
  const secret = words.find((w) => isSecretPath(w));
  if (!secret) return null;
  return READERS.test(command) ? secret : null;
}

export function secretReadGuard(input: HookInput): HookAnswer {
  const t = input.tool_input ?? {};
  const reason = (p: string) =>
    `GSD secret guard: reading ${p} is blocked because it holds secrets. Ask the user for the specific value you need, or read a template such as .env.example.`;
  if (input.tool_name === 'Read' && typeof t.file_path === 'string' && isSecretPath(t.file_path)) return denyTool(reason(t.file_path));
  if (input.tool_name === 'Grep') {
    for (const key of ['path', 'glob']) {
      const v = t[key];
      if (typeof v === 'string' && (isSecretPath(v) || /(^|\/)\.env(\*|\.\*)?$/.test(v))) return denyTool(reason(v));
    }
  }
  if (input.tool_name === 'Bash' && typeof t.command === 'string') {
    const hit = bashReadsSecret(t.command);
    if (hit) return denyTool(reason(hit));
  }
  return allow();
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-secret-read-guard', 'deny', secretReadGuard);
