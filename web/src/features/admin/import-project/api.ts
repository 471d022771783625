import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import type { paths } from '../../../api/schema';

export type ProjectImport =
  paths['/api/public/v0/import/{id}']['get']['responses'][200]['content']['application/json'];

/** Sends a Casebook archive (202 `{id}`); `code` empty: the archive's own code. */
export const startProjectImport = (file: File, code: string) =>
  unwrap(
    api.POST('/api/public/v0/import/project', {
      // The body is built below; the schema's shape only documents the fields.
      body: { file: '' },
      bodySerializer: () => {
        const form = new FormData();
        if (code) form.append('code', code);
        // The file last: the code is read before the upload is streamed to storage.
        form.append('file', file, file.name);
        return form;
      },
    }),
  );

export const isFinished = (s: ProjectImport) => s.status === 'done' || s.status === 'failed';

/** Asks again every second while the job is queued or running; a finished job never changes. */
export const projectImportQuery = (id: number) =>
  queryOptions({
    queryKey: queryKeys.projectImport(id),
    queryFn: () => unwrap(api.GET('/api/public/v0/import/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && isFinished(q.state.data) ? false : 1000),
  });
