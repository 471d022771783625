import { createHash } from 'node:crypto';

/*
 * Failure signatures (docs/api-decisions.md#failure-triage): what a failed or blocked result failed with, reduced to
 * a stable hash so that the same problem seen again — another run, another case, another machine, another time —
 * gets the same signature. Deterministic and local: regular expressions over the result's comment HTML, no model.
 *
 * Here in lib/ rather than in modules/triage/: the runs module signs results as it writes them, and the triage
 * module reads runs; a module folder may not reach back to itself (npm run depcheck), and this needs no module.
 */

/** A failure's signature and its short human label (the normalised message's first line). */
export interface FailureSignature {
  /** 32 hex characters (the first 128 bits of a SHA-256 of the normalised message and frame). */
  signature: string;
  label: string;
}

/**
 * The version of what is signed: raised whenever a change here gives a failure another signature, so that the
 * backfill (runs/failures/) re-signs what older versions stored and old and new failures keep grouping together.
 * 2: the labelled corpus's changes (title lines, pytest summaries, absolute paths, the marked statement, the first
 * frame when none is the test's own, class-loader prefixes of Java frames).
 */
export const SIGNATURE_VERSION = 2;

/** The status ids whose results are signed (the built-in failure kinds). */
export const SIGNED_STATUSES: readonly string[] = ['failed', 'blocked'];

/** A label is cut to this many characters. */
const LABEL_MAX = 200;
/** Only this much of a comment is read: a message and its stack sit at the top, output after. */
const READ_MAX = 16 * 1024;
/** The message lines kept besides the first: the ones that name what was waited for. */
const TARGET_LINE = /^(?:-\s*)?(?:waiting for\b|locator:|selector:|element:)/i;
/** The label of a failure whose comment carries no message. */
export const NO_MESSAGE = '(no message)';

// eslint-disable-next-line no-control-regex -- the escape character is what an ANSI colour starts with
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

/**
 * The comment HTML as text lines: block elements end lines; the runner's captured output (the JUnit endpoint's
 * "Output (stdout):" / "(stderr):" sections, after a heading) is left out — it is not the failure.
 */
export function commentLines(html: string): string[] {
  let s = html.length > READ_MAX ? html.slice(0, READ_MAX) : html;
  const output = s.search(/<h[1-6][^>]*>\s*(?:output|stdout|stderr|standard output|system-out)/i);
  if (output >= 0) s = s.slice(0, output);
  s = s
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(?:p|div|pre|li|ul|ol|h[1-6]|tr|table|blockquote)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '');
  // ANSI colours, which runners leave in their messages.
  s = decodeEntities(s).replace(ANSI, '');
  return s.split(/\r?\n/).map((l) => l.replace(/\s+$/, ''));
}

// ---- stack frames ----

/** A stack frame: its file, reduced to the last two path parts (machines differ in where). */
interface Frame {
  file: string;
  /** `false` for a frame of a dependency, the runtime or the test framework. */
  own: boolean;
}

const JS_FRAME = /^\s*(?:at\s+(?:.*?\s\()?|❯\s+|→\s+)((?:file:\/\/)?[^\s()]+?):\d+(?::\d+)?\)?\s*$/;
const JAVA_FRAME = /^\s*at\s+([\w$.<>/-]+)\.[\w$<>-]+\(([^)]*)\)(?:\s+in\s+.*)?\s*$/;
const DOTNET_FRAME = /^\s*at\s+([\w$.<>`[\],]+)\.[\w$<>`]+\(.*\)\s+in\s+(.+?):line\s+\d+\s*$/;
const PY_FILE_FRAME = /^\s*File\s+"([^"]+)",\s+line\s+\d+/;
const PY_PYTEST_FRAME = /^([^\s:][^:]*\.py):\d+:\s/;

