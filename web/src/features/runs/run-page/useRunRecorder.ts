import { useCallback, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { recordResults, type ResultDraft, type RunTestCase } from '../api';

export interface Submission {
  key: string;
  tcaseIds: string[];
  label: string;
  draft: ResultDraft;
  error?: string;
}

/**
 * Records results optimistically: the list shows the status at once, the request follows. A request that fails
 * puts the status back and keeps the whole submission (comment and link included) until it is sent again with
 * the same Idempotency-Key — so a retry never stores it twice — or discarded.
 */
export function useRunRecorder(code: string, runId: number) {
  const queryClient = useQueryClient();
  const [failed, setFailed] = useState<Submission[]>([]);
  const listKey = queryKeys.runCases(code, runId);

  const setStatuses = useCallback(
    (ids: string[], status: (c: RunTestCase) => string) =>
      queryClient.setQueryData<RunTestCase[]>(listKey, (list) =>
        list?.map((c) => (ids.includes(c.id) ? { ...c, status: status(c) } : c)),
      ),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [queryClient, code, runId],
  );

  const send = useCallback(
    async (sub: Submission) => {
      const before = new Map(
        (queryClient.getQueryData<RunTestCase[]>(listKey) ?? [])
          .filter((c) => sub.tcaseIds.includes(c.id))
          .map((c) => [c.id, c.status]),
      );
      setStatuses(sub.tcaseIds, () => sub.draft.status);
      setFailed((all) => all.filter((s) => s.key !== sub.key));
      try {
        await recordResults(code, runId, sub.tcaseIds, sub.draft, sub.key);
        for (const id of sub.tcaseIds)
          void queryClient.invalidateQueries({ queryKey: queryKeys.runCase(code, runId, id) });
        // Every report may count this result: stale now, read again when a report is next shown.
        void queryClient.invalidateQueries({ queryKey: queryKeys.reports(code), refetchType: 'none' });
      } catch (err) {
        // Back to what it was, unless something newer moved it meanwhile.
        setStatuses(sub.tcaseIds, (c) =>
          c.status === sub.draft.status ? (before.get(c.id) ?? c.status) : c.status,
        );
        setFailed((all) => [
          ...all,
          { ...sub, error: err instanceof Error ? err.message : 'the request failed' },
        ]);
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [queryClient, code, runId, setStatuses],
  );

  const record = useCallback(
    (tcaseIds: string[], label: string, draft: ResultDraft) =>
      send({ key: crypto.randomUUID(), tcaseIds, label, draft }),
    [send],
  );
  const discard = useCallback((key: string) => setFailed((all) => all.filter((s) => s.key !== key)), []);
  return { record, retry: send, discard, failed };
}
