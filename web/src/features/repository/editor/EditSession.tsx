import { useQueryClient } from '@tanstack/react-query';
import { useBlocker } from '@tanstack/react-router';
import { lazy, Suspense, useRef, useState } from 'react';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { Button } from '../../../components/Button';
import { Dialog } from '../../../components/Dialog';
import { FormError } from '../../../components/FormError';
import { useForm, type FormErrors } from '../../../lib/useForm';
import { createTestCase, testCaseQuery, updateTestCase } from '../api';
import { createBody, fingerprint, patchBody, type Draft } from '../draft';
import { overlayOpen, useKeyDown } from '../../../lib/keys';
import { TestCaseForm, type SetDraft } from './TestCaseForm';
import { queryKeys } from '../../../api/keys';

const VersionCompare = lazy(() => import('../history/VersionCompare'));

export type EditTarget = { kind: 'new' } | { kind: 'edit'; id: string; version: number };

interface Conflict {
  message: string;
  base: number;
  current?: number;
}

/** Messages by their full path (`steps/0/description`): the editor shows them beside each step's field. */
function caseErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e))
    return {
      form: 'The case was not saved: the service could not be reached. Your edits are kept.',
      fields: {},
    };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) fields[d.path.replace(/^\//, '')] ??= d.message;
  return { form: e.message, fields };
}

/**
 * One editing session of a case (new or existing): nothing typed is lost. Leaving with unsaved edits
 * (Esc, Cancel, a link, back, closing the tab) asks first; a save against a case someone else changed
 * meanwhile (If-Match) is refused by the service and shown as a conflict, with the edits kept.
 */
export function EditSession({
  code,
  initial,
  target,
  heading,
  onSaved,
  onCancel,
}: {
  code: string;
  initial: Draft;
  target: EditTarget;
  heading: string;
  /** `another`: saved with "Save and add another" (new cases only); `draft` is what was saved. */
  onSaved: (seq?: number, saved?: { another: boolean; draft: Draft }) => void;
  onCancel: () => void;
}) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(initial);
  const [baseline, setBaseline] = useState(() => fingerprint(initial));
  const [version, setVersion] = useState(target.kind === 'edit' ? target.version : 0);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [showTheirs, setShowTheirs] = useState(false);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const leaving = useRef(false);
  // Which button asked for this save: "Save and add another" or the plain one (Create case, Ctrl/⌘+S).
  const another = useRef(false);
  const dirty = fingerprint(draft) !== baseline;

  const blocker = useBlocker({
    shouldBlockFn: () => dirty && !leaving.current,
    enableBeforeUnload: () => dirty && !leaving.current,
    withResolver: true,
  });

  const set: SetDraft = (patch) =>
    setDraft((d) => ({ ...d, ...(typeof patch === 'function' ? patch(d) : patch) }));
  async function save() {
    // Read once: a later submit (Enter, the primary button) is a plain save unless it asks again.
    const andAnother = another.current;
    another.current = false;
    try {
      if (target.kind === 'new') {
        const made = await createTestCase(code, createBody(draft));
        leaving.current = true;
        await queryClient.invalidateQueries({ queryKey: queryKeys.testCases(code) });
        onSaved(made.seq, { another: andAnother, draft });
      } else {
        await updateTestCase(code, target.id, version, patchBody(draft));
        leaving.current = true;
        setBaseline(fingerprint(draft));
        // Show what the service stored (HTML is sanitised on write, D22), not what was typed.
        await queryClient.invalidateQueries({ queryKey: queryKeys.testCases(code) });
        onSaved();
      }
    } catch (e) {
      if (isApiError(e, 409) && target.kind === 'edit') {
        setConflict({ message: e.message, base: version });
        setShowTheirs(false);
        try {
          const latest = await queryClient.fetchQuery({ ...testCaseQuery(code, target.id), staleTime: 0 });
          setConflict({ message: e.message, base: version, current: latest.version });
        } catch {
          // The message already names the current version.
        }
      } else throw e;
    }
  }
  const form = useForm({ submit: save, errors: caseErrorsOf });
  const saveAndAddAnother = () => {
    another.current = true;
    void form.handleSubmit();
  };
  const saving = form.submitting;
  const errorAt = (path: string) => form.fieldErrors[path.slice(1)];

  function cancel() {
    if (dirty) setConfirmDiscard(true);
    else onCancel();
  }

  useKeyDown((e) => {
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      void form.handleSubmit();
    } else if (e.key === 'Escape' && !e.defaultPrevented && !overlayOpen()) {
      e.preventDefault();
      cancel();
    }
  });

  return (
    <Form {...form.formProps} className="tcase-editor" aria-label={heading} validationBehavior="aria">
      <div className="editor-bar">
        <h1 className="page-title">{heading}</h1>
        <p className="muted editor-state" aria-live="polite">
          {saving ? 'Saving…' : dirty ? 'Unsaved changes' : 'No changes yet'}
        </p>
        <div className="editor-actions">
          <Button onPress={cancel}>Cancel</Button>
          {target.kind === 'new' && (
            <Button onPress={saveAndAddAnother} isDisabled={saving}>
              Save and add another
            </Button>
          )}
          <Button variant="primary" type="submit" isDisabled={saving}>
            {saving ? 'Saving…' : target.kind === 'new' ? 'Create case' : 'Save'}
          </Button>
        </div>
      </div>
      <p className="muted editor-hint">
        <kbd>Ctrl</kbd>/<kbd>⌘</kbd>+<kbd>S</kbd> saves, <kbd>Esc</kbd> cancels.
      </p>

      {conflict && (
        <div className="status-error conflict" role="alert">
          <p className="status-title">
            Not saved: this case was changed by someone else
            {conflict.current ? ` and is now at version ${conflict.current}` : ''} since you opened version{' '}
            {conflict.base}.
          </p>
          <p>{conflict.message}. Your edits are kept below; nothing was overwritten.</p>
          <div className="conflict-actions">
            {conflict.current && (
              <Button onPress={() => setShowTheirs((s) => !s)} aria-expanded={showTheirs}>
                {showTheirs
                  ? 'Hide their change'
                  : `See their change (version ${conflict.base} → ${conflict.current})`}
              </Button>
            )}
            {conflict.current && (
              <Button
                variant="primary"
                onPress={() => {
                  setVersion(conflict.current!);
                  setConflict(null);
                  form.showErrors({
                    form: `Your edits now apply on top of version ${conflict.current}: review them, then save again.`,
                    fields: {},
                  });
                }}
              >
                Re-apply my edits on version {conflict.current}
              </Button>
            )}
            <Button
              variant="danger"
              onPress={() => {
                leaving.current = true;
                onCancel();
              }}
            >
              Discard my edits and reload
            </Button>
          </div>
          {showTheirs && conflict.current && target.kind === 'edit' && (
            <Suspense fallback={<p role="status">Loading the comparison…</p>}>
              <VersionCompare code={code} id={target.id} from={conflict.base} to={conflict.current} />
            </Suspense>
          )}
        </div>
      )}
      {!conflict && <FormError message={form.formError} />}

      <TestCaseForm code={code} draft={draft} set={set} errorAt={errorAt} isNew={target.kind === 'new'} />

      <div className="editor-actions editor-actions-bottom">
        <Button onPress={cancel}>Cancel</Button>
        {target.kind === 'new' && (
          <Button onPress={saveAndAddAnother} isDisabled={saving}>
            Save and add another
          </Button>
        )}
        <Button variant="primary" type="submit" isDisabled={saving}>
          {target.kind === 'new' ? 'Create case' : 'Save'}
        </Button>
      </div>

      <Dialog
        title="Discard your unsaved edits?"
        isOpen={confirmDiscard || blocker.status === 'blocked'}
        onOpenChange={(open) => {
          if (open) return;
          setConfirmDiscard(false);
          blocker.reset?.();
        }}
      >
        <p>Your changes to this case have not been saved. If you leave now they are lost.</p>
        <div className="dialog-actions">
          <Button variant="primary" slot="close" autoFocus>
            Keep editing
          </Button>
          <Button
            variant="danger"
            onPress={() => {
              leaving.current = true;
              setConfirmDiscard(false);
              if (blocker.status === 'blocked') blocker.proceed();
              else onCancel();
            }}
          >
            Discard edits
          </Button>
        </div>
      </Dialog>
    </Form>
  );
}
