// Facts a check reads from one text alone (its runtime-CLI calls, its shell
// literals, its command cells), kept by a digest of the text from one build to
// the next: what the last build stored (`previous`, from the build cache) and
// what this build read (`next`, stored for the next one). Reading them costs
// a fresh one-file rebuild more than anything else the checks do; a rebuild
// finds every unchanged text's facts instead.
import { createHash } from 'node:crypto';
import { textMemo } from './text-memo.ts';

export interface TextFactsMemo {
  previous: ReadonlyMap<string, unknown>;
  next: Map<string, unknown>;
}

let active: TextFactsMemo | null = null;
/** Digests by text, across the builds of one process (watch): each text is hashed once while it stays in the corpus. */
const digests = textMemo<string>();
let digestOf: (text: string, compute: () => string) => string = (_text, compute) => compute();

/** Runs `run` with textFact answering from and filling `memo`. */
export function withTextFacts<T>(memo: TextFactsMemo, run: () => T): T {
  const outer = { active, digestOf };
  active = memo;
  digestOf = digests.round();
  try {
    return run();
  } finally {
    ({ active, digestOf } = outer);
  }
}

/**
 * `compute()`, a pure function of `text` (of kind `kind`), answered from the
 * active memo when it holds a value `valid` accepts (a stored value is input
 * like any other), and recorded in it for the next build.
 */
export function textFact<T>(kind: string, text: string, compute: () => T, valid: (value: unknown) => value is T): T {
  if (active === null) return compute();
  const key = `${kind}\u0000${digestOf(text, () => createHash('sha256').update(text).digest('hex'))}`;
  const known = active.next.get(key) ?? active.previous.get(key);
  const value = known !== undefined && valid(known) ? known : compute();
  active.next.set(key, value);
  return value;
}

/** Whether the memo's next holds exactly the keys of its previous, each with the same value: then nothing needs storing. */
export function sameFacts(memo: TextFactsMemo): boolean {
  return memo.next.size === memo.previous.size && [...memo.next].every(([key, value]) => memo.previous.get(key) === value);
}

/** A stored list: the facts the checks keep are lists of plain records, each check's own shape. */
export function isList<T>(value: unknown): value is T[] {
  return Array.isArray(value);
}
