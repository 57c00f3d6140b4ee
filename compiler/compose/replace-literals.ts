// Applies a target's literal replacements (target.json `replacements`) to text
// that no typed span covers.
import type { TargetDefinition } from '../targets/target-types.ts';
import { escapeRegExp } from '../util/text.ts';

interface Replacement {
  find: string;
  pattern: RegExp;
  replace: string;
}

/** Each target's replacements compiled once: this runs on every gap between spans of every file. */
const compiled = new WeakMap<TargetDefinition, Replacement[]>();

function replacementsOf(target: TargetDefinition): Replacement[] {
  let list = compiled.get(target);
  if (!list) {
    list = (target.replacements ?? []).map(({ find, replace, word }) => {
      // A whole-word find is bounded only on the edges that are word characters, so `Bash(` matches `Bash(cat …)`.
      const before = word && /^\w/.test(find) ? '(?<![\\w.-])' : '';
      const after = word && /\w$/.test(find) ? '(?![\\w-])' : '';
      return { find, pattern: new RegExp(`${before}${escapeRegExp(find)}${after}`, 'g'), replace };
    });
    compiled.set(target, list);
  }
  return list;
}

export function replaceLiterals(text: string, target: TargetDefinition): string {
  let output = text;
  for (const { find, pattern, replace } of replacementsOf(target)) {
    // Most gaps hold no find at all; a substring test is far cheaper than the bounded pattern.
    if (!output.includes(find)) continue;
    output = output.replace(pattern, () => replace);
  }
  return output;
}
