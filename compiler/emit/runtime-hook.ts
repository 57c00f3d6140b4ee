// The one shape every hook format renders (hook-formats.ts and the formats in their own files).
/** A hook as one runtime sees it: its event and matcher mapped, its command line built. */
export interface RuntimeHook {
  id: string;
  event: string;
  matcher?: string;
  timeout?: number;
  /** What the hook wants when it cannot run: "deny" blocks the tool call. */
  crashPolicy?: 'allow' | 'deny';
  command: string;
}
