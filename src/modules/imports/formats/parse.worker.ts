import type { Readable } from 'node:stream';
import { serveIsolated } from '../../../lib/isolated/serve.js';
import { XmlFileError } from '../../../lib/xml.js';
import { parseMapped, parseMappedCsv, type Mapping } from './csv-mapped.js';
import { UnreadableFile } from './csv-read.js';
import { parseQasphereCsv } from './qasphere-csv.js';
import { CsvFileError, parseTestRailCsv } from './testrail-csv.js';
import { parseTestRailXml } from './testrail-xml.js';
import type { ParsedItem } from './types.js';
import { checkXlsx, readXlsx } from './xlsx-read.js';

/*
 * The worker thread that reads an uploaded import file (imports.parsing.ts starts it): every format's parser runs
 * here, under the heap and time budget of lib/isolated, never on the service's own thread.
 */

export interface ParseOptions {
  format: 'qasphere-csv' | 'csv' | 'xlsx' | 'testrail-xml' | 'testrail-csv';
  separator?: string;
  mapping?: Mapping;
}

async function* items(stream: Readable, o: ParseOptions): AsyncGenerator<ParsedItem> {
  try {
    if (o.format === 'testrail-xml') yield* parseTestRailXml(stream);
    else if (o.format === 'testrail-csv') yield* parseTestRailCsv(stream, o.separator);
    else if (o.format === 'csv') yield* parseMappedCsv(stream, o.separator ?? ',', o.mapping ?? {});
    else if (o.format === 'xlsx') yield* parseMapped(readXlsx(stream), o.mapping ?? {});
    else yield* parseQasphereCsv(stream, o.separator ?? ',');
  } catch (err) {
    // TestRail's parsers name a file they cannot read as a whole in their own terms: the import's is one.
    if (err instanceof XmlFileError || err instanceof CsvFileError) throw new UnreadableFile(err.message);
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
