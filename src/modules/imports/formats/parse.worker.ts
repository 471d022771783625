import type { Readable } from 'node:stream';
import { serveIsolated } from '../../../lib/isolated/serve.js';
import { XmlFileError } from '../../../lib/xml.js';
import { UnreadableFile } from './csv-read.js';
import { FORMATS, type ParseOptions } from './formats.js';
import { JsonFileError } from './qase-json.js';
import { CsvFileError } from './testrail-csv.js';
import type { ParsedItem } from './types.js';
import { checkXlsx, readXlsx } from './xlsx-read.js';

/*
 * The worker thread that reads an uploaded import file (imports.parsing.ts starts it): every format's parser
 * (formats.ts names it) runs here, under the heap and time budget of lib/isolated, never on the service's own thread.
 */

export type { ParseOptions };

async function* items(stream: Readable, o: ParseOptions): AsyncGenerator<ParsedItem> {
  try {
    yield* FORMATS[o.format].parse(stream, o);
  } catch (err) {
    // The XML, JSON and TestRail CSV parsers name a file they cannot read as a whole in their own terms: the
    // import's is one.
    if (err instanceof XmlFileError || err instanceof CsvFileError || err instanceof JsonFileError)
      throw new UnreadableFile(err.message);
    throw err;
  }
}

serveIsolated({
  items: (input, options) => items(input, options as ParseOptions),
  // An .xlsx is inflated once into nothing before anything reads it: a zip bomb stops here.
  'xlsx-check': async function* (input) {
    await checkXlsx(input);
    yield* [];
  },
  'xlsx-rows': (input) => readXlsx(input),
});
