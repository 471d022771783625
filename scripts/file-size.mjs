/**
 * `npm run check:size`: no hand-written source file (style sheets included) over 500 lines. A longer one usually does more than one thing;
 * split it into parts that each do one. Lists every such file with its line count and exits 1; exits 0 when there is
 * none. Reads the tree under the current directory.
 * Tests (`*.test.ts`, `*.test.tsx`) and generated files are not counted: their length says nothing about design.
 * Plain JavaScript, so it runs before anything is built.
 */
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';

const MAX_LINES = 500;

/** Where hand-written source lives. */
const ROOTS = ['src', 'web/src', 'bench', 'scripts'];
// Style sheets count too: a long one mixes concerns as a long module does.
const SOURCE = /\.(ts|tsx|mjs|js|css)$/;
const TEST = /\.test\.tsx?$/;
/** Written by tools, not by hand: `npm run web:api` writes the API client's types from the OpenAPI document. */
const GENERATED = new Set(['web/src/api/schema.d.ts']);

function* sourceFiles(dir, rel) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return;
    throw err;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const childRel = `${rel}/${entry.name}`;
    if (entry.isDirectory()) yield* sourceFiles(path.join(dir, entry.name), childRel);
    else if (entry.isFile() && SOURCE.test(entry.name) && !TEST.test(entry.name) && !GENERATED.has(childRel))
      yield childRel;
  }
}

/** Lines as an editor numbers them: a final newline ends the last line, it does not start another. */
function lineCount(text) {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** Hand-written source files under `root` longer than `max` lines, longest first, with their line counts. */
function oversizedFiles(root, max = MAX_LINES) {
  const found = [];
  for (const base of ROOTS) {
    for (const file of sourceFiles(path.join(root, base), base)) {
      const lines = lineCount(fs.readFileSync(path.join(root, file), 'utf8'));
      if (lines > max) found.push({ file, lines });
    }
  }
  return found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

const found = oversizedFiles(process.cwd());
if (found.length === 0) {
  process.stdout.write(`No hand-written source file is over ${MAX_LINES} lines.\n`);
} else {
  process.stderr.write(
    `${found.length} hand-written source file(s) over ${MAX_LINES} lines; split each into parts that each do one thing:\n` +
      found.map(({ file, lines }) => `  ${file}: ${lines} lines\n`).join(''),
  );
  process.exitCode = 1;
}
