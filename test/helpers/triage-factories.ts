/** What the triage tests (src/modules/triage, src/modules/runs/failures) record as failures. */

/** A Playwright timeout on a selector, as an uploader writes it: the message in a paragraph, the rest in a block. */
export const timeout = (selector: string, ms = 30000) =>
  `<p>Error: locator.click: Timeout ${ms}ms exceeded.</p><pre><code>Call log:\n  - waiting for locator('${selector}')</code></pre>`;
