import { useRef, useState, type FormEvent } from 'react';
import { isApiError } from '../api/client';

/** What a failed submission shows: messages beside their fields, and the rest above the form. */
export interface FormErrors {
  form?: string;
  fields: Record<string, string>;
}

const NONE: FormErrors = { fields: {} };

export const UNREACHABLE = 'The service could not be reached. Check your connection and try again.';

/** A message from the service as a sentence: capital first, one full stop. */
export const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1).replace(/\.?$/, '.');

/** The usual reading of a refusal: the body's `details` beside their fields, else its message as a sentence. */
export function formErrorsOf(e: unknown): FormErrors {
  if (!isApiError(e)) return { form: UNREACHABLE, fields: {} };
  const fields = e.fieldErrors();
  return Object.keys(fields).length > 0 ? { fields } : { form: sentence(e.message), fields: {} };
}

/** As `formErrorsOf`, but a message without a field is shown as the service (or the browser) worded it. */
export function plainFormErrorsOf(e: unknown): FormErrors {
  const fields = isApiError(e) ? e.fieldErrors() : {};
  if (Object.keys(fields).length > 0) return { fields };
  return { form: e instanceof Error ? e.message : String(e), fields: {} };
}

/**
 * As `plainFormErrorsOf`, for a form that shows only `shown` beside their fields: a refusal at any other field
 * (a nested path, a field the form has no input for) is said above the form, so no refusal goes unseen.
 */
export function shownFieldErrorsOf(shown: string[]) {
  return (e: unknown): FormErrors => {
    const { form, fields } = plainFormErrorsOf(e);
    const kept: Record<string, string> = {};
    const rest: string[] = [];
    for (const [name, message] of Object.entries(fields)) {
      if (shown.includes(name)) kept[name] = message;
      else rest.push(sentence(message));
    }
    const above = [form, ...rest].filter((m): m is string => Boolean(m));
    return { fields: kept, ...(above.length ? { form: above.join(' ') } : {}) };
  };
}

export interface FormOptions<V> {
  /** The fields the form holds itself (controlled); forms that read their inputs at submit leave it out. */
  initial?: V;
  /** Sends the form. `data` is the form's inputs when it was submitted by a form event. Throw to refuse. */
  submit: (values: V, data: FormData | undefined) => Promise<unknown>;
  /** How an error reads on this form; `formErrorsOf` unless the form knows better. */
  errors?: (e: unknown) => FormErrors;
}

/**
 * One form's values, its submitting state and its errors. A failed submission shows why (per field, from the
 * JSON error body, for React Aria's `validationErrors`, or above the form) and keeps everything typed, so the
 * person corrects and sends again; a second submit while one is on its way is ignored.
 *
 * A field's message goes as soon as its value changes (`set`, `fieldChanged`, or an input event reaching
 * `handleInput`), while the person types: React Aria would otherwise keep it until the field is left, and a
 * message vanishing on that blur moved the button under the pointer away from the click. The last errors also
 * stay while a submission is on its way and are replaced by its answer, so nothing jumps when Save is pressed.
 */
export function useForm<V extends object = Record<string, never>>(options: FormOptions<V>) {
  const [values, setValues] = useState<V>(() => options.initial ?? ({} as V));
  const [errors, setErrors] = useState<FormErrors>(NONE);
  const [submitting, setSubmitting] = useState(false);
  // State lags a render behind: a double click or Enter held down must not send twice.
  const inFlight = useRef(false);

  /** Drops a field's message (its value changed); the same errors object when it had none. */
  const fieldChanged = (name: string) =>
    setErrors((e) => {
      if (!(name in e.fields)) return e;
      const { [name]: _gone, ...fields } = e.fields;
      return { ...e, fields };
    });

  const set = <K extends keyof V>(name: K, value: V[K]) => {
    setValues((v) => ({ ...v, [name]: value }));
    fieldChanged(String(name));
  };

  /** `<Form onInput>`: a form that reads its inputs at submit clears a field's message as it is typed in. */
  const handleInput = (event: FormEvent<HTMLFormElement>) => {
    const name = (event.target as { name?: unknown }).name;
    if (typeof name === 'string' && name) fieldChanged(name);
  };

  /** Sends the form; true when it went through. Usable as `<Form onSubmit>` or called from a key. */
  async function handleSubmit(event?: FormEvent<HTMLFormElement>): Promise<boolean> {
    event?.preventDefault();
    if (inFlight.current) return false;
    const data = event ? new FormData(event.currentTarget) : undefined;
    inFlight.current = true;
    setSubmitting(true);
    try {
      await options.submit(values, data);
      setErrors(NONE);
      return true;
    } catch (e) {
      setErrors((options.errors ?? formErrorsOf)(e));
      return false;
    } finally {
      inFlight.current = false;
      setSubmitting(false);
    }
  }

  return {
    values,
    set,
    setValues,
    submitting,
    formError: errors.form,
    fieldErrors: errors.fields,
    /** Shows an error found outside a submission (or a field's own rule), the same way. */
    showErrors: setErrors,
    fieldChanged,
    handleInput,
    /**
     * What a React Aria `<Form>` takes from the form, spread: its errors, its submit, and the input events that
     * clear a field's message. (React Aria passes `onInput` to the <form> but does not type it; a spread is not
     * checked for extra properties, and useForm.test.tsx checks that it arrives.)
     */
    formProps: { validationErrors: errors.fields, onSubmit: handleSubmit, onInput: handleInput },
    clearErrors: () => setErrors(NONE),
    /** Back to the start: the first values, no errors (a dialog that closes). */
    reset: () => {
      setValues(options.initial ?? ({} as V));
      setErrors(NONE);
    },
    handleSubmit,
  };
}
