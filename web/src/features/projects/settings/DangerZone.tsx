import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { Form } from 'react-aria-components';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { TextField } from '../../../components/TextField';
import { formatBytes, formatCount, formatCountOf } from '../../../lib/format';
import { sentence } from '../../../lib/useForm';
import {
  deleteProject,
  projectContentsQuery,
  setProjectArchived,
  type Project,
  type ProjectContents,
} from '../api';

const plural = formatCountOf;

/** The runs in words: `5 runs, 2 of them open`, `1 run, closed`. */
function runsInWords(c: ProjectContents): string {
  if (c.runs === 0) return 'no runs';
  if (c.runs === 1) return c.openRuns === 1 ? '1 run, still open' : '1 run, closed';
  const open =
    c.openRuns === 0
      ? 'all closed'
      : c.openRuns === c.runs
        ? 'all open'
        : `${formatCount(c.openRuns)} of them open`;
  return `${plural(c.runs, 'run', 'runs')}, ${open}`;
}

/** The runs in a sentence: `5 runs (2 open)`. */
const runsShort = (c: ProjectContents) =>
  `${plural(c.runs, 'run', 'runs')}${c.runs > 0 ? ` (${formatCount(c.openRuns)} open)` : ''}`;

/** What the project holds, one line each, as the delete dialog names it; a line while the counts load. */
function WhatGoes({ code }: { code: string }) {
  const counts = useQuery(projectContentsQuery(code));
  if (counts.isPending)
    return (
      <p className="muted" role="status">
        Counting what the project holds…
      </p>
    );
  if (counts.isError)
    return (
      <p className="muted">
        What it holds could not be counted ({sentence(counts.error.message)}); deleting removes all of it all
        the same.
      </p>
    );
  const c = counts.data;
  return (
    <ul className="danger-counts" aria-label="What is deleted">
      <li>{plural(c.cases, 'test case', 'test cases')}</li>
      <li>{runsInWords(c)}</li>
      <li>{plural(c.results, 'result', 'results')} recorded in them</li>
      <li>
        {c.files === 0
          ? 'no files attached to test cases'
          : `${plural(c.files, 'file', 'files')} attached to test cases (${formatBytes(c.fileBytes)})`}
      </li>
    </ul>
  );
}

/** Archive (after saying what it stops) or unarchive. */
export function ArchiveProject({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
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
        <ConfirmDialog
          title={`Archive ${project.title}?`}
          onClose={() => setConfirming(false)}
          confirmLabel="Archive project"
          onConfirm={() => archive.mutate()}
          isPending={archive.isPending}
          error={archive.isError ? sentence(archive.error.message) : undefined}
          danger={false}
        >
          <ArchiveWords code={project.code} />
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What archiving stops, with the counts once they are read. */
function ArchiveWords({ code }: { code: string }) {
  const c = useQuery(projectContentsQuery(code)).data;
  return (
    <p>
      {code} becomes read-only
      {c ? (
        <>
          : its <strong>{plural(c.cases, 'test case', 'test cases')}</strong>, <strong>{runsShort(c)}</strong>{' '}
          and <strong>{plural(c.results, 'result', 'results')}</strong> can be read, but not changed
          {c.openRuns > 0
            ? `; no result can be recorded in its ${plural(c.openRuns, 'open run', 'open runs')}`
            : ''}
          .
        </>
      ) : (
        ': its test cases, runs and results can be read, but not changed.'
      )}{' '}
      Nothing is deleted, and an admin can unarchive it at any time.
    </p>
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
        This deletes the project <strong>{project.code}</strong> for good, with:
      </p>
      <WhatGoes code={project.code} />
      <p>
        and its plans, milestones, configurations, shared steps and preconditions. It cannot be undone.
        Archive the project instead to keep it readable.
      </p>
      <FormError message={remove.isError ? sentence(remove.error.message) : undefined} />
      <Form
        className="form danger-confirm"
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
