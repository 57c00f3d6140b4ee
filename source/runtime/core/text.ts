// Small text helpers the runtime shares (the compiler's twin is compiler/util/text.ts;
// built code never imports the compiler, so each side keeps its own one copy).

/** `text` as a literal inside a RegExp: every character with a meaning there is escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
