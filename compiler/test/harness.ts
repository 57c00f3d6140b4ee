// The one way tests are declared here: uvu suites whose results are counted,
// so the runner can print the closing 'N passed, M failed' line itself.
import { suite as uvuSuite } from 'uvu';

export * as assert from 'uvu/assert';

interface Tally {
  passed: number;
  failed: number;
}

const tally: Tally = ((globalThis as { GSD_TEST_TALLY?: Tally }).GSD_TEST_TALLY ??= { passed: 0, failed: 0 });

type Handler = (context: Record<string, unknown>) => unknown;

/** A uvu suite whose tests report into the shared tally. */
export function suite(name: string) {
  const inner = uvuSuite(name);
  const counted = (title: string, handler: Handler) =>
    inner(title, async (context: Record<string, unknown>) => {
      try {
        await handler(context);
        tally.passed += 1;
      } catch (error) {
        tally.failed += 1;
        throw error;
      }
    });
  // A hook that throws skips the whole suite; count it as a failure, so a broken setup can never pass quietly.
  const guarded = (kind: string, register: (fn: (context: Record<string, unknown>) => Promise<void>) => void) => (fn: Handler) =>
    register(async (context) => {
      try {
        await fn(context);
      } catch (error) {
        tally.failed += 1;
        console.error(`${name}: ${kind} failed: ${(error as Error)?.stack ?? String(error)}`);
        throw error;
      }
    });
  return Object.assign(counted, { run: () => inner.run(), before: guarded('before', inner.before), after: guarded('after', inner.after) });
}
