import type { paths } from '../../api/schema';

/** The import formats, as the API's schema names them (src/modules/imports/formats/formats.ts). */
export type ImportFormat =
  paths['/api/public/v0/project/{project}/import/{id}']['get']['responses'][200]['content']['application/json']['format'];

interface FormatView {
  label: string;
  /** The file picker's `accept`. */
  accept: string;
  hint: string;
  /** Whether a separator may be chosen (the server refuses one for the others). */
  separator: boolean;
  /** Whether its columns are mapped before the import starts, and who reads the first rows to map: the page itself
   * (a CSV) or the server (a workbook, which needs exceljs). */
  mapping: 'none' | 'browser' | 'server';
  /** What an error's row counts, as the results table heads its column. */
  unit: 'Line' | 'Case' | 'Row';
  /** Whether its rows can be templates (whose filled cases the counts leave out). */
  templates: boolean;
}

const CSV = '.csv,text/csv,text/plain';
const CSV_HINT = 'A UTF-8 CSV file; , ; or tab separated.';
const XML = '.xml,application/xml,text/xml';

/**
 * What the Import page shows and sends for each format, in the order it offers them. Keyed by the schema's union,
 * so a format the API adds is a type error here until the page knows it.
 */
export const FORMATS: Record<ImportFormat, FormatView> = {
  'qasphere-csv': {
    label: 'QA Sphere CSV (its export, either layout of steps)',
    accept: CSV,
    hint: CSV_HINT,
    separator: true,
    mapping: 'none',
    unit: 'Line',
    templates: true,
  },
  csv: {
    label: 'Any CSV, with a column mapping',
    accept: CSV,
    hint: CSV_HINT,
    separator: true,
    mapping: 'browser',
    unit: 'Line',
    templates: false,
  },
  xlsx: {
    label: 'Excel (.xlsx, its first sheet), with a column mapping',
    accept: '.xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    hint: 'An Excel workbook (.xlsx); its first sheet is read, the first row naming the columns.',
    separator: false,
    mapping: 'server',
    unit: 'Row',
    templates: false,
  },
  'testrail-xml': {
    label: 'TestRail XML (a suite export)',
    accept: XML,
    hint: 'An XML file exported from TestRail.',
    separator: false,
    mapping: 'none',
    unit: 'Case',
    templates: false,
  },
  'testrail-csv': {
    label: 'TestRail CSV (a case export)',
    accept: CSV,
    hint: CSV_HINT,
    separator: true,
    mapping: 'none',
    unit: 'Line',
    templates: false,
  },
  'qase-json': {
    label: 'Qase JSON (a project export)',
    accept: '.json,application/json',
    hint: 'The JSON file Qase exports a project as.',
    separator: false,
    mapping: 'none',
    unit: 'Case',
    templates: false,
  },
  'testlink-xml': {
    label: 'TestLink XML (test suites or test cases)',
    accept: XML,
    hint: 'An XML file exported from TestLink: a project, a test suite or test cases.',
    separator: false,
    mapping: 'none',
    unit: 'Case',
    templates: false,
  },
  'xray-csv': {
    label: "Xray CSV (its Test Case Importer's layout)",
    accept: CSV,
    hint: "A CSV in the layout of Xray's Test Case Importer: a row per step, a test's rows sharing its Issue ID.",
    separator: true,
    mapping: 'none',
    unit: 'Line',
    templates: false,
  },
};

export const FORMAT_IDS = Object.keys(FORMATS) as ImportFormat[];
