import { useEffect, useId, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ApiError } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { FileField } from '../../../components/FileField';
import { FormError } from '../../../components/FormError';
import { JobProgress } from '../../../components/JobProgress';
import { ErrorState } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { formatCountOf } from '../../../lib/format';
import { isFinished, projectImportQuery, startProjectImport, type ProjectImport } from './api';
import '../audit-log/audit-log.css';
import './import-project.css';

type Errors = Partial<Record<'file' | 'code' | 'form', string>>;

/** `/admin/import-project` (admins): a Casebook archive in, as a new project, with its progress and outcome. */
export function ImportProjectPage() {
  useDocumentTitle('Import a project');
  return <ImportProjectForm />;
}

function ImportProjectForm() {
  const ids = { file: useId(), code: useId() };
  const [file, setFile] = useState<File>();
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [starting, setStarting] = useState(false);
  const [jobId, setJobId] = useState<number>();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found: Errors = {};
    if (!file) found.file = 'Choose a Casebook archive (a .casebook file) to import.';
    if (code !== '' && !/^[A-Za-z0-9]{2,5}$/.test(code)) found.code = 'A code is 2 to 5 letters or digits.';
    setErrors(found);
    if (found.file || found.code || !file) return;
    setStarting(true);
    try {
      setJobId((await startProjectImport(file, code)).id);
    } catch (err) {
      setErrors(refusal(err, code));
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="page page-narrow import-project-page">
      <h1 className="page-title">Import a project</h1>
      <p className="muted">
        A Casebook archive holds a whole project: its test cases with every version, shared steps and
        preconditions, runs with their results and files, plans, milestones and configurations. Export one
        from a project’s settings (General) in any Casebook. People are matched by e-mail; someone this
        service does not know is added as a deactivated account, so every record keeps its author.
      </p>
      <form className="panel import-project-form" onSubmit={submit} noValidate aria-label="Import a project">
        <FormError message={errors.form} />
        <FileField
          id={ids.file}
          label="Archive"
          accept=".casebook,application/gzip"
          file={file}
          error={errors.file}
          hint="A .casebook file exported from Casebook."
          onFile={(f) => {
            setFile(f);
            setErrors((old) => ({ ...old, file: undefined }));
          }}
        />
        <div className="field">
          <label className="field-label" htmlFor={ids.code}>
            Project code (optional)
          </label>
          <input
            id={ids.code}
            className="field-input import-project-code"
            value={code}
            maxLength={5}
            autoComplete="off"
            aria-invalid={errors.code ? true : undefined}
            aria-describedby={errors.code ? `${ids.code}-err` : `${ids.code}-desc`}
            onChange={(e) => {
              setCode(e.target.value.trim());
              setErrors((old) => ({ ...old, code: undefined }));
            }}
          />
          {errors.code ? (
            <span id={`${ids.code}-err`} className="field-error" role="alert">
              {errors.code}
            </span>
          ) : (
            <span id={`${ids.code}-desc`} className="field-description">
              Leave it empty to keep the archive’s code; give another when that code is taken here.
            </span>
          )}
        </div>
        <div>
          <Button type="submit" variant="primary" isDisabled={starting}>
            {starting ? 'Sending the archive…' : 'Import the project'}
          </Button>
        </div>
      </form>
      {jobId !== undefined && <ImportProgress key={jobId} id={jobId} />}
    </div>
  );
}

/** The import job: a progress bar while it runs, then a link to the new project or why it failed. */
function ImportProgress({ id }: { id: number }) {
  const job = useQuery(projectImportQuery(id));
  const queryClient = useQueryClient();
  const created = job.data?.status === 'done';
  // The new project shows at once in the project lists.
  useEffect(() => {
    if (created) void queryClient.invalidateQueries({ queryKey: queryKeys.projects() });
  }, [created, queryClient]);
  if (job.isError)
    return (
      <ErrorState
        title="The import's progress could not be read."
        error={job.error}
        onRetry={() => job.refetch()}
      />
    );
  const s = job.data;
  const done = s !== undefined && isFinished(s) ? s : undefined;
  return (
    <section className="panel import-project-result" aria-labelledby="import-project-result">
      <h2 id="import-project-result" className="panel-title">
        {!done
          ? 'Importing…'
          : done.status === 'done'
            ? 'Project imported'
            : 'Import failed: nothing was kept'}
      </h2>
      {!done ? (
        <Progress status={s} />
      ) : done.status === 'done' && done.project ? (
        <p>
          {formatCountOf(done.progress.total, 'record')} written.{' '}
          <Link to="/project/$code" params={{ code: done.project.code }}>
            Open project {done.project.code}
          </Link>
        </p>
      ) : (
        <p className="field-error">{done.error}</p>
      )}
    </section>
  );
}

function Progress({ status }: { status?: ProjectImport }) {
  return (
    <JobProgress
      label="Import progress"
      done={status?.progress.done ?? 0}
      total={status?.progress.total ?? 0}
      unit="record"
      verb="written"
      waiting={status?.status === 'queued' || !status ? 'Waiting for its turn…' : 'Checking the archive…'}
    />
  );
}

/** A refused start in words, beside the field it is about. */
function refusal(err: unknown, code: string): Errors {
  if (!(err instanceof ApiError))
    return { form: `The import could not be started: ${(err as Error).message}.` };
  if (err.status === 413) return { file: `This archive is too large to import: ${err.message}.` };
  const byField = err.fieldErrors();
  if (err.status === 409)
    return { code: `The code ${code || 'of the archive'} is taken here: give another one.` };
  if (byField.code) return { code: byField.code };
  if (byField.file) return { file: byField.file };
  return { form: `The import could not be started: ${err.message}.` };
}
