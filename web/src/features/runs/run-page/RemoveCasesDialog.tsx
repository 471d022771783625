import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { queryKeys } from '../../../api/keys';
import { formatCount } from '../../../lib/format';
import { removeRunCases, type RunTestCase } from '../api';

const casesWord = (n: number) => `${formatCount(n)} ${n === 1 ? 'case' : 'cases'}`;

/**
 * Removing the selected cases from an open run, after a confirmation that names how many and how many of them have
 * results (kept by the service, D17: they come back when the case is added again).
 */
export function RemoveCasesDialog({
  code,
  runId,
  cases,
  onClose,
  onRemoved,
}: {
  code: string;
  runId: number;
  cases: RunTestCase[] | undefined;
  onClose: () => void;
  onRemoved: (message: string) => void;
}) {
  const queryClient = useQueryClient();
  const n = cases?.length ?? 0;
  // A case's status is its latest result's: open means none yet.
  const withResults = (cases ?? []).filter((c) => c.status !== 'open').length;
  const remove = useMutation({
    mutationFn: () =>
      removeRunCases(
        code,
        runId,
        cases!.map((c) => c.id),
      ),
    onSuccess: async (res) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.runCases(code, runId) }),
        queryClient.invalidateQueries({ queryKey: queryKeys.run(code, runId), exact: true }),
      ]);
      onRemoved(`${casesWord(res.removed ?? n)} removed from the run.`);
      remove.reset();
      onClose();
    },
  });
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <ConfirmDialog
      title={`Remove ${casesWord(n)} from the run?`}
      isOpen={cases !== undefined}
      onClose={close}
      confirmLabel={`Remove ${casesWord(n)}`}
      onConfirm={() => remove.mutate()}
      isPending={remove.isPending}
      error={
        remove.isError
          ? remove.error instanceof Error
            ? remove.error.message
            : 'The cases could not be removed.'
          : undefined
      }
    >
      <p data-testid="remove-summary">
        {withResults === 0
          ? n === 1
            ? 'It has no result yet.'
            : 'None of them has a result yet.'
          : withResults === n
            ? `${n === 1 ? 'It has' : 'All of them have'} results.`
            : `${formatCount(withResults)} of them ${withResults === 1 ? 'has' : 'have'} results.`}{' '}
        {withResults > 0 &&
          'The results are kept: they come back if the case is added to the run again, and the run’s counts leave them out meanwhile.'}
      </p>
    </ConfirmDialog>
  );
}
