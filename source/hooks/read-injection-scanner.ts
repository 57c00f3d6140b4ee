// gsd-read-injection-scanner (PostToolUse: Read|WebFetch|WebSearch). Scans
// what a tool brought into the context for instructions aimed at the agent:
// all of it, whatever the file is called or where it sits (a file name is
// the attacker's to choose, so no path is exempt). Advisory by default; with
// security.injection_blocking true, a HIGH finding blocks. The harness reads
// the decision from the JSON body at exit 0, so this hook never exits 2.
// Crash policy: allow.
import { advise, allow, configValue, projectRoot, runHook, textOf, type HookAnswer, type HookInput } from './lib/hook.ts';
import { advisory, scanText, severityOf } from './lib/injection.ts';

export function sourceOf(input: HookInput): string {
  const t = input.tool_input ?? {};
  if (typeof t.file_path === 'string') return t.file_path;
  if (typeof t.url === 'string') return t.url;
  if (typeof t.query === 'string') return `search: ${t.query}`;
  return input.tool_name ?? 'tool output';
}

export function readInjectionScanner(input: HookInput): HookAnswer {
  const source = sourceOf(input);
  const text = textOf(input.tool_response);
  if (text.length < 8) return allow();
  const findings = scanText(text);
  if (findings.length === 0) return allow();
  const severity = severityOf(findings);
  const root = projectRoot(typeof input.cwd === 'string' ? input.cwd : undefined);
  const message = advisory(findings, source);
  if (severity === 'HIGH' && configValue(root, 'security.injection_blocking') === true) {
    return { stdout: { decision: 'block', reason: message, hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: message, findings, severity, source } } };
  }
  return advise('PostToolUse', message, { findings, severity, source });
}

if (typeof require !== 'undefined' && require.main === module) void runHook('gsd-read-injection-scanner', 'allow', readInjectionScanner);
