import { act, cleanup, fireEvent, render, renderHook, screen } from '@testing-library/react';
import { FieldError, Form, Input, Label, TextField } from 'react-aria-components';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/client';
import { formErrorsOf, plainFormErrorsOf, useForm, type FormOptions } from './useForm';

const refusal = (message: string, details?: { path: string; message: string }[]) =>
  new ApiError(400, { message, code: 'VALIDATION_ERROR', ...(details ? { details } : {}) });

interface Invite {
  email: string;
  role: string;
}

function setup(options: Partial<FormOptions<Invite>> = {}) {
  const submit = vi.fn<FormOptions<Invite>['submit']>();
  const form = renderHook(() =>
    useForm<Invite>({ initial: { email: '', role: 'user' }, submit, ...options }),
  );
  return { form, submit };
}

describe('useForm', () => {
  it('sends what was typed, and is busy exactly while the request is on its way', async () => {
    let answer!: () => void;
    const { form, submit } = setup();
    submit.mockReturnValueOnce(new Promise<void>((resolve) => (answer = resolve)));
    act(() => form.result.current.set('email', 'ann@example.com'));
    let sent!: Promise<boolean>;
    act(() => {
      sent = form.result.current.handleSubmit();
    });
    expect(form.result.current.submitting).toBe(true);
    await act(async () => {
      answer();
      expect(await sent).toBe(true);
    });
    expect(form.result.current.submitting).toBe(false);
    expect(submit).toHaveBeenCalledWith({ email: 'ann@example.com', role: 'user' }, undefined);
  });

  it('puts the service’s field messages beside their fields and keeps everything typed', async () => {
    const { form, submit } = setup();
    submit.mockRejectedValueOnce(refusal('validation failed', [{ path: '/email', message: 'is taken' }]));
    act(() => form.result.current.set('email', 'ann@example.com'));
    await act(() => form.result.current.handleSubmit());
    expect(form.result.current.fieldErrors).toEqual({ email: 'is taken' });
    expect(form.result.current.formError).toBeUndefined();
    expect(form.result.current.values).toEqual({ email: 'ann@example.com', role: 'user' });
  });

  it('shows a refusal about no field above the form, and a lost connection in words', async () => {
    const { form, submit } = setup();
    submit.mockRejectedValueOnce(refusal('you may not invite an owner'));
    await act(() => form.result.current.handleSubmit());
    expect(form.result.current.formError).toBe('You may not invite an owner.');
    expect(form.result.current.fieldErrors).toEqual({});
    submit.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    await act(() => form.result.current.handleSubmit());
    expect(form.result.current.formError).toBe(
      'The service could not be reached. Check your connection and try again.',
    );
  });

  it('clears the last errors when the form is sent again and goes through', async () => {
    const { form, submit } = setup();
    submit.mockRejectedValueOnce(refusal('bad', [{ path: '/role', message: 'is unknown' }]));
    await act(() => form.result.current.handleSubmit());
    submit.mockResolvedValueOnce(undefined);
    await act(() => form.result.current.handleSubmit());
    expect(form.result.current.fieldErrors).toEqual({});
    expect(form.result.current.formError).toBeUndefined();
  });

  it('ignores a second submit while the first is on its way', async () => {
    let answer!: () => void;
    const { form, submit } = setup();
    submit.mockReturnValue(new Promise<void>((resolve) => (answer = resolve)));
    let first!: Promise<boolean>;
    let second!: Promise<boolean>;
    act(() => {
      first = form.result.current.handleSubmit();
      second = form.result.current.handleSubmit();
    });
    await act(async () => {
      answer();
      await first;
    });
    expect(await second).toBe(false);
    expect(submit).toHaveBeenCalledTimes(1);
  });

  it('reads errors the form’s own way when it says how', async () => {
    const { form, submit } = setup({ errors: () => ({ fields: { email: 'Already invited.' } }) });
    submit.mockRejectedValueOnce(refusal('conflict'));
    await act(() => form.result.current.handleSubmit());
    expect(form.result.current.fieldErrors).toEqual({ email: 'Already invited.' });
  });

  it('reads the inputs of the form that was submitted', async () => {
    const { form, submit } = setup();
    const element = document.createElement('form');
    const input = document.createElement('input');
    input.name = 'title';
    input.value = 'Nightly';
    element.append(input);
    const preventDefault = vi.fn();
    await act(() => form.result.current.handleSubmit({ preventDefault, currentTarget: element } as never));
    expect(preventDefault).toHaveBeenCalled();
    expect(submit.mock.calls[0]![1]?.get('title')).toBe('Nightly');
  });

  it('starts again from the first values with no errors when reset', async () => {
    const { form, submit } = setup();
    submit.mockRejectedValueOnce(refusal('bad', [{ path: '/email', message: 'is invalid' }]));
    act(() => form.result.current.set('email', 'x'));
    await act(() => form.result.current.handleSubmit());
    act(() => form.result.current.reset());
    expect(form.result.current.values).toEqual({ email: '', role: 'user' });
    expect(form.result.current.fieldErrors).toEqual({});
  });
});

