import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Form } from 'react-aria-components';
import { isApiError } from '../../../api/client';
import { queryKeys } from '../../../api/keys';
import { Button } from '../../../components/Button';
import { FormError } from '../../../components/FormError';
import { RichTextField } from '../../../components/rich-text/RichText';
import { TextField } from '../../../components/TextField';
import { FieldProblem } from '../../../lib/field-problem';
import { sentence, UNREACHABLE, useForm, type FormErrors } from '../../../lib/useForm';
import {
  createSharedPrecondition,
  createSharedStep,
  updateSharedPrecondition,
  updateSharedStep,
  type SharedKind,
} from './api';
import { casesWord, NOUN, UserList, type LibraryItem } from './library-parts';

interface SubStepRow {
  key: number;
  description: string;
  expected: string;
}
let nextKey = 0;
const row = (description = '', expected = ''): SubStepRow => ({ key: nextKey++, description, expected });

/** `/subSteps/2` is the third sub-step's field (`subStep-2`); the rest name a top-level field (`/title`). */
function editorErrorsOf(e: unknown): FormErrors {
  if (e instanceof FieldProblem) return { fields: { [e.field]: e.message } };
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields: Record<string, string> = {};
  for (const d of e.body.details ?? []) {
    const m = /^\/subSteps\/(\d+)/.exec(d.path);
    const name = m ? `subStep-${m[1]}` : (d.path.split('/')[1] ?? '');
    fields[name] ??= sentence(d.message);
  }
  // A title another item holds is a 409 without details: it is the title's problem.
  if (e.status === 409) return { fields: { title: sentence(e.message) } };
  return Object.keys(fields).length ? { fields } : { form: sentence(e.message), fields: {} };
}

/**
 * Creates or edits a shared step (title and sub-steps) or a shared precondition (title and text), with the
 * rich-text editor of the case editor. Editing one lists the test cases the change reaches before it is saved.
 */
export function SharedItemEditor({
  code,
  kind,
  item,
  onDone,
}: {
  code: string;
  kind: SharedKind;
  item: LibraryItem | null;
  onDone: () => void;
}) {
  const queryClient = useQueryClient();
  const noun = NOUN[kind];
  const [title, setTitle] = useState(item?.title ?? '');
  const [text, setText] = useState(item?.kind === 'precondition' ? item.text : '');
  const [subSteps, setSubSteps] = useState<SubStepRow[]>(
    item?.kind === 'step' ? item.subSteps.map((s) => row(s.description, s.expected)) : [row()],
  );
  const form = useForm({
    submit: async () => {
      const t = title.trim();
      if (!t) throw new FieldProblem('title', `Give the ${noun} a title.`);
      const steps = subSteps.map((s) => ({ description: s.description, expected: s.expected }));
      if (kind === 'step') {
        if (item) await updateSharedStep(code, item.id, { title: t, subSteps: steps });
        else await createSharedStep(code, { title: t, subSteps: steps });
      } else if (item) await updateSharedPrecondition(code, item.id, { title: t, text });
      else await createSharedPrecondition(code, { title: t, text });
      // The library, the case editor's pick lists, and every case that shows the item.
      await Promise.all([
        queryClient.invalidateQueries({
          queryKey: kind === 'step' ? queryKeys.sharedSteps(code) : queryKeys.sharedPreconditions(code),
        }),
        queryClient.invalidateQueries({ queryKey: queryKeys.testCases(code) }),
      ]);
      onDone();
    },
    errors: editorErrorsOf,
  });
  const update = (key: number, patch: Partial<SubStepRow>) =>
    setSubSteps((rows) => rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const uses = item?.tcaseCount ?? 0;

  return (
    <div className="library-editor">
      <h3 className="settings-subtitle">{item ? `Edit “${item.title}”` : `New ${noun}`}</h3>
      <FormError message={form.formError} />
      <Form {...form.formProps} className="form" validationBehavior="aria">
        <TextField
          label="Title"
          name="title"
          autoFocus
          value={title}
          onChange={(v) => {
            form.fieldChanged('title');
            setTitle(v);
          }}
        />
        {kind === 'precondition' ? (
          <RichTextField
            label="Text"
            value={text}
            onChange={(v) => {
              form.fieldChanged('text');
              setText(v);
            }}
            error={form.fieldErrors.text}
          />
        ) : (
          <fieldset className="library-substep-rows">
            <legend className="field-label">Sub-steps</legend>
            {form.fieldErrors.subSteps && <p className="field-error">{form.fieldErrors.subSteps}</p>}
            {subSteps.map((s, i) => (
              <div key={s.key} className="library-substep-row">
                <RichTextField
                  label={`Sub-step ${i + 1} description`}
                  value={s.description}
                  onChange={(description) => {
                    form.fieldChanged(`subStep-${i}`);
                    update(s.key, { description });
                  }}
                  error={form.fieldErrors[`subStep-${i}`]}
                />
                <RichTextField
                  label={`Sub-step ${i + 1} expected result`}
                  value={s.expected}
                  onChange={(expected) => {
                    form.fieldChanged(`subStep-${i}`);
                    update(s.key, { expected });
                  }}
                />
                {subSteps.length > 1 && (
                  <Button
                    variant="ghost"
                    aria-label={`Remove sub-step ${i + 1}`}
                    onPress={() => setSubSteps((rows) => rows.filter((r) => r.key !== s.key))}
                  >
                    Remove sub-step
                  </Button>
                )}
              </div>
            ))}
            <Button onPress={() => setSubSteps((rows) => [...rows, row()])}>Add a sub-step</Button>
          </fieldset>
        )}
        {item &&
          (uses > 0 ? (
            <div className="notice library-reach" role="note">
              <p>
                Saving changes {casesWord(uses)}: each shows the new version of this {noun}.
              </p>
              <UserList code={code} kind={kind} id={item.id} label="Test cases this change reaches" />
            </div>
          ) : (
            <p className="muted">No test case uses it: saving changes no case.</p>
          ))}
        <div className="form-row">
          <Button type="submit" variant="primary" isPending={form.submitting}>
            {item ? 'Save changes' : `Create ${noun}`}
          </Button>
          <Button onPress={onDone} isDisabled={form.submitting}>
            Cancel
          </Button>
        </div>
      </Form>
    </div>
  );
}
