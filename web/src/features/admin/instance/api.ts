import { queryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { queryKeys } from '../../../api/keys';

export const instanceQuery = queryOptions({
  queryKey: queryKeys.instance(),
  queryFn: () => unwrap(api.GET('/api/public/v0/settings/instance')),
});

export const sendTestMail = () => unwrap(api.POST('/api/public/v0/settings/mail/test'));
