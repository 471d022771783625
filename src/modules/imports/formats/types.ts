/**
 * What every import format's parser produces: one test case per row, in the file's order, with text still in
 * the format's own markup (`markup` says which), so one pipeline (src/modules/imports/) validates, converts to
 * the stored HTML and writes them whatever the source was. Parsers never touch the database.
 */
export interface ImportedStep {
  description: string;
  expected: string;
  /**
   * A shared step instead of description and expected: one of the project's by id, or a block to find by its
   * title (or create) with its sub-steps.
   */
  shared?: { id: number } | { title: string; subSteps: ImportedStep[] };
}

/** A row that names only a folder (QA Sphere writes one for an empty folder or a folder's comment). */
export interface ImportedFolder {
  row: number;
  folderPath: string[];
  /** In the case's markup; absent leaves an existing folder's comment as it is. */
  comment?: string;
}

export interface ImportedCase {
  /** 1-based row (CSV line of the record's start, XML case ordinal) reported back with each error. */
  row: number;
  /** Folder path from the root, one name per element ([] means "the folder imported under"). */
  folderPath: string[];
  title: string;
  /** The source's id, kept as the case's legacy id; a later import of the same id updates that case. */
  legacyId?: string;
  priority?: string;
  tags?: string[];
  /** Requirements and links, each as text and URL (either may be empty, never both). */
  requirements?: { text: string; url: string }[];
  links?: { text: string; url: string }[];
  precondition?: string;
  steps?: ImportedStep[];
  draft?: boolean;
  /** QA Sphere's case type column (standalone / template); absent means standalone. */
  type?: string;
  parameterValues?: Record<string, string>[];
  templateSuffixParams?: string[];
  /** QA Sphere's Files column: the files as another service lists them (its ids and URLs); absent: no such column. */
  files?: { fileName: string; id: string; url: string }[];
  /** Custom field values by the field's system name (text, or the dropdown option's text). */
  customFields?: Record<string, string>;
  /** How precondition, steps and expected are written: Markdown (QA Sphere), HTML, or plain text. */
  markup: 'markdown' | 'html' | 'text';
}

/** A row the parser could not read at all (the pipeline adds these to the import's errors). */
export interface RowError {
  row: number;
  field?: string;
  message: string;
}

/**
 * A parser yields cases, folder rows, row errors and warnings (what a row holds that is kept elsewhere or left
 * out) as it reads; it throws only when the file as a whole is unreadable.
 */
export type ParsedItem =
  { case: ImportedCase } | { folder: ImportedFolder } | { error: RowError } | { warning: RowError };
