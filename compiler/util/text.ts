// Small text helpers the compiler's stages share.

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
