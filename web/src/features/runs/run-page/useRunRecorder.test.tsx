import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { recordResults, type RunTestCase } from '../api';
import { useRunRecorder } from './useRunRecorder';
import { queryKeys } from '../../../api/keys';

// The network is the one thing replaced: the hook's state and the query cache are the real ones.
vi.mock('../api', async (original) => ({
  ...(await original<typeof import('../api')>()),
  recordResults: vi.fn(),
}));
const send = vi.mocked(recordResults);

const listKey = queryKeys.runCases('web', 7);
const tcase = (id: string, status: string) => ({ id, status }) as RunTestCase;

function setup() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  queryClient.setQueryData(listKey, [tcase('a', 'open'), tcase('b', 'open'), tcase('c', 'passed')]);
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  );
  const hook = renderHook(() => useRunRecorder('web', 7), { wrapper });
  const statuses = () =>
    Object.fromEntries((queryClient.getQueryData<RunTestCase[]>(listKey) ?? []).map((c) => [c.id, c.status]));
  return { hook, statuses };
}

beforeEach(() => send.mockReset());

describe('useRunRecorder', () => {
  it('shows the new status before the service answers, and keeps it once the result is stored', async () => {
    let answer!: () => void;
    send.mockReturnValueOnce(new Promise<void>((resolve) => (answer = resolve)));
    const { hook, statuses } = setup();
    let done!: Promise<void>;
    act(() => {
      done = hook.result.current.record(['a', 'b'], 'two cases', { status: 'passed' });
    });
    expect(statuses()).toEqual({ a: 'passed', b: 'passed', c: 'passed' });
    await act(async () => {
      answer();
      await done;
    });
    expect(statuses()).toEqual({ a: 'passed', b: 'passed', c: 'passed' });
    expect(hook.result.current.failed).toEqual([]);
    expect(send).toHaveBeenCalledWith('web', 7, ['a', 'b'], { status: 'passed' }, expect.any(String));
  });

  it('puts the status back and keeps the whole submission with the reason when the request fails', async () => {
    send.mockRejectedValueOnce(new Error('the service is down'));
    const { hook, statuses } = setup();
    const draft = { status: 'failed' as const, comment: '<p>Broken</p>' };
    await act(() => hook.result.current.record(['a'], 'Log in', draft));
    expect(statuses().a).toBe('open');
    expect(hook.result.current.failed).toEqual([
      { key: expect.any(String), tcaseIds: ['a'], label: 'Log in', draft, error: 'the service is down' },
    ]);
  });

  it('sends a retry with the same idempotency key, and forgets the failure once it is stored', async () => {
    send.mockRejectedValueOnce(new Error('timeout'));
    const { hook, statuses } = setup();
    await act(() => hook.result.current.record(['a'], 'Log in', { status: 'blocked' }));
    const failure = hook.result.current.failed[0]!;
    send.mockResolvedValueOnce();
    await act(() => hook.result.current.retry(failure));
    expect(send.mock.calls.map((call) => call[4])).toEqual([failure.key, failure.key]);
    expect(hook.result.current.failed).toEqual([]);
    expect(statuses().a).toBe('blocked');
  });

  it('does not undo a newer status recorded while a failing request was on its way', async () => {
    let fail!: (e: Error) => void;
    send.mockReturnValueOnce(new Promise<void>((_resolve, reject) => (fail = reject)));
    send.mockResolvedValueOnce();
    const { hook, statuses } = setup();
    let first!: Promise<void>;
    act(() => {
      first = hook.result.current.record(['a'], 'Log in', { status: 'failed' });
    });
    await act(() => hook.result.current.record(['a'], 'Log in', { status: 'passed' }));
    await act(async () => {
      fail(new Error('lost'));
      await first;
    });
    expect(statuses().a).toBe('passed');
    expect(hook.result.current.failed).toHaveLength(1);
  });

  it('drops a failed submission when it is discarded', async () => {
    send.mockRejectedValueOnce(new Error('down')).mockRejectedValueOnce(new Error('down'));
    const { hook } = setup();
    await act(() => hook.result.current.record(['a'], 'Log in', { status: 'failed' }));
    await act(() => hook.result.current.record(['b'], 'Log out', { status: 'failed' }));
    act(() => hook.result.current.discard(hook.result.current.failed[0]!.key));
    expect(hook.result.current.failed.map((f) => f.label)).toEqual(['Log out']);
    expect(send).toHaveBeenCalledTimes(2);
  });
});
