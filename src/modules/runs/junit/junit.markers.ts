/**
 * The official result uploader's (qas-cli `junit-upload`) rules for finding a test case's sequence number in a
 * JUnit test name, for a known project code (docs/api-decisions.md#junit-upload):
 * 1. hyphenated `PRJ-123` (3 digits or more), looked for at the start, then at the end, then anywhere;
 * and, only for names that start with "test" (function names, where a hyphen cannot be written):
 * 2. bounded by `_` or the ends: `test_prj123_total`;
 * 3. camel case right after "test": `TestPrj123Total`;
 * 4. camel case at the end: `testTotalPrj123`.
 * The code is matched in any letter case (markers are `prj-007` as well as `PRJ-007`).
 */
export function markerSeq(name: string, projectCode: string): number | undefined {
  return markerMatcher(projectCode)(name);
}

/** markerSeq for one project code, its expressions built once (a report holds thousands of names). */
export function markerMatcher(projectCode: string): (name: string) => number | undefined {
  const code = projectCode.replace(/[^A-Za-z0-9]/g, '');
  if (code === '') return () => undefined;
  const inOrder = (pattern: string, flags: string) =>
    [`^${pattern}`, `${pattern}$`, pattern].map((p) => new RegExp(p, flags));
  const hyphenated = inOrder(`${code}-(\\d{3,})`, 'i');
  const separated = inOrder(`(?:^|_)${code}(\\d{3,})(?:$|_)`, 'i');
  // Camel case: the code's letters in any case, but the word after the digits must start upper case.
  const ci = [...code]
    .map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch))
    .join('');
  const camelStart = new RegExp(`^[tT][eE][sS][tT]${ci}(\\d{3,})(?=[A-Z]|$)`);
  const camelEnd = new RegExp(`(?<=[a-z])${ci}(\\d{3,})$`);
  return (name) => {
    const found = firstOf(hyphenated, name);
    if (found !== undefined) return found;
    if (!/^test/i.test(name)) return undefined;
    return firstOf(separated, name) ?? firstOf([camelStart, camelEnd], name);
  };
}

/** The first expression that matches, in the uploader's order of preference (start, end, anywhere). */
function firstOf(expressions: RegExp[], text: string): number | undefined {
  for (const e of expressions) {
    const m = e.exec(text);
    if (m) return Number(m[1]);
  }
  return undefined;
}
