import { suite, assert } from './harness.ts';

const harness = suite('harness');

harness('should count a passing test', () => {
  assert.is(1 + 1, 2);
});

harness.run();
