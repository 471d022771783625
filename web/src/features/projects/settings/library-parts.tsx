import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ErrorState, Loading } from '../../../components/Status';
import { formatCountOf } from '../../../lib/format';
import { sharedItemUsersQuery, type SharedKind, type SharedPrecondition, type SharedStep } from './api';

// What the shared-item library and its editor both show.

export type LibraryItem =
  ({ kind: 'step' } & SharedStep) | ({ kind: 'precondition' } & SharedPrecondition & { tcaseCount?: number });

export const NOUN: Record<SharedKind, string> = { step: 'shared step', precondition: 'shared precondition' };

export const casesWord = (n: number) => formatCountOf(n, 'test case');

/** The cases that use an item, each a link to the case. */
export function UserList({
  code,
  kind,
  id,
  label,
}: {
  code: string;
  kind: SharedKind;
  id: number;
  label?: string;
}) {
  const users = useQuery(sharedItemUsersQuery(code, kind, id));
  if (users.isPending) return <Loading label="Loading the test cases…" />;
  if (users.isError)
    return (
      <ErrorState
        title="The test cases could not be loaded."
        error={users.error}
        onRetry={() => users.refetch()}
      />
    );
  return (
    <ul className="plain-list library-users" aria-label={label ?? 'Test cases using it'}>
      {users.data.map((c) => (
        <li key={c.id}>
          <Link to="/project/$code/tcase/$seq" params={{ code, seq: String(c.seq) }}>
            {code}-{c.seq}
          </Link>{' '}
          {c.title}
        </li>
      ))}
    </ul>
  );
}
