import { readXml, XmlFileError } from '../../../lib/xml.js';
import { MAX_TIME_TAKEN } from '../results/results.schemas.js';

/** One <testcase> of a JUnit XML report, as the result it becomes. */
export interface JUnitTest {
  name: string;
  classname: string;
  /** The official uploader's mapping: error → blocked, failure → failed, skipped → skipped, else passed. */
  status: 'passed' | 'failed' | 'blocked' | 'skipped';
  /** HTML: the outcome's message and text, then stdout and stderr, each escaped inside <pre><code>. */
  comment: string;
  /** Milliseconds from the `time` attribute (seconds); null when absent or not a number. */
  timeTaken: number | null;
}

/** A section of a comment holds at most this much HTML, so a comment stays far below the HTML field limit. */
const SECTION_BUDGET = 48 * 1024;
const OUTCOMES = ['error', 'failure', 'skipped'] as const;
type Outcome = (typeof OUTCOMES)[number];
const STATUS_OF: Record<Outcome, JUnitTest['status']> = {
  error: 'blocked',
  failure: 'failed',
  skipped: 'skipped',
};
const TEXT_PARTS = new Set(['failure', 'error', 'skipped', 'system-out', 'system-err']);

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Escaped text, cut (and said to be) when its HTML would exceed the budget. */
function escapedWithin(text: string, budget: number): string {
  let cut = text;
  let html = escapeHtml(cut);
  while (html.length > budget) {
    cut = cut.slice(0, Math.floor((cut.length * budget) / html.length) - 32);
    html = `${escapeHtml(cut)}\n… (truncated)`;
  }
  return html;
}

interface OpenCase {
  name: string;
  classname: string;
  time: string | undefined;
  outcome: { kind: Outcome; message: string; text: string } | undefined;
  out: string;
  err: string;
}

function commentOf(c: OpenCase): string {
  const parts: string[] = [];
  const block = (text: string) => `<pre><code>${escapedWithin(text, SECTION_BUDGET)}</code></pre>`;
  if (c.outcome) {
    const message = c.outcome.message.trim();
    const text = c.outcome.text.trim();
    if (message && !text.includes(message)) parts.push(`<p>${escapedWithin(message, SECTION_BUDGET)}</p>`);
    if (text) parts.push(block(text));
  }
  if (c.out.trim()) parts.push('<h4>Output (stdout):</h4>', block(c.out.trim()));
  if (c.err.trim()) parts.push('<h4>Output (stderr):</h4>', block(c.err.trim()));
  return parts.join('');
}

function timeOf(time: string | undefined): number | null {
  if (time === undefined) return null;
  // Some runners write thousands separators (`1,234.5`).
  const seconds = Number(time.replace(/,/g, ''));
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  return Math.min(Math.round(seconds * 1000), MAX_TIME_TAKEN);
}

/**
 * Reads a JUnit XML report (the forms pytest, Maven Surefire, Jest's jest-junit, Playwright and others write:
 * <testsuites> or a bare <testsuite> at the root, suites nested in suites) into its test cases, in file order.
 * A test case with no name is a suite's setup or teardown failure (Surefire), not a test: it is left out, as
 * the official uploader leaves it out of the results. Throws XmlFileError for anything that is not such a file.
 */
export function parseJUnitXml(text: string): JUnitTest[] {
  const tests: JUnitTest[] = [];
  const stack: string[] = [];
  let current: OpenCase | undefined;
  // The element whose text is being collected inside the current test case, and its text so far.
  let collecting: string | undefined;
  let collected = '';
  readXml(text, {
    open(name, attributes) {
      if (stack.length === 0 && name !== 'testsuites' && name !== 'testsuite') {
        throw new XmlFileError(
          `not a JUnit XML report: the root element is <${name}>, not <testsuites> or <testsuite>`,
        );
      }
      stack.push(name);
      if (name === 'testcase') {
        if (current) throw new XmlFileError('malformed JUnit XML: a <testcase> inside a <testcase>');
        current = {
          name: (attributes.name ?? '').trim(),
          classname: (attributes.classname ?? '').trim(),
          time: attributes.time,
          outcome: undefined,
          out: '',
          err: '',
        };
      } else if (
        current &&
        stack.length >= 2 &&
        stack[stack.length - 2] === 'testcase' &&
        TEXT_PARTS.has(name)
      ) {
        collecting = name;
        collected = '';
        const kind = OUTCOMES.find((o) => o === name);
        // The first outcome that ranks higher wins (error over failure over skipped), as in the uploader.
        if (kind && (!current.outcome || OUTCOMES.indexOf(kind) < OUTCOMES.indexOf(current.outcome.kind))) {
          current.outcome = { kind, message: attributes.message ?? '', text: '' };
        }
      }
    },
    text(t) {
      // Beyond twice the budget the text is cut anyway: memory stays bounded whatever a test printed.
      if (collecting && collected.length < SECTION_BUDGET * 2) collected += t;
    },
    close(name) {
      stack.pop();
      if (current && collecting === name) {
        if (name === 'system-out') current.out += collected;
        else if (name === 'system-err') current.err += collected;
        else if (current.outcome?.kind === name && !current.outcome.text) current.outcome.text = collected;
        collecting = undefined;
      } else if (name === 'testcase' && current) {
        if (current.name !== '') {
          tests.push({
            name: current.name,
            classname: current.classname,
            status: current.outcome ? STATUS_OF[current.outcome.kind] : 'passed',
            comment: commentOf(current),
            timeTaken: timeOf(current.time),
          });
        }
        current = undefined;
      }
    },
  });
  return tests;
}
