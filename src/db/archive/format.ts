/*
 * The Casebook archive (docs/archive-format.md): gzip-compressed NDJSON, one record a line, each with its kind in
 * `t`. The first line is the header (format name and version), the last the end record with the count of each
 * kind, so a truncated archive is told from a whole one. Records refer to each other by archive numbers (the
 * 1-based rank of the record among its kind), test cases by their seq, people by e-mail.
 */

export const ARCHIVE_FORMAT = 'casebook-archive';
export const ARCHIVE_VERSION = 1;

/** Raw bytes of a file per `fileData` record (base64 in the line). */
export const FILE_CHUNK_BYTES = 192 * 1024;

/** A stored file address inside archived HTML: `casebook-file:<archive number>`. */
export const FILE_REF_SCHEME = 'casebook-file:';

/**
 * Field types the reader checks: s string, n integer, b 0 | 1, j JSON array or object, e an e-mail or null
 * (a person), r an archive number of an earlier record (of the kind after the colon), q a test case's seq;
 * a trailing `?` allows null; `??` also allows the field to be absent, for fields added after version 1 of the
 * format (an archive written before them reads as null).
 */
type FieldType = string;

/** Every record kind in the order an archive holds them, with its fields. */
export const RECORDS: Record<string, Record<string, FieldType>> = {
  person: { email: 's', name: 's' },
  project: {
    code: 's',
    title: 's',
    overviewTitle: 's',
    overviewDescription: 's',
    links: 'j',
    nextTcaseSeq: 'n',
    createdBy: 'e',
    createdAt: 's',
    updatedAt: 's',
    archivedAt: 's?',
  },
  member: { user: 'e', createdAt: 's' },
  customField: {
    systemName: 's',
    type: 's',
    name: 's',
    required: 'b',
    enabled: 'b',
    options: 'j?',
    defaultValue: 's?',
    allowAllProjects: 'b',
  },
  status: { id: 's', name: 's', color: 's', isActive: 'b' },
  folder: {
    parent: 'n',
    title: 's',
    comment: 's',
    pos: 'n',
    createdAt: 's',
    updatedAt: 's',
    deletedAt: 's?',
  },
  tag: { title: 's', createdAt: 's' },
  milestone: { title: 's', createdAt: 's', updatedAt: 's', archivedAt: 's?' },
  configuration: { title: 's', createdAt: 's', updatedAt: 's' },
  requirement: { text: 's', url: 's', createdAt: 's' },
  file: { fileName: 's', mimeType: 's', size: 'n', sha256: 's', uploadedBy: 'e', createdAt: 's' },
  fileData: { file: 'r:file', data: 's' },
  sharedStep: { title: 's', version: 'n', createdAt: 's', updatedAt: 's', deletedAt: 's?' },
  sharedStepVersion: { sharedStep: 'r:sharedStep', version: 'n', title: 's', createdAt: 's' },
  sharedSubStep: { sharedStep: 'r:sharedStep', version: 'n', pos: 'n', description: 's', expected: 's' },
  sharedPrecondition: { title: 's', version: 'n', createdAt: 's', updatedAt: 's', deletedAt: 's?' },
  sharedPreconditionVersion: {
    sharedPrecondition: 'r:sharedPrecondition',
    version: 'n',
    title: 's',
    text: 's',
    createdAt: 's',
  },
  tcase: {
    seq: 'n',
    legacyId: 's',
    type: 's',
    folder: 'r:folder',
    pos: 'n',
    isDraft: 'b',
    template: 'n?',
    version: 'n',
    title: 's',
    priority: 's',
    author: 'e',
    createdAt: 's',
    updatedAt: 's',
    deletedAt: 's?',
  },
  step: { tcase: 'q', description: 's', expected: 's', createdAt: 's' },
  precondition: { tcase: 'q', text: 's', createdAt: 's' },
  tcaseVersion: {
    tcase: 'q',
    version: 'n',
    title: 's',
    priority: 's',
    comment: 's',
    isEmpty: 'b',
    precondition: 'j',
    steps: 'j',
    tags: 'j',
    requirements: 'j',
    links: 'j',
    customFields: 'j',
    files: 'j',
    templateData: 'j',
    author: 'e',
    createdAt: 's',
  },
  tcaseTag: { tcase: 'q', tag: 'r:tag' },
  tcaseCustomValue: { tcase: 'q', field: 's', value: 's' },
  tcaseRequirement: { tcase: 'q', requirement: 'r:requirement' },
  tcaseSharedStep: { tcase: 'q', sharedStep: 'r:sharedStep' },
  tcaseSharedPrecondition: { tcase: 'q', sharedPrecondition: 'r:sharedPrecondition' },
  plan: {
    title: 's',
    description: 's',
    milestone: 'r:milestone?',
    createdBy: 'e',
    createdAt: 's',
    updatedAt: 's',
  },
  run: {
    type: 's',
    title: 's',
    description: 's',
    plan: 'r:plan?',
    milestone: 'r:milestone?',
    assignee: 'e',
    configuration: 'r:configuration?',
    isAutomated: 'b',
    timeSpent: 'n?',
    queryPlans: 'j',
    createdBy: 'e',
    createdAt: 's',
    updatedAt: 's',
    closedAt: 's?',
    closedBy: 'e',
    membershipVersion: 'n',
    counts: 'j',
    dueAt: 's??',
  },
  result: {
    run: 'r:run',
    tcase: 'q',
    tcaseVersion: 'n',
    status: 's',
    comment: 's',
    timeTaken: 'n?',
    author: 'e',
    internal: 'b',
    createdAt: 's',
  },
  resultLink: {
    result: 'r:result',
    url: 's',
    text: 's',
    meta: 'j',
    commentStatus: 's?',
    commentId: 's?',
    commentError: 's?',
    commentAt: 's?',
  },
  /** A file a result names (extensions.md §8), added after version 1's first kinds: older archives hold none. */
  resultFile: { result: 'r:result', file: 'r:file', position: 'n' },
  runTcase: {
    run: 'r:run',
    tcase: 'q',
    status: 's',
    isAutomated: 'b',
    version: 'n?',
    inRun: 'b',
    frozenFolder: 'r:folder?',
    frozenPos: 'n?',
    latestResult: 'r:result?',
    updatedAt: 's',
    dueAt: 's??',
  },
  runLog: { run: 'r:run', comment: 's', author: 'e', createdAt: 's' },
  /** A failure signature marked known in the project (failure triage); the results' signatures are made again. */
  knownFailure: { signature: 's', label: 's', run: 'r:run?', markedBy: 'e', note: 's', markedAt: 's' },
};

export type RecordKind = keyof typeof RECORDS;
export type ArchiveRecord = { t: string } & Record<string, unknown>;

export interface ArchiveHeader {
  t: 'archive';
  format: typeof ARCHIVE_FORMAT;
  formatVersion: number;
  exportedAt: string;
  project: string;
}

export interface ArchiveEnd {
  t: 'end';
  counts: Record<string, number>;
}

/** The run counters in the archive: status → count (cnt_<status> columns of `runs`). */
export const RUN_COUNTERS = [
  'open',
  'passed',
  'failed',
  'blocked',
  'skipped',
  'custom1',
  'custom2',
  'custom3',
  'custom4',
] as const;

/** File addresses in HTML: absolute (any host) or relative, `…/api/public/v0/file/<id>`. */
export const FILE_URL = /(?:https?:\/\/[^\s"'<>/]+)?\/api\/public\/v0\/file\/([A-Za-z0-9_-]+)/g;

/** Archived file references back to stored file addresses. */
export const FILE_REF = /casebook-file:(\d+)/g;
