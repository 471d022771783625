import { infiniteQueryOptions } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/keys';
import type { paths } from '../../api/schema';

export type MyWorkPage =
  paths['/api/public/v0/users/me/work']['get']['responses'][200]['content']['application/json'];
export type MyWorkItem = MyWorkPage['data'][number];

export const MY_WORK_PAGE = 100;

/** The person's open assigned cases, a page at a time; `overdue` read against their own calendar day. */
export const myWorkQuery = (today: string) =>
  infiniteQueryOptions({
    queryKey: queryKeys.myWork(today),
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/public/v0/users/me/work', {
          params: { query: { offset: pageParam, limit: MY_WORK_PAGE, today } },
        }),
      ),
    getNextPageParam: (last) =>
      last.offset + last.data.length < last.total ? last.offset + last.data.length : undefined,
  });