/** Frames that are not the test's own code: dependencies, the runtime, the test framework. */
const FOREIGN_FILE =
  /node_modules|^node:|^internal\/|\(native\)|<anonymous>|site-packages|dist-packages|\/lib\/python\d|_pytest\/|pluggy\/|\/usr\/lib\//;
const FOREIGN_CLASS =
  /^(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|org\.junit|junit|org\.opentest4j|org\.testng|org\.apache\.maven|org\.gradle|org\.assertj|org\.hamcrest|org\.mockito|org\.springframework|org\.spockframework|groovy|org\.codehaus\.groovy|com\.intellij|io\.cucumber|System|Microsoft|NUnit|Xunit|xunit)\./;

const lastParts = (path: string): string => {
  const parts = path
    .replace(/^file:\/\//, '')
    .split(/[\\/]+/)
    .filter(Boolean);
  // A number standing alone in a folder's name is a build's (`ci-48213`, `app_PR-4691`); in a name it stays (`flow2`).
  return parts
    .slice(-2)
    .join('/')
    .replace(/(?<![A-Za-z0-9])\d+(?![A-Za-z0-9])/g, '<n>');
};

/** A line as a frame, `null` when it is not one. */
function frameOf(line: string): Frame | null {
  let m = DOTNET_FRAME.exec(line);
  if (m) return { file: lastParts(m[2]), own: !FOREIGN_CLASS.test(`${m[1]}.`) };
  m = JAVA_FRAME.exec(line);
  if (m) {
    // A class loader or module in front of the class (`app//org.junit…`, `java.base/java.lang…`) is not its name.
    m[1] = m[1].replace(/^.*\//, '');
    const own = !FOREIGN_CLASS.test(`${m[1]}.`) && !/^(?:Native Method|Unknown Source)$/.test(m[2]);
    // The class, without inner-class or lambda suffixes, names the file.
    return { file: m[1].replace(/\$.*$/, ''), own };
  }
  m = JS_FRAME.exec(line);
  if (m) return { file: lastParts(m[1]), own: !FOREIGN_FILE.test(m[1]) };
  m = PY_FILE_FRAME.exec(line) ?? PY_PYTEST_FRAME.exec(line);
  if (m) return { file: lastParts(m[1]), own: !FOREIGN_FILE.test(m[1]) };
  return null;
}

// ---- the message ----

/** The first line of a failure: an error, an exception, an assertion, a timeout. */
const ERROR_LINE =
  /^\s*(?:[\w$.]*(?:Error|Exception|Failure|Failed|Fault|Timeout)\b|Error:|expect\(|assert(?:ion)?\b|Expected\b|Timed out\b|Timeout\b|[\w.]+: Timeout\b)/i;
/** A line of a source excerpt that runners print (`> 12 |   await …`, `   |   ^`). */
const EXCERPT_LINE = /^\s*>?\s*\d*\s*\|/;
/** The excerpt's line the runner points at: Jest's `> 12 |   code`, pytest's `>       code` (before its `E` lines). */
const JEST_MARKED = /^\s*>\s*\d+\s*\|(.*)$/;
const PYTEST_MARKED = /^>\s+(\S.*)$/;
/**
 * A marked line that declares the test (`it("adds…", …)`, `def test_…`) says which test timed out, not which
 * statement failed: several tests of a file timing out alike are one problem, so it is not signed.
 */
const DECLARATION = /^\s*(?:(?:it|test|describe|context)(?:\.\w+)?\s*\(|(?:async\s+)?def\s+test)/;
/**
 * Lines that name a test or a section, not the failure: Jest's `● Suite › test`, Playwright's and RSpec's `1) …`,
 * Go's `=== RUN …` and `--- FAIL: …`, VSTest's `Failed Name [12 ms]`, and headings alone on their line
 * (`Error Message:`, `Stack Trace:`, `Original Error:`).
 */
const TITLE_LINE =
  /^\s*(?:●\s|\d+\)\s|=== (?:RUN|CONT|PAUSE|NAME)\b|--- (?:FAIL|PASS)\b|FAIL:?\s|Failed\s+\S+(?:\s*\(.*\))?\s+\[[\d.]+\s*m?s\]\s*$|[A-Za-z][\w ]*:\s*$)/;
/** pytest's short summary line, `FAILED tests/test_a.py::test_b - ConnectionError: …`: the message follows the dash. */
const PYTEST_SUMMARY = /^\s*FAILED\s+\S+\s+-\s+/;

/** The failure's message lines, its first frame (the test's own when there is one) and the excerpt line marked. */
export function messageAndFrame(lines: string[]): {
  message: string[];
  frame: Frame | undefined;
  marked: string | undefined;
} {
  lines = lines.map((l) => l.replace(PYTEST_SUMMARY, ''));
  let frame: Frame | undefined;
  let firstFrame: Frame | undefined;
  let firstFrameAt = -1;
  for (let i = 0; i < lines.length && frame === undefined; i++) {
    const f = frameOf(lines[i]);
    if (f === null) continue;
    if (firstFrameAt < 0) [firstFrameAt, firstFrame] = [i, f];
    if (f.own) frame = f;
  }
  // With no frame of its own code, where the stack starts still tells one problem from another (py4j's socket,
  // not the test's): the first frame stands in.
  frame ??= firstFrame;
  // pytest writes the failing assertion's lines with `E` in front, after the statement it marks with `>`.
  const firstE = lines.findIndex((l) => /^E(?:\s{2,}|$)/.test(l) && l.trim() !== 'E');
  if (firstE >= 0) {
    const pytest = lines.filter((l) => /^E(?:\s{2,}|$)/.test(l)).map((l) => l.slice(1).trim());
    let marked: string | undefined;
    for (let i = firstE - 1; i >= 0 && marked === undefined; i--) marked = PYTEST_MARKED.exec(lines[i])?.[1];
    return { message: pytest.filter((l) => l !== ''), frame, marked: signedExcerpt(marked) };
  }
  const end = firstFrameAt < 0 ? lines.length : firstFrameAt;
  const isTitle = (l: string) => TITLE_LINE.test(l);
  let start = lines.findIndex((l, i) => i < end && ERROR_LINE.test(l) && !isTitle(l));
  if (start < 0) start = lines.findIndex((l, i) => i < end && l.trim() !== '' && !isTitle(l));
  if (start < 0) start = lines.findIndex((l, i) => i < end && l.trim() !== '');
  let marked: string | undefined;
  for (const l of lines) if ((marked = JEST_MARKED.exec(l)?.[1]) !== undefined) break;
  if (start < 0) return { message: [], frame, marked: signedExcerpt(marked) };
  const message: string[] = [];
  for (let i = start; i < end; i++) {
    const line = lines[i].trim();
    if (line === '' || EXCERPT_LINE.test(lines[i])) continue;
    message.push(line);
  }
  return { message, frame, marked: signedExcerpt(marked) };
}

const signedExcerpt = (code: string | undefined) =>
  code === undefined || code.trim() === '' || DECLARATION.test(code) ? undefined : code.trim();

// ---- normalisation ----

const MASKS: [RegExp, string][] = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '<time>'],
  [/\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, '<time>'],
  // Temporary files and folders, on every system (before numbers, so their random parts go too).
  [
    /(?:\/tmp|\/var\/folders|\/private\/var\/folders|\/var\/tmp|[A-Za-z]:\\(?:Users\\[^\\\s]+\\AppData\\Local\\)?Te?mp)[^\s'"`)]*/gi,
    '<tmp>',
  ],
  // Other absolute paths: only the file's name (checkout folders differ between machines).
  [/(?<![\w.:/\\])(?:\/|[A-Za-z]:\\)(?:[^\s'"`:()\\/]*[\\/])+(?=[^\s'"`:()\\/])/g, ''],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Long hex runs with a digit: hashes, object ids, commit ids.
  [/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>'],
  // Quantities with their unit (30000ms, 2.5s, 512MB).
  [/(?<![A-Za-z0-9.])\d+(?:\.\d+)?(ms|s|m|h|px|b|kb|mb|gb|%)(?![A-Za-z0-9])/gi, '<n>$1'],
  // Words of six or more letters and digits with two digits or more (ord_8f3k2z91, ABC123XYZ): generated ids.
  [/(?<![A-Za-z0-9])(?=(?:[A-Za-z]*\d){2})(?=\d*[A-Za-z])[A-Za-z0-9]{6,}(?![A-Za-z0-9])/g, '<id>'],
  // Numbers, but not a digit inside a name (opentest4j, http2).
  [/(?<![A-Za-z])\d+(?:\.\d+)?(?![A-Za-z])/g, '<n>'],
];

/**
 * In what a line waited for (a selector), a short number names a thing (`#step-2`, `nth=1`), not a run: only numbers
 * of four digits or more are masked inside its quotes.
 */
const QUOTED_MASKS: [RegExp, string][] = [
  ...MASKS.slice(0, -1),
  [/(?<![A-Za-z])\d{4,}(?:\.\d+)?(?![A-Za-z])/g, '<n>'],
];
const QUOTED = /(['"`])[^'"`]*\1/g;

const mask = (s: string, masks: [RegExp, string][]) =>
  masks.reduce((out, [re, to]) => out.replace(re, to), s);

/** One message line with what changes between runs masked: ids, numbers, hex, UUIDs, temp paths, times. */
export function normaliseLine(line: string, target = false): string {
  const s = line.replace(/^Error:\s+/, '');
  if (!target) return mask(s, MASKS).replace(/\s+/g, ' ').trim();
  let out = '';
  let at = 0;
  for (const m of s.matchAll(QUOTED)) {
    out += mask(s.slice(at, m.index), MASKS) + mask(m[0], QUOTED_MASKS);
    at = m.index + m[0].length;
  }
  return (out + mask(s.slice(at), MASKS)).replace(/\s+/g, ' ').trim();
}

/** A message says what it is about itself when it names something (a quoted name, a selector); else the frame helps. */
const SPECIFIC = /(['"`]).+?\1|waiting for|locator\(|getBy\w+\(/i;

/**
 * The signature of a failure whose comment is `html`; `logs`, the run's log entries (HTML), are read when the
 * comment carries no message. The signed text is the normalised first message line, the lines naming what was
 * waited for, and — when the message names nothing itself — the file of the first frame of the test's own code.
 */
export function failureSignature(html: string, logs: readonly string[] = []): FailureSignature {
  let { message, frame, marked } = messageAndFrame(commentLines(html));
  if (message.length === 0) {
    for (const log of logs) {
      const fromLog = messageAndFrame(commentLines(log));
      if (fromLog.message.length > 0) {
        ({ message, frame, marked } = fromLog);
        break;
      }
    }
  }
  const first = message.length > 0 ? normaliseLine(message[0]) : '';
  const targets = message
    .slice(1, 20)
    .filter((l) => TARGET_LINE.test(l))
    .slice(0, 3)
    .map((l) => normaliseLine(l, true));
  const head = [first, ...targets].join('\n');
  // The statement the runner marks tells two assertions of one file apart (`expect(a).toBe(true)` failing on line 4
  // and `expect(b).toBe(false)` on line 12 are two problems); its text, not its line number, is signed.
  const where = SPECIFIC.test(head)
    ? ''
    : [frame?.file ?? '', marked ? normaliseLine(marked) : ''].join('\u0000');
  const signature = createHash('sha256').update(`${head}\u0000${where}`).digest('hex').slice(0, 32);
  const label =
    first === '' ? NO_MESSAGE : first.length > LABEL_MAX ? `${first.slice(0, LABEL_MAX - 1)}…` : first;
  return { signature, label };
}
