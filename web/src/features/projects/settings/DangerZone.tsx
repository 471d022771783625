import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { TextField } from '../../../components/TextField';
import { sentence } from '../../../lib/useForm';
import { deleteProject, projectCountsQuery, setProjectArchived, type Project } from '../api';
import { formatCountOf } from '../../../lib/format';

const plural = formatCountOf;

/** What the project holds, in words, from the counts the overview reads; undefined while they load. */
function useWhatItHolds(code: string): string | undefined {
  const counts = useQuery(projectCountsQuery(code)).data;
  if (!counts) return undefined;
  return `${plural(counts.cases, 'test case', 'test cases')} and ${plural(counts.openRuns.length, 'open run', 'open runs')}`;
}

/** Archive (after saying what it stops) or unarchive. */
export function ArchiveProject({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const holds = useWhatItHolds(project.code);
  const archive = useMutation({
    mutationFn: () => setProjectArchived(project.code, !project.archivedAt),
    onSuccess: (p) => {
      queryClient.setQueryData(queryKeys.project(project.code), p);
      setConfirming(false);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.projects() }),
  });
  const archived = !!project.archivedAt;
  return (
    <div className="danger-row">
      <div>
        <h3 className="danger-title">{archived ? 'Unarchive this project' : 'Archive this project'}</h3>
        <p className="muted">
          {archived
            ? 'Makes it writable again: test cases can be changed and results recorded.'
            : 'It stays readable, but nothing in it can be changed until it is unarchived.'}
        </p>
        {!confirming && <FormError message={archive.isError ? sentence(archive.error.message) : undefined} />}
      </div>
      <Button
        isPending={archived && archive.isPending}
        onPress={() => (archived ? archive.mutate() : setConfirming(true))}
      >
        {archived ? 'Unarchive' : 'Archive…'}
      </Button>
      {confirming && (
        <Dialog
          title={`Archive ${project.title}?`}
          isOpen
          onOpenChange={(o) => !o && setConfirming(false)}
          isDismissable={!archive.isPending}
        >
          <p>
            {project.code} becomes read-only
            {holds ? (
              <>
                : its <strong>{holds}</strong> can be read, but not changed; no result can be recorded.
              </>
            ) : (
              '.'
            )}{' '}
            An admin can unarchive it at any time.
          </p>
          <FormError message={archive.isError ? sentence(archive.error.message) : undefined} />
          <div className="dialog-actions">
            <Button slot="close" isDisabled={archive.isPending}>
              Cancel
            </Button>
            <Button variant="primary" isPending={archive.isPending} onPress={() => archive.mutate()}>
              Archive project
            </Button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

/** Delete, once the code is typed: the dialog says what goes with it. */
export function DeleteProject({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="danger-row">
      <div>
        <h3 className="danger-title">Delete this project</h3>
        <p className="muted">Deletes it with everything in it, for good.</p>
      </div>
      <Button variant="danger" onPress={() => setOpen(true)}>
        Delete…
      </Button>
      {open && <DeleteProjectDialog project={project} onClose={() => setOpen(false)} />}
    </div>
  );
}

function DeleteProjectDialog({ project, onClose }: { project: Project; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const holds = useWhatItHolds(project.code);
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => deleteProject(project.code),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: queryKeys.project(project.code) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
      await navigate({ to: '/', replace: true });
    },
  });
  const matches = typed.trim().toUpperCase() === project.code.toUpperCase();
  return (
    <Dialog
      title={`Delete ${project.title}?`}
      isOpen
      onOpenChange={(o) => !o && onClose()}
      isDismissable={!remove.isPending}
    >
      <p>
        This deletes the project <strong>{project.code}</strong> with{' '}
        {holds ? (
          <>
            its <strong>{holds}</strong>, and every other run, result, plan, milestone and file in it.
          </>
        ) : (
          'all its test cases, runs, results and files.'
        )}{' '}
        It cannot be undone. Archive the project instead to keep it readable.
      </p>
      <FormError message={remove.isError ? sentence(remove.error.message) : undefined} />
      <Form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          if (matches) remove.mutate();
        }}
      >
        <TextField
          label={`Type ${project.code} to confirm`}
          name="confirm"
          autoComplete="off"
          autoFocus
          value={typed}
          onChange={setTyped}
        />
        <div className="dialog-actions">
          <Button slot="close" isDisabled={remove.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" isDisabled={!matches} isPending={remove.isPending}>
            Delete project
          </Button>
        </div>
      </Form>
    </Dialog>
  );
}
