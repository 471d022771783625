import { api, unwrap } from './client';

/**
 * Uploads one file through the files API; test cases and results refer to it by its id and url. `result`: an
 * attachment for a result, removed by the service when no result names it within a day (extensions.md §8).
 */
export const uploadFile = (file: File, purpose?: 'result') =>
  unwrap(
    api.POST('/api/public/v0/file', {
      params: { query: purpose ? { purpose } : {} },
      body: { file: '' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', file, file.name);
        return form;
      },
    }),
  );
