import { describe, expect, it } from 'vitest';
import { failureSignature, NO_MESSAGE, normaliseLine } from './failure-signature.js';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** The comment the JUnit endpoint writes: the message in a paragraph when the text lacks it, the text in a block. */
const junit = (message: string, text: string, stdout = '') =>
  (message && !text.includes(message) ? `<p>${esc(message)}</p>` : '') +
  `<pre><code>${esc(text)}</code></pre>` +
  (stdout ? `<h4>Output (stdout):</h4><pre><code>${esc(stdout)}</code></pre>` : '');

const playwrightTimeout = (selector: string, ms: number, root: string, spec: string, line: number) =>
  junit(
    `${spec}:${line}:5 › checkout › pays with a card`,
    `  1) [chromium] › ${spec}:${line}:5 › checkout › pays with a card ──────────

    Error: locator.click: Timeout ${ms}ms exceeded.
    Call log:
      - waiting for locator('${selector}')


      ${line - 1} |   await page.goto('/cart');
    > ${line} |   await page.locator('${selector}').click();
         |                                     ^
      ${line + 1} | });

        at ${root}/tests/${spec}:${line}:38
        at /home/runner/work/shop/node_modules/@playwright/test/lib/worker.js:12:3`,
  );

const jestDiff = (expected: number, received: number, root: string, file: string) =>
  junit(
    '',
    `Error: expect(received).toBe(expected) // Object.is equality

Expected: ${expected}
Received: ${received}
    at Object.<anonymous> (${root}/src/${file}:${expected + 3}:17)
    at Promise.then.completed (${root}/node_modules/jest-circus/build/utils.js:298:28)
    at new Promise (<anonymous>)`,
  );

const vitestDiff = (a: string, b: string, file: string) =>
  `<p>AssertionError: expected '${a}' to be '${b}' // Object.is equality</p>` +
  `<pre><code>- Expected\n+ Received\n\n- ${esc(b)}\n+ ${esc(a)}\n\n ❯ src/${file}:12:21\n ❯ node_modules/@vitest/runner/dist/index.js:135:14</code></pre>`;

const javaAssert = (expected: number, actual: number, test: string, line: number) =>
  junit(
    `expected: <${expected}> but was: <${actual}>`,
    `org.opentest4j.AssertionFailedError: expected: <${expected}> but was: <${actual}>
\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
\tat org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:166)
\tat com.shop.api.OrdersApiTest.${test}(OrdersApiTest.java:${line})
\tat java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)`,
  );

const javaNpe = (cls: string, line: number) =>
  junit(
    '',
    `java.lang.NullPointerException: Cannot invoke "com.shop.Cart.total()" because "this.cart" is null
\tat com.shop.${cls}.checkout(${cls}.java:${line})
\tat com.shop.${cls}Test.pays(${cls}Test.java:${line + 20})`,
  );

const pytest = (got: number, want: number, root: string) =>
  junit(
    `AssertionError: assert ${got} == ${want}`,
    `def test_total():
        cart = Cart(id="${crypto.randomUUID()}")
>       assert cart.total() == ${want}
E       assert ${got} == ${want}
E        +  where ${got} = <bound method Cart.total of <shop.Cart object at 0x7f${got}a3c0>>()

${root}/tests/test_cart.py:14: AssertionError`,
  );

const sig = (html: string) => failureSignature(html).signature;

