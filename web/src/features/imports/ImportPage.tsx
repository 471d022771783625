import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from '@tanstack/react-router';
import { ApiError } from '../../api/client';
import { projectFoldersQuery } from '../../api/queries';
import { Button } from '../../components/Button';
import { FileField } from '../../components/FileField';
import { FolderPathOption } from '../../components/FolderPath';
import { FormError } from '../../components/FormError';
import { ErrorState, Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { folderPaths, pathText } from '../../lib/folder-path';
import { meQuery } from '../../session/session';
import {
  customFieldsQuery,
  exportUrl,
  previewFields,
  previewXlsx,
  type FieldChoice,
  type FileField as FileCustomField,
  startImport,
  type ImportRequest,
  type Separator,
} from './api';
import { FORMAT_IDS, FORMATS, type ImportFormat } from './formats';
import { canImport } from './index';
import { ImportResult } from './ImportResult';
import { MappingPreview } from './MappingPreview';
import { defaultChoices, FieldChoices } from './FieldChoices';
import { guessMapping, readPreview, type Preview } from './mapping';
import './import.css';

const SEPARATORS: [Separator, string][] = [
  ['', 'Found from the header row'],
  [',', 'Comma ( , )'],
  [';', 'Semicolon ( ; )'],
  ['tab', 'Tab'],
];

type Errors = Partial<Record<'file' | 'mapping' | 'form', string>>;

/** `/project/{CODE}/import`: a file of test cases in, checked first (dry run), with its progress and bad rows. */
export function ImportPage() {
  const { code: rawCode } = useParams({ from: '/app/project/$code/import' });
  const code = rawCode.toUpperCase();
  useDocumentTitle(`Import into ${code}`);
  const me = useQuery(meQuery);
  if (me.isError) return <ErrorState title="Who you are could not be read." error={me.error} />;
  if (!me.data) return <Loading />;
  if (!canImport(me.data.role))
    return (
      <div className="page">
        <h1 className="page-title">Import: not allowed</h1>
        <p>
          Importing test cases is for users, admins and the owner; your role is “{me.data.role}”.{' '}
          <a href={exportUrl(code)} download>
            Export the test cases as CSV
          </a>{' '}
          or go{' '}
          <Link to="/project/$code/repository" params={{ code }}>
            back to the repository
          </Link>
          .
        </p>
      </div>
    );
  return <ImportForm code={code} mayCreate={me.data.role === 'admin' || me.data.role === 'owner'} />;
}

function ImportForm({ code, mayCreate }: { code: string; mayCreate: boolean }) {
  const ids = { file: useId(), sep: useId(), under: useId() };
  const [format, setFormat] = useState<ImportFormat>('qasphere-csv');
  const [file, setFile] = useState<File>();
  const [separator, setSeparator] = useState<Separator>('');
  // A first try is a dry run: nothing is written until the file has been checked.
  const [dryRun, setDryRun] = useState(true);
  const [skipInvalid, setSkipInvalid] = useState(false);
  const [under, setUnder] = useState(0);
  const folders = useQuery(projectFoldersQuery(code));
  const underChoices = useMemo(
    () => [...folderPaths(folders.data ?? [])].sort((a, b) => pathText(a[1]).localeCompare(pathText(b[1]))),
    [folders.data],
  );
  const [preview, setPreview] = useState<Preview>();
  const [previewError, setPreviewError] = useState<string>();
  const [mapping, setMapping] = useState<string[]>([]);
  const [errors, setErrors] = useState<Errors>({});
  const [starting, setStarting] = useState(false);
  const [jobId, setJobId] = useState<number>();
  const view = FORMATS[format];
  const mapped = view.mapping !== 'none';
  // The custom fields of the file as chosen (its format and separator): read on the server, each given a choice.
  const [read, setRead] = useState<{ of: unknown[]; fields: FileCustomField[] }>();
  const [choices, setChoices] = useState<Record<string, FieldChoice>>({});
  const readOf = [file, format, separator];
  const fileFields = !mapped && read && read.of.every((x, i) => x === readOf[i]) ? read.fields : [];
  const customFields = useQuery({ ...customFieldsQuery(code), enabled: mapped || fileFields.length > 0 });
  const fields = (customFields.data?.customFields ?? []).filter((f) => f.enabled);

  useEffect(() => {
    if (mapped || !file) return;
    let live = true;
    previewFields(code, file, format, separator).then(
      (p) => {
        if (!live) return;
        setRead({ of: [file, format, separator], fields: p.customFields });
        setChoices(defaultChoices(p.customFields));
      },
      // The import itself says what is wrong with the file.
      () => {},
    );
    return () => {
      live = false;
    };
  }, [code, format, file, separator, mapped]);

  // A generic CSV's header and first rows are read here (a workbook's by the service, which has exceljs), so its
  // columns can be mapped before the import starts.
  useEffect(() => {
    // The preview shown is for the file chosen: a later file replaces it once read.
    if (!mapped || !file) return;
    let live = true;
    (view.mapping === 'server' ? previewXlsx(code, file) : readPreview(file, separator)).then(
      (p) => {
        if (!live) return;
        setPreview(p);
        setPreviewError(undefined);
        // A new file gets new guesses; the same columns keep what was chosen.
        setMapping((old) =>
          old.length === p.headers.length && preview?.headers.join('\n') === p.headers.join('\n')
            ? old
            : guessMapping(p.headers, fields),
        );
      },
      (err: unknown) => {
        if (!live) return;
        setPreview(undefined);
        setPreviewError(
          err instanceof ApiError && err.status === 413
            ? `This file is too large to import: ${err.message}.`
            : `The file's first rows could not be read: ${(err as Error).message}.`,
        );
      },
    );
    return () => {
      live = false;
    };
    // `fields` only seeds the guesses; a new list of custom fields does not undo a choice.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [format, file, separator]);

  const mappingObject = (): Record<string, string> | undefined => {
    if (!preview) return undefined;
    const out: Record<string, string> = {};
    preview.headers.forEach((h, i) => {
      if (mapping[i]) out[h] = mapping[i];
    });
    return out;
  };

  const start = async (asDryRun: boolean) => {
    const found: Errors = {};
    if (!file) found.file = 'Choose a file to import.';
    else if (mapped && previewError) found.file = previewError;
    else if (mapped && !preview)
      found.file = 'The file’s first rows are still being read: try again in a moment.';
    else if (mapped && !mapping.includes('title'))
      found.mapping = 'Map one column to Title: every test case needs a title.';
    setErrors(found);
    if (found.file || found.mapping || !file) return;
    const request: ImportRequest = {
      file,
      format,
      mapping: mapped ? mappingObject() : undefined,
      separator,
      dryRun: asDryRun,
      skipInvalid,
      folderId: under || undefined,
      customFields: fileFields.length > 0 ? choices : undefined,
    };
    setStarting(true);
    try {
      const { id } = await startImport(code, request);
      setDryRun(asDryRun);
      setJobId(id);
    } catch (err) {
      setErrors(refusal(err));
    } finally {
      setStarting(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void start(dryRun);
  };

  return (
    <div className="page import-page">
      <div className="page-header">
        <h1 className="page-title">Import test cases</h1>
        <div className="import-header-links">
          <Link to="/project/$code/repository" params={{ code }}>
            Back to the repository
          </Link>
          <a className="btn btn-secondary" href={exportUrl(code)} download>
            Export CSV
          </a>
        </div>
      </div>
      <form className="panel import-form" onSubmit={submit} noValidate aria-label="Import a file">
        <FormError message={errors.form} />
        <fieldset className="import-fieldset">
          <legend className="field-label">Format</legend>
          {FORMAT_IDS.map((value) => (
            <label key={value} className="checkbox-field">
              <input
                type="radio"
                name="format"
                checked={format === value}
                onChange={() => setFormat(value)}
              />
              {FORMATS[value].label}
            </label>
          ))}
        </fieldset>

        <FileField
          id={ids.file}
          label="File"
          className="import-file"
          accept={view.accept}
          file={file}
          error={errors.file}
          hint={view.hint}
          onFile={(f) => {
            setFile(f);
            setErrors((old) => ({ ...old, file: undefined }));
          }}
        />

        {view.separator && (
          <div className="field import-separator">
            <label className="field-label" htmlFor={ids.sep}>
              Separator
            </label>
            <select
              id={ids.sep}
              className="field-input"
              value={separator}
              onChange={(e) => setSeparator(e.target.value as Separator)}
            >
              {SEPARATORS.map(([v, name]) => (
                <option key={v} value={v}>
                  {name}
                </option>
              ))}
            </select>
          </div>
        )}

        <div className="field import-under">
          <label className="field-label" htmlFor={ids.under}>
            Under folder
          </label>
          <select
            id={ids.under}
            className="field-input"
            value={under}
            onChange={(e) => setUnder(Number(e.target.value))}
          >
            <option value={0}>The top level</option>
            {underChoices.map(([id, path]) => (
              <FolderPathOption key={id} value={id} path={path} />
            ))}
          </select>
        </div>

        {mapped && preview && (
          <MappingPreview
            preview={preview}
            mapping={mapping}
            customFields={fields}
            error={errors.mapping}
            onChange={(i, field) => {
              setMapping((old) => old.map((f, j) => (j === i ? field : f)));
              setErrors((old) => ({ ...old, mapping: undefined }));
            }}
          />
        )}

        {!mapped && fileFields.length > 0 && (
          <FieldChoices
            fields={fileFields}
            existing={fields}
            choices={choices}
            mayCreate={mayCreate}
            onChange={(key, choice) => setChoices((old) => ({ ...old, [key]: choice }))}
          />
        )}

        <fieldset className="import-fieldset">
          <legend className="field-label">Options</legend>
          <label className="checkbox-field">
            <input type="checkbox" checked={dryRun} onChange={(e) => setDryRun(e.target.checked)} />
            Dry run: check the file and count, write nothing
          </label>
          <label className="checkbox-field">
            <input type="checkbox" checked={skipInvalid} onChange={(e) => setSkipInvalid(e.target.checked)} />
            Skip bad rows: import the good rows of a file with bad ones
          </label>
        </fieldset>
        <div className="import-actions">
          <Button type="submit" variant="primary" isDisabled={starting}>
            {starting ? 'Sending the file…' : dryRun ? 'Start the dry run' : 'Start the import'}
          </Button>
        </div>
      </form>
      {jobId !== undefined && (
        <ImportResult
          key={jobId}
          code={code}
          id={jobId}
          starting={starting}
          onImportForReal={() => void start(false)}
        />
      )}
    </div>
  );
}

/** A refused start in words, beside the field it is about (the file for 413 and a file the service cannot read). */
function refusal(err: unknown): Errors {
  if (!(err instanceof ApiError))
    return { form: `The import could not be started: ${(err as Error).message}.` };
  if (err.status === 413) return { file: `This file is too large to import: ${err.message}.` };
  const byField = err.fieldErrors();
  if (byField.mapping) return { mapping: byField.mapping };
  if (byField.file) return { file: byField.file };
  return { form: `The import could not be started: ${err.message}.` };
}
