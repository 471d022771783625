import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { XmlFileError } from '../../../lib/xml.js';
import { parseJUnitXml } from './junit.parser.js';
import { markerSeq } from './junit.markers.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../test/fixtures/junit/${name}`, import.meta.url), 'utf8');

describe('JUnit XML parser', () => {
  it('reads a pytest report: statuses by the uploader mapping, times in ms, messages and output escaped', () => {
    const tests = parseJUnitXml(fixture('pytest.xml'));
    expect(tests.map((t) => [t.name, t.status, t.timeTaken])).toEqual([
      ['test_shop001_total_includes_vat', 'passed', 12],
      ['test_totals[SHOP-002-eu]', 'failed', 731],
      ['test_shop003_card_declined', 'skipped', 0],
      ['test_shop004_refund', 'blocked', 2],
      ['test_health_endpoint', 'passed', 105],
    ]);
    const failed = tests[1].comment;
    expect(failed).toContain('<pre><code>def test_totals(region):');
    expect(failed).toContain('&gt;       assert cart.total() == Decimal(&quot;12.10&quot;)');
    expect(failed).toContain(
      '<h4>Output (stdout):</h4><pre><code>computed total for region=eu &lt;cart id=7&gt;</code></pre>',
    );
    // The message is already in the text: not repeated.
    expect(failed.match(/AssertionError: assert Decimal/g)).toHaveLength(1);
    expect(failed).not.toContain('<p>');
    expect(tests[2].comment).toBe(
      '<pre><code>tests/test_payment.py:12: payment sandbox unavailable</code></pre>',
    );
    expect(tests[0].comment).toBe('');
  });

  it('reads a bare Surefire <testsuite>: CDATA, unicode, a message only in the attribute, nameless setup failures left out', () => {
    const tests = parseJUnitXml(fixture('surefire.xml'));
    expect(tests.map((t) => t.name)).toEqual([
      'testShop005Refund',
      'testRefundRejectedShop006',
      'SHOP-007 ships to Åland',
      'testSomethingUnmarked',
    ]);
    expect(tests[1].timeTaken).toBe(1_204_500);
    expect(tests[2].comment).toBe(
      '<pre><code>org.opentest4j.AssertionFailedError: expected: &lt;2&gt; but was: &lt;3&gt;\n' +
        '\tat org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)\n' +
        '\tat com.acme.shop.CheckoutTest.shipsToAland(CheckoutTest.java:88)</code></pre>' +
        '<h4>Output (stdout):</h4><pre><code>shipping zone: ÅX &amp; &lt;island&gt;</code></pre>' +
        '<h4>Output (stderr):</h4><pre><code>WARN rate table stale</code></pre>',
    );
    expect(tests[3]).toMatchObject({
      status: 'skipped',
      comment: '<p>@Disabled: flaky on CI</p>',
      timeTaken: 0,
    });
  });

  it('reads suites nested in suites, in file order', () => {
    const tests = parseJUnitXml(fixture('nested.xml'));
    expect(tests.map((t) => [t.name, t.status, t.timeTaken])).toEqual([
      ['SHOP-011 pays by invoice', 'passed', 3500],
      ['SHOP-012 keeps the cart', 'passed', 250],
      ['SHOP-011 pays by invoice', 'failed', 4000],
    ]);
    expect(tests[2].comment).toBe('<p>timeout after 4000 ms</p>');
  });

  it('refuses a DOCTYPE (entity expansion) before reading any entity', () => {
    expect(() => parseJUnitXml(fixture('entity-bomb.xml'))).toThrow(/DOCTYPE declarations are refused/);
  });

  it('refuses a truncated file, another root element and an empty text', () => {
    expect(() => parseJUnitXml(fixture('truncated.xml'))).toThrow(XmlFileError);
    expect(() => parseJUnitXml(fixture('truncated.xml'))).toThrow(/^malformed XML: /);
    expect(() => parseJUnitXml('<results><testcase name="x"/></results>')).toThrow(
      /root element is <results>, not <testsuites> or <testsuite>/,
    );
    expect(() => parseJUnitXml('')).toThrow(XmlFileError);
    expect(() => parseJUnitXml('<testsuite><testcase name="a &bogus; b"/></testsuite>')).toThrow(
      /malformed XML/,
    );
  });

  it('cuts a huge output, saying so, so the comment stays bounded', () => {
    const out = 'x<'.repeat(200_000);
    const [t] = parseJUnitXml(
      `<testsuite><testcase name="SHOP-001"><system-out>${out.replace(/</g, '&lt;')}</system-out></testcase></testsuite>`,
    );
    expect(t.comment.length).toBeLessThan(60 * 1024);
    expect(t.comment).toContain('… (truncated)</code></pre>');
  });
});

describe('markers (the uploader rules)', () => {
  it.each([
    ['SHOP-001 adds an item', 1],
    ['adds an item shop-042', 42],
    ['Cart [Shop-1234] totals', 1234],
    ['test_shop007_total', 7],
    ['test_totals_SHOP123', 123],
    ['TestShop005Refund', 5],
    ['testRefundRejectedShop006', 6],
  ])('finds the seq in "%s"', (name, seq) => {
    expect(markerSeq(name, 'SHOP')).toBe(seq);
  });

  it.each([
    'SHOP-01 two digits',
    'shop007_total (no test prefix)',
    'test_shopping001',
    'OTHER-001 other project',
    'testShop005refund',
  ])('finds none in "%s"', (name) => {
    expect(markerSeq(name, 'SHOP')).toBeUndefined();
  });
});
