// The one reader of frontmatter lists (`tools:`, `allowed-tools:` and any list a target maps).

/**
 * The items of a list value, which a source may write as a YAML list or as one
 * comma-separated string: list items as strings; a string split on commas, each
 * item trimmed and empty ones dropped; nothing for null or a missing key; any
 * other scalar as its one item.
 */
export function listItems(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map(String);
  return String(value)
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}
