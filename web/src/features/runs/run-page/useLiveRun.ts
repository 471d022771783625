import { useEffect, useRef } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/keys';
import { fetchRunChanges, type RunTestCase } from '../api';

const POLL_MS = 2000;

/**
 * Results recorded elsewhere (a CI upload, a colleague, another server process) appear without a reload: the
 * page asks the run's changes since its cursor every 2 s (any process answers from the database) and moves the
 * statuses in its list; cases joining or leaving the run, or too many changes, reload the list.
 */
export function useLiveRun(code: string, runId: number, enabled: boolean, onClosed: () => void) {
  const queryClient = useQueryClient();
  const state = useRef<{ cursor?: number; membership?: number }>({});
  useEffect(() => {
    if (!enabled) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const listKey = queryKeys.runCases(code, runId);
    const tick = async () => {
      try {
        const s = state.current;
        const answer = await fetchRunChanges(code, runId, s.cursor);
        if (stopped) return;
        if (s.cursor !== undefined) {
          if (answer.truncated || (s.membership !== undefined && answer.membershipVersion !== s.membership)) {
            await queryClient.invalidateQueries({ queryKey: listKey, exact: true });
          } else if (answer.tcases.length > 0) {
            const now = new Map(answer.tcases.map((t) => [t.id, t.status]));
            queryClient.setQueryData<RunTestCase[]>(listKey, (list) =>
              list?.map((c) => (now.has(c.id) ? { ...c, status: now.get(c.id)! } : c)),
            );
            for (const id of now.keys())
              void queryClient.invalidateQueries({ queryKey: queryKeys.runCase(code, runId, id) });
          }
        }
        if (answer.closed) onClosed();
        state.current = { cursor: answer.cursor, membership: answer.membershipVersion };
      } catch {
        // A missed poll is taken again at the next one.
      }
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [code, runId, enabled, queryClient, onClosed]);
}
