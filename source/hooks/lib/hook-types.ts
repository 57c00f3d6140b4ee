// The shapes a hook reads and returns, in Claude Code's vocabulary: lib/hook.ts runs a
// hook with them, lib/runtime.ts translates them to and from each runtime's own.
export type CrashPolicy = 'allow' | 'deny';

export interface HookInput {
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  [key: string]: unknown;
}

/** What a hook returns: JSON for stdout (or nothing), and an exit code. */
export interface HookAnswer {
  stdout?: unknown;
  /** Plain text for stdout (the status line). */
  text?: string;
  stderr?: string;
  exitCode?: number;
}