describe('a refused field’s message', () => {
  it('goes as soon as that field’s value changes, and the other fields keep theirs', async () => {
    const { form, submit } = setup();
    submit.mockRejectedValueOnce(
      refusal('bad', [
        { path: '/email', message: 'is taken' },
        { path: '/role', message: 'is unknown' },
      ]),
    );
    await act(() => form.result.current.handleSubmit());
    act(() => form.result.current.set('email', 'bob@example.com'));
    expect(form.result.current.fieldErrors).toEqual({ role: 'is unknown' });
    act(() => form.result.current.fieldChanged('role'));
    expect(form.result.current.fieldErrors).toEqual({});
  });

  it('stays while the form is sent again, and is replaced by the answer', async () => {
    let refuse!: (e: unknown) => void;
    const { form, submit } = setup();
    submit.mockRejectedValueOnce(refusal('bad', [{ path: '/email', message: 'is taken' }]));
    await act(() => form.result.current.handleSubmit());
    submit.mockReturnValueOnce(new Promise((_, reject) => (refuse = reject)));
    let sent!: Promise<boolean>;
    act(() => {
      sent = form.result.current.handleSubmit();
    });
    // Nothing disappears under the pointer while the answer is awaited.
    expect(form.result.current.fieldErrors).toEqual({ email: 'is taken' });
    await act(async () => {
      refuse(refusal('bad', [{ path: '/role', message: 'is unknown' }]));
      expect(await sent).toBe(false);
    });
    expect(form.result.current.fieldErrors).toEqual({ role: 'is unknown' });
  });
});

describe('a form on the page', () => {
  afterEach(cleanup);

  function Invite({ submit, controlled }: { submit: FormOptions<Invite>['submit']; controlled: boolean }) {
    const form = useForm<Invite>({ initial: { email: '', role: 'user' }, submit });
    const field = (name: keyof Invite, label: string) => (
      <TextField
        name={name}
        {...(controlled ? { value: form.values[name], onChange: (v: string) => form.set(name, v) } : {})}
      >
        <Label>{label}</Label>
        <Input />
        <FieldError />
      </TextField>
    );
    return (
      <Form {...form.formProps} validationBehavior="aria">
        {field('email', 'E-mail')}
        {field('role', 'Role')}
        <button type="submit">Invite</button>
      </Form>
    );
  }

  for (const controlled of [true, false]) {
    it(`takes a message away while its field is typed in, not when it is left (${controlled ? 'controlled' : 'read at submit'})`, async () => {
      const submit = vi.fn<FormOptions<Invite>['submit']>();
      submit.mockRejectedValue(
        refusal('bad', [
          { path: '/email', message: 'E-mail is taken.' },
          { path: '/role', message: 'Role is unknown.' },
        ]),
      );
      render(<Invite submit={submit} controlled={controlled} />);
      await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Invite' })));
      expect(screen.getByText('E-mail is taken.')).toBeTruthy();
      expect(screen.getByText('Role is unknown.')).toBeTruthy();

      const email = screen.getByRole('textbox', { name: 'E-mail' });
      act(() => {
        email.focus();
        fireEvent.input(email, { target: { value: 'bob@example.com' } });
      });
      // Gone while the field still has the focus; the other field's message stays.
      expect(document.activeElement).toBe(email);
      expect(screen.queryByText('E-mail is taken.')).toBeNull();
      expect(screen.getByText('Role is unknown.')).toBeTruthy();

      // Leaving the field (the browser's change event, then blur) shows nothing new and takes nothing else.
      act(() => {
        fireEvent.change(email);
        fireEvent.blur(email);
      });
      expect(screen.queryByText('E-mail is taken.')).toBeNull();
      expect(screen.getByText('Role is unknown.')).toBeTruthy();
    });
  }
});

describe('reading a failed request', () => {
  it('keeps the first message for each top-level field', () => {
    const e = refusal('bad', [
      { path: '/links/0/url', message: 'must be a URL' },
      { path: '/links/1/url', message: 'is too long' },
    ]);
    expect(formErrorsOf(e)).toEqual({ fields: { links: 'must be a URL' } });
  });

  it('can show a message as it was worded', () => {
    expect(plainFormErrorsOf(refusal('title is taken'))).toEqual({ form: 'title is taken', fields: {} });
    expect(plainFormErrorsOf(new Error('Failed to fetch'))).toEqual({ form: 'Failed to fetch', fields: {} });
  });
});
