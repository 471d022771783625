import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../api/keys';
import { accessDefaultsQuery, setAccessDefaults } from './api';
import { words } from './people-text';

/** Whether new members join every project by default (TestRail's global role); saved as soon as it is ticked. */
export function AccessDefaultsSection() {
  const queryClient = useQueryClient();
  const defaults = useQuery(accessDefaultsQuery);
  const [said, setSaid] = useState<{ text: string; bad?: boolean }>();
  // What was just ticked, set in the change event itself: the mutation's own state reaches the box a moment later,
  // and meanwhile the controlled box would spring back to the old value.
  const [ticked, setTicked] = useState<boolean>();
  const save = useMutation({
    mutationFn: setAccessDefaults,
    onMutate: () => setSaid(undefined),
    onSettled: () => setTicked(undefined),
    onSuccess: (r) => {
      queryClient.setQueryData(queryKeys.accessDefaults(), r);
      setSaid({
        text: r.newMembersJoinAllProjects
          ? 'New members join every project unless their invitation names some.'
          : 'New members join the projects their invitation names.',
      });
    },
    onError: (e) => setSaid({ text: words(e), bad: true }),
  });
  const on = ticked ?? defaults.data?.newMembersJoinAllProjects;
  return (
    <section className="panel" aria-labelledby="access-defaults">
      <h2 id="access-defaults" className="panel-title">
        New members
      </h2>
      <label className="checkbox-field">
        <input
          type="checkbox"
          checked={on ?? false}
          disabled={!defaults.isSuccess || save.isPending}
          onChange={(e) => {
            setTicked(e.target.checked);
            save.mutate(e.target.checked);
          }}
        />
        Join every project, and the ones made later, unless the invitation names projects
      </label>
      <p role="status" className={said?.bad ? 'field-error' : 'people-note'}>
        {said?.text}
      </p>
    </section>
  );
}
