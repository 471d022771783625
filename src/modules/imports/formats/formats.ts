import type { Readable } from 'node:stream';
import type { Mapping } from './csv-mapped.js';
import type { ParsedItem } from './types.js';

/*
 * What the house knows about each import format, said once: its id (the `format` field), a label, whether a
 * separator applies and who decides it when none is sent, whether it needs a column mapping, what the rows of its
 * errors count, and its parser. The service, the pipeline, the routes and the parser worker read this registry;
 * nothing else compares format names. Parsers are imported when first used, so the service's thread, which reads
 * the descriptors, never loads them (they run in the parser worker, formats/parse.worker.ts).
 */

export const IMPORT_FORMATS = [
  'qasphere-csv',
  'csv',
  'xlsx',
  'testrail-xml',
  'testrail-csv',
  'qase-json',
  'testlink-xml',
  'xray-csv',
] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** What the worker passes a parser: the separator (given, or guessed by the pipeline) and the mapping. */
export interface ParseOptions {
  format: ImportFormat;
  separator?: string;
  mapping?: Mapping;
}

export interface FormatDescriptor {
  id: ImportFormat;
  label: string;
  /** What the file is, in the words of a refusal ("separator is for CSV files; testrail-xml is XML"). */
  kind: 'CSV' | 'XML' | 'JSON' | 'a workbook';
  /**
   * `guess`: a separator may be sent, else the pipeline guesses it from the header line; `parser`: may be sent,
   * else the parser decides; `none`: the file has none, and sending one is a 400.
   */
  separator: 'guess' | 'parser' | 'none';
  /** Whether the request must carry a mapping of the file's columns (and may not for the other formats). */
  mapping: boolean;
  /** What an error's `row` counts: the CSV line a record starts on, the case's ordinal, the sheet's row. */
  rowUnit: 'line' | 'case' | 'row';
  /** A zip (.xlsx) is inflated into nothing first, its guard applied, before its rows are read. */
  zipGuard: boolean;
  parse(input: Readable, o: ParseOptions): AsyncIterable<ParsedItem>;
}

const descriptors: FormatDescriptor[] = [
  {
    id: 'qasphere-csv',
    label: 'QA Sphere CSV (its export, either layout of steps)',
    kind: 'CSV',
    separator: 'guess',
    mapping: false,
    rowUnit: 'line',
    zipGuard: false,
    async *parse(input, o) {
      const { parseQasphereCsv } = await import('./qasphere-csv.js');
      yield* parseQasphereCsv(input, o.separator ?? ',');
    },
  },
  {
    id: 'csv',
    label: 'Any CSV, with a column mapping',
    kind: 'CSV',
    separator: 'guess',
    mapping: true,
    rowUnit: 'line',
    zipGuard: false,
    async *parse(input, o) {
      const { parseMappedCsv } = await import('./csv-mapped.js');
      yield* parseMappedCsv(input, o.separator ?? ',', o.mapping ?? {});
    },
  },
  {
    id: 'xlsx',
    label: 'Excel (.xlsx, its first sheet), with a column mapping',
    kind: 'a workbook',
    separator: 'none',
    mapping: true,
    rowUnit: 'row',
    zipGuard: true,
    async *parse(input, o) {
      const [{ parseMapped }, { readXlsx }] = await Promise.all([
        import('./csv-mapped.js'),
        import('./xlsx-read.js'),
      ]);
      yield* parseMapped(readXlsx(input), o.mapping ?? {});
    },
  },
  {
    id: 'testrail-xml',
    label: 'TestRail XML (a suite export)',
    kind: 'XML',
    separator: 'none',
    mapping: false,
    rowUnit: 'case',
    zipGuard: false,
    async *parse(input) {
      const { parseTestRailXml } = await import('./testrail-xml.js');
      yield* parseTestRailXml(input);
    },
  },
  {
    id: 'testrail-csv',
    label: 'TestRail CSV (a case export)',
    kind: 'CSV',
    separator: 'parser',
    mapping: false,
    rowUnit: 'line',
    zipGuard: false,
    async *parse(input, o) {
      const { parseTestRailCsv } = await import('./testrail-csv.js');
      yield* parseTestRailCsv(input, o.separator);
    },
  },
  {
    id: 'qase-json',
    label: 'Qase JSON (a project export)',
    kind: 'JSON',
    separator: 'none',
    mapping: false,
    rowUnit: 'case',
    zipGuard: false,
    async *parse(input) {
      const { parseQaseJson } = await import('./qase-json.js');
      yield* parseQaseJson(input);
    },
  },
  {
    id: 'testlink-xml',
    label: 'TestLink XML (test suites or test cases)',
    kind: 'XML',
    separator: 'none',
    mapping: false,
    rowUnit: 'case',
    zipGuard: false,
    async *parse(input) {
      const { parseTestLinkXml } = await import('./testlink-xml.js');
      yield* parseTestLinkXml(input);
    },
  },
  {
    id: 'xray-csv',
    label: "Xray CSV (its Test Case Importer's layout)",
    kind: 'CSV',
    separator: 'guess',
    mapping: false,
    rowUnit: 'line',
    zipGuard: false,
    async *parse(input, o) {
      const { parseXrayCsv } = await import('./xray-csv.js');
      yield* parseXrayCsv(input, o.separator ?? ',');
    },
  },
];

/** Every format by its id; a format listed in IMPORT_FORMATS without a descriptor fails here, at start. */
export const FORMATS: Readonly<Record<ImportFormat, FormatDescriptor>> = Object.fromEntries(
  IMPORT_FORMATS.map((id) => {
    const d = descriptors.find((x) => x.id === id);
    if (!d) throw new Error(`import format ${id} has no descriptor`);
    return [id, d];
  }),
) as Record<ImportFormat, FormatDescriptor>;

export const isImportFormat = (s: string): s is ImportFormat =>
  (IMPORT_FORMATS as readonly string[]).includes(s);
