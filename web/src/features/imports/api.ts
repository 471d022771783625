import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';
import { FORMATS, type ImportFormat } from './formats';

export type ImportStatus =
  paths['/api/public/v0/project/{project}/import/{id}']['get']['responses'][200]['content']['application/json'];
export type CustomField =
  paths['/api/public/v0/project/{project}/custom-field']['get']['responses'][200]['content']['application/json']['customFields'][number];

export type ImportPreview =
  paths['/api/public/v0/project/{project}/import/preview']['post']['responses'][200]['content']['application/json'];
export type FileField = ImportPreview['customFields'][number];
/** What becomes of one custom field of the file (extensions.md §7a). */
export interface FieldChoice {
  action: 'create' | 'map' | 'skip';
  fieldId?: string;
  type?: 'text' | 'dropdown' | 'checkbox' | 'richtext';
  name?: string;
}

export type Separator = '' | ',' | ';' | 'tab';

export interface ImportRequest {
  file: File;
  format: ImportFormat;
  /** Column header → field, for `csv` and `xlsx` only. */
  mapping?: Record<string, string>;
  /** Empty: the service finds it from the header line. */
  separator: Separator;
  dryRun: boolean;
  skipInvalid: boolean;
  /** The folder the file's folder paths go under; none: the top level. */
  folderId?: number;
  /** Per custom field of the file: create, map or leave out; absent: the service's defaults. */
  customFields?: Record<string, FieldChoice>;
}

/** Starts an import job; the file goes as multipart with the options as fields (202 `{id}`). */
export const startImport = (code: string, r: ImportRequest) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/import', {
      params: { path: { project: code } },
      // The body is built below; the schema's shape only documents the fields.
      body: { file: '', format: r.format },
      bodySerializer: () => {
        const form = new FormData();
        form.append('format', r.format);
        if (r.mapping) form.append('mapping', JSON.stringify(r.mapping));
        if (r.separator && FORMATS[r.format].separator) form.append('separator', r.separator);
        form.append('dryRun', String(r.dryRun));
        form.append('skipInvalid', String(r.skipInvalid));
        if (r.folderId) form.append('folderId', String(r.folderId));
        if (r.customFields && Object.keys(r.customFields).length > 0)
          form.append('customFields', JSON.stringify(r.customFields));
        // The file last: the fields are read before the upload is streamed to storage.
        form.append('file', r.file, r.file.name);
        return form;
      },
    }),
  );

/** An .xlsx file's header and first rows, read on the server by the import's own reader (nothing is kept). */
export const previewXlsx = (code: string, file: File) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/import/preview', {
      params: { path: { project: code } },
      body: { file: '' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', file, file.name);
        return form;
      },
    }),
  );

/** The custom fields a file carries, with the values seen, read on the server as the import will read it. */
export const previewFields = (code: string, file: File, format: ImportFormat, separator: Separator) =>
  unwrap(
    api.POST('/api/public/v0/project/{project}/import/preview', {
      params: { path: { project: code } },
      body: { file: '' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('format', format);
        if (separator && format !== 'testrail-xml') form.append('separator', separator);
        form.append('file', file, file.name);
        return form;
      },
    }),
  );

/** The reconciliation of an import as a CSV download. */
export const reconciliationUrl = (code: string, id: number) =>
  `/api/public/v0/project/${encodeURIComponent(code)}/import/${id}?format=csv`;

/** Asks again every second while the job is queued or running; a finished job never changes. */
export const importQuery = (code: string, id: number) =>
  queryOptions({
    queryKey: queryKeys.importJob(code, id),
    queryFn: async () =>
      // Without ?format=csv the answer is JSON.
      (await unwrap(
        api.GET('/api/public/v0/project/{project}/import/{id}', {
          params: { path: { project: code, id } },
        }),
      )) as ImportStatus,
    refetchInterval: (q) => (q.state.data && isFinished(q.state.data) ? false : 1000),
  });

export const isFinished = (s: ImportStatus) => s.status === 'done' || s.status === 'failed';

export const customFieldsQuery = (code: string) =>
  queryOptions({
    queryKey: queryKeys.customFields(code),
    queryFn: () =>
      unwrap(
        api.GET('/api/public/v0/project/{project}/custom-field', { params: { path: { project: code } } }),
      ),
  });

/** The export is a plain download of the streamed CSV (the session cookie goes with it). */
export const exportUrl = (code: string) =>
  `/api/public/v0/project/${encodeURIComponent(code)}/export?format=qasphere-csv`;
