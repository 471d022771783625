import { Type, type Static } from 'typebox';
import { ProjectParams } from '../../http/schemas.js';
import { FORMATS, IMPORT_FORMATS, type ImportFormat as ImportFormatId } from './formats/formats.js';

/** The import formats (formats/formats.ts), one literal each, so clients get the union from the OpenAPI document. */
export const ImportFormat = Type.Unsafe<ImportFormatId>(
  Type.Union(
    IMPORT_FORMATS.map((f) => Type.Literal(f)),
    { description: IMPORT_FORMATS.map((f) => `${f}: ${FORMATS[f].label}`).join('; ') },
  ),
);
const mappedFormats = IMPORT_FORMATS.filter((f) => FORMATS[f].mapping).join(' and ');
const withUnit = (unit: 'case' | 'row') =>
  IMPORT_FORMATS.filter((f) => FORMATS[f].rowUnit === unit).join(', ');
const withoutSeparator = IMPORT_FORMATS.filter((f) => FORMATS[f].separator === 'none').join(', ');

/** POST /project/{p}/import: a multipart body; validated part by part in the service, documented here. */
export const ImportBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file to import' }),
  format: ImportFormat,
  mapping: Type.Optional(
    Type.String({
      description: `${mappedFormats} only, JSON: {column header: field}; fields title, folder, priority, tags, precondition, steps, expected, legacyId, customField:<systemName>, or skip; a field may be {field, values?: {file value: Casebook value}, separator?} (values for priority and custom fields, separator for folder and tags)`,
    }),
  ),
  separator: Type.Optional(
    Type.String({
      description: `, ; or tab; guessed from the header row when absent; not for ${withoutSeparator}`,
    }),
  ),
  folderId: Type.Optional(
    Type.String({ description: 'import under this folder (paths of the file below it)' }),
  ),
  dryRun: Type.Optional(Type.String({ description: 'true: check and count, write nothing' })),
  customFields: Type.Optional(
    Type.String({
      description:
        'JSON: {<key in the file>: {action: create | map | skip, fieldId? (map), type? (create: text | dropdown | checkbox | richtext), name? (create)}}. A key without an entry: created (type guessed) for an admin, else left out; a warning says so either way',
    }),
  ),
  skipInvalid: Type.Optional(
    Type.String({ description: 'true: import the good rows of a file with bad ones' }),
  ),
});

export const ImportStarted = Type.Object({ id: Type.Integer() });

export const ImportParams = Type.Object({
  ...ProjectParams.properties,
  id: Type.Integer({ minimum: 1 }),
});
export type ImportParams = Static<typeof ImportParams>;

export const ImportError = Type.Object({
  row: Type.Integer({
    description: `the CSV line the record starts on (for ${withUnit('case')}: the case's ordinal in the file; for ${withUnit('row')}: the sheet's row); 0 for the file as a whole`,
  }),
  field: Type.Optional(Type.String()),
  message: Type.String(),
});

const ReconciliationCount = Type.Object({
  inFile: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  leftOut: Type.Integer(),
});

export const ImportStatusQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Literal('csv', {
        description: 'csv: the reconciliation as CSV (kind,inFile,created,updated,leftOut)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportStatusQuery = Static<typeof ImportStatusQuery>;

export const ImportStatus = Type.Object({
  id: Type.Integer(),
  format: ImportFormat,
  dryRun: Type.Boolean(),
  status: Type.Enum(['queued', 'running', 'done', 'failed']),
  progress: Type.Object({
    done: Type.Integer({ description: 'rows written (or checked, on a dry run)' }),
    total: Type.Integer({ description: 'rows of the file, known once it has been checked; 0 before' }),
  }),
  created: Type.Integer({
    description:
      'rows created (would be, on a dry run): standalone and template cases; a template counts once, the filled cases its Parameter Values make are not counted',
  }),
  updated: Type.Integer({
    description:
      'rows whose case a matching legacy id changed; a template counts once, also when only its filled cases changed. On a dry run: every valid row whose legacy id matches a case (contents are not compared, so the import may leave some of them as they are)',
  }),
  skipped: Type.Integer({ description: 'rows not imported' }),
  errors: Type.Array(ImportError),
  warnings: Type.Array(ImportError, {
    description:
      'what rows held that the import could not keep as it was, such as files of another service (kept as links)',
  }),
  reconciliation: Type.Record(Type.String(), ReconciliationCount, {
    description:
      'per kind (folders, cases, steps, customValues, requirements, links, files): how many the file held, the import created, changed and left out (the reasons are in warnings and errors); the rest were there already as the file has them. All 0 until the import ends',
  }),
  createdAt: Type.String(),
  finishedAt: Type.Optional(Type.String()),
});
export type ImportStatus = Static<typeof ImportStatus>;

export const ExportQuery = Type.Object(
  {
    format: Type.Union([Type.Literal('qasphere-csv'), Type.Literal('casebook')], {
      description:
        "qasphere-csv: QA Sphere's CSV layout of the test cases; casebook: the whole project as a Casebook archive (admins)",
    }),
    raw: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "qasphere-csv: true writes text exactly, without the leading ' that keeps a spreadsheet from running a cell as a formula",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExportQuery = Static<typeof ExportQuery>;

export const ExportCsv = {
  description: "the project's test cases in QA Sphere's CSV layout (UTF-8), streamed",
  content: { 'text/csv': { schema: Type.String() } },
};

/** POST /project/{p}/import/preview: an .xlsx file, documented here, read part by part in the service. */
export const PreviewBody = Type.Object({
  file: Type.String({
    format: 'binary',
    description: 'the file: its first rows (xlsx) and the custom fields it carries',
  }),
  format: Type.Optional(
    Type.String({
      description: 'the import format to read it as (default xlsx); any format lists its custom fields',
    }),
  ),
  separator: Type.Optional(Type.String({ description: ', ; or tab (CSV formats; guessed when absent)' })),
  mapping: Type.Optional(
    Type.String({ description: 'csv and xlsx: the mapping, JSON, whose customField:<name> columns to list' }),
  ),
});

const PreviewField = Type.Object({
  key: Type.String({ description: 'the custom field as the file names it' }),
  fieldId: Type.Union([Type.String(), Type.Null()], {
    description: "the tenant's field of that system name, or null",
  }),
  action: Type.Enum(['create', 'map', 'skip'], {
    description: 'what the import does without a choice: map (into fieldId), create (admins), skip (others)',
  }),
  guessedType: Type.Enum(['text', 'dropdown', 'checkbox', 'richtext']),
  name: Type.String({ description: 'the name a created field gets (or the existing field has)' }),
  values: Type.Array(Type.String(), { description: 'distinct values seen, first 50' }),
  count: Type.Integer({ description: 'values in the file' }),
});

export const ImportPreview = Type.Object({
  headers: Type.Array(Type.String(), { description: "the first worksheet's first row" }),
  rows: Type.Array(Type.Array(Type.String()), {
    description: 'the next rows (at most 5, blank rows skipped), each cell as the import reads it',
  }),
  lines: Type.Array(Type.Integer(), { description: "each row's number in the sheet" }),
  customFields: Type.Array(PreviewField, {
    description: 'the custom fields the file carries (extensions.md §7a)',
  }),
});
