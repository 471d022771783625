import { api, unwrap } from './client';

/** Uploads one file through the files API; test cases and result comments refer to it by its id and url. */
export const uploadFile = (file: File) =>
  unwrap(
    api.POST('/api/public/v0/file', {
      body: { file: '' },
      bodySerializer: () => {
        const form = new FormData();
        form.append('file', file, file.name);
        return form;
      },
    }),
  );
