// Results of a pure function of a text, kept from one call of a check to the
// next in a long-lived process (gsd-build watch rebuilds in one process): a
// rebuild after one edit finds every other text's result. Each round keeps
// only the texts asked for in the round before it, so memory follows the
// corpus, not the history of edits.
export interface TextMemo<T> {
  /** Starts a round (one run of the check over a corpus) and returns its lookup. */
  round(): (text: string, compute: () => T) => T;
}

export function textMemo<T>(): TextMemo<T> {
  let previous = new Map<string, T>();
  let current = new Map<string, T>();
  return {
    round() {
      // Texts of the last round stay findable; older ones go.
      if (current.size > 0) previous = current;
      current = new Map();
      const round = current;
      return (text, compute) => {
        let value = round.get(text);
        if (value === undefined) {
          value = previous.get(text) ?? compute();
          round.set(text, value);
        }
        return value;
      };
    },
  };
}