describe('failureSignature', () => {
  it('gives Playwright timeouts on the same selector one signature across timeouts, lines, machines and specs', () => {
    const a = playwrightTimeout('#checkout', 30000, '/home/runner/work/shop/shop', 'checkout.spec.ts', 12);
    const b = playwrightTimeout('#checkout', 15000, '/builds/shop', 'cart.spec.ts', 40);
    expect(sig(a)).toBe(sig(b));
    expect(failureSignature(a).label).toBe('locator.click: Timeout <n>ms exceeded.');
  });

  it('tells Playwright timeouts on different selectors apart', () => {
    const a = playwrightTimeout('#checkout', 30000, '/home/runner/work/shop/shop', 'checkout.spec.ts', 12);
    const b = playwrightTimeout('#login', 30000, '/home/runner/work/shop/shop', 'checkout.spec.ts', 12);
    expect(sig(a)).not.toBe(sig(b));
  });

  it('tells selectors apart by a short number in them, and masks a long id in one', () => {
    const at = (selector: string) =>
      sig(playwrightTimeout(selector, 30000, '/home/runner/work/shop/shop', 'checkout.spec.ts', 12));
    expect(at('#step-2')).not.toBe(at('#step-3'));
    expect(at('[data-order="order-48213377"]')).toBe(at('[data-order="order-99120045"]'));
  });

  it('gives a Jest assertion diff in one test file one signature whatever the values and the checkout folder', () => {
    const a = jestDiff(4, 3, '/home/ann/shop', 'sum.test.js');
    const b = jestDiff(10, 7, '/builds/ci-8812/shop', 'sum.test.js');
    expect(sig(a)).toBe(sig(b));
    expect(failureSignature(a).label).toBe('expect(received).toBe(expected) // Object.is equality');
  });

  it('tells the same generic Jest assertion in two test files apart by the own frame, not node_modules', () => {
    expect(sig(jestDiff(4, 3, '/a', 'sum.test.js'))).not.toBe(sig(jestDiff(4, 3, '/a', 'cart.test.js')));
  });

  it('keeps quoted values of a Vitest message: different strings are different problems', () => {
    expect(sig(vitestDiff('Welcome', 'Hello', 'greet.test.ts'))).toBe(
      sig(vitestDiff('Welcome', 'Hello', 'greet.test.ts')),
    );
    expect(sig(vitestDiff('Welcome', 'Hello', 'greet.test.ts'))).not.toBe(
      sig(vitestDiff('Goodbye', 'Hello', 'greet.test.ts')),
    );
  });

  it('gives JUnit assertion failures of one test class one signature whatever the numbers and lines', () => {
    const a = javaAssert(200, 500, 'createsOrder', 42);
    const b = javaAssert(201, 503, 'listsOrders', 77);
    expect(sig(a)).toBe(sig(b));
    expect(failureSignature(a).label).toBe(
      'org.opentest4j.AssertionFailedError: expected: <<n>> but was: <<n>>',
    );
  });

  it('tells a Java NullPointerException from an assertion failure, and names it by its message alone', () => {
    expect(sig(javaNpe('Checkout', 40))).toBe(sig(javaNpe('Payment', 12)));
    expect(sig(javaNpe('Checkout', 40))).not.toBe(sig(javaAssert(200, 500, 'x', 1)));
  });

  it('reads pytest E lines, masking numbers, UUIDs and addresses', () => {
    const a = pytest(3, 4, '/home/runner/work/shop');
    const b = pytest(7, 9, '/tmp/pytest-of-ci/pytest-12');
    expect(sig(a)).toBe(sig(b));
    expect(failureSignature(a).label).toBe('assert <n> == <n>');
  });

  it('leaves the captured output out of the signature', () => {
    const text =
      'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect (node:net:1555:16)';
    expect(sig(junit('', text, 'started at 12:00:01'))).toBe(sig(junit('', text, 'different output')));
  });

  it('reads the run logs when the comment has no message, and labels a failure without any', () => {
    expect(failureSignature('').label).toBe(NO_MESSAGE);
    expect(failureSignature('', ['<p>Error: database is down</p>']).label).toBe('database is down');
  });

  it('masks ids, timestamps, temporary paths and hex in a message line', () => {
    expect(
      normaliseLine(
        'Error: order ord_8f3k2z91 at 2026-12-07T13:54:57.123Z in /tmp/run-42/x.json failed (0xdeadbeef, 9f86d081884c7d65)',
      ),
    ).toBe('order ord_<id> at <time> in <tmp> failed (<hex>, <hex>)');
  });
});
