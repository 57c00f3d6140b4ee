// Applies a target's literal replacements (target.json `replacements`) to text
// that no typed span covers.
import type { TargetDefinition } from '../targets/target-types.ts';
import { escapeRegExp } from '../util/text.ts';

export function replaceLiterals(text: string, target: TargetDefinition): string {
  let output = text;
  for (const { find, replace, word } of target.replacements ?? []) {
    // A whole-word find is bounded only on the edges that are word characters, so `Bash(` matches `Bash(cat …)`.
    const before = word && /^\w/.test(find) ? '(?<![\\w.-])' : '';
    const after = word && /\w$/.test(find) ? '(?![\\w-])' : '';
    const pattern = new RegExp(`${before}${escapeRegExp(find)}${after}`, 'g');
    output = output.replace(pattern, () => replace);
  }
  return output;
}
