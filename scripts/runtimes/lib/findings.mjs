// What one probe run found: counts per kind (expected vs listed) and failures.
// Most runtimes drop a broken file without a word, so a probe passes only when
// every expected name is listed with its expected description.

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export function normalize(text) {
  return String(text ?? '')
    .replace(ANSI, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export class Findings {
  constructor(program) {
    this.program = program;
    this.failures = [];
    this.counts = {};
  }

  fail(message) {
    this.failures.push(String(message).replace(ANSI, ''));
  }

  check(condition, message) {
    if (!condition) this.fail(message);
    return condition;
  }

  /** Lines a program printed as errors or warnings about the bundle: each one fails. */
  noProblems(source, lines) {
    for (const line of lines) this.fail(`${source}: ${normalize(line).slice(0, 400)}`);
  }

  /**
   * expected: [{ name, description }]; listed: Map name → description as shown.
   * `namesOnly` when the program shows names without descriptions (hooks);
   * `describe` maps an expected description to what the program shows (a
   * suffix, a cut); `kind` names the item in messages.
   */
  listed(kind, expected, listed, { describe = (d) => d, where = this.program, namesOnly = false } = {}) {
    let found = 0;
    for (const item of expected) {
      if (!listed.has(item.name)) {
        this.fail(`${kind} ${item.name}: not listed by ${where}`);
        continue;
      }
      const shown = listed.get(item.name);
      if (!namesOnly) {
        const want = normalize(describe(item.description ?? ''));
        if (normalize(shown) !== want) {
          this.fail(`${kind} ${item.name}: ${where} shows description "${normalize(shown).slice(0, 160)}", expected "${want.slice(0, 160)}"`);
          continue;
        }
      }
      found += 1;
    }
    this.count(kind, expected.length, found);
    return found === expected.length;
  }

  /** Several listings of one kind (two commands that both list skills) keep the worst count. */
  count(kind, expected, found) {
    const previous = this.counts[kind];
    this.counts[kind] = previous ? { expected: Math.max(previous.expected, expected), found: Math.min(previous.found, found) } : { expected, found };
  }

  summary() {
    const order = ['skills', 'commands', 'agents', 'hooks', 'instructions', 'config keys'];
    const rank = (kind) => (order.includes(kind) ? order.indexOf(kind) : order.length);
    return Object.entries(this.counts)
      .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
      .map(([kind, { expected, found }]) => `${kind} ${found}/${expected}`)
      .join(', ');
  }
}
