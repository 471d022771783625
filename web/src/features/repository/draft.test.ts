import { describe, expect, it } from 'vitest';
import type { TestCase } from './api';
import {
  copyDraft,
  createBody,
  draftOf,
  emptyDraft,
  errorsByPath,
  fingerprint,
  nextDraft,
  patchBody,
  placeholders,
  type Draft,
} from './draft';

const stored = {
  type: 'standalone',
  title: 'Log in',
  priority: 'high',
  folderId: 3,
  precondition: { type: 'shared', id: 5, text: 'A user exists' },
  steps: [
    { type: 'standalone', description: 'Open the page', expected: 'A form' },
    {
      type: 'shared',
      id: 8,
      title: 'Fill the form',
      subSteps: [{ id: 1, description: 'Type', expected: 'Typed' }],
    },
  ],
  tags: [{ id: 1, title: 'smoke' }],
  customFields: { env: { value: 'staging', isDefault: false }, browser: { value: 'x', isDefault: true } },
  requirements: [{ text: 'R1', url: 'https://r.example/1' }],
  links: [],
  files: [],
  isDraft: false,
} as unknown as TestCase;

describe('the test case editor’s draft', () => {
  it('holds a stored case the way the editor shows it', () => {
    const d = draftOf(stored);
    expect(d).toMatchObject({
      title: 'Log in',
      preconditionMode: 'shared',
      preconditionText: '',
      sharedPreconditionId: 5,
      tags: ['smoke'],
      customFields: { env: 'staging', browser: null },
    });
    expect(d.steps.map((s) => s.sharedStepId ?? s.description)).toEqual(['Open the page', 8]);
    expect(new Set(d.steps.map((s) => s.key)).size).toBe(2);
  });

  it('is not dirty when only its steps’ keys differ, and is dirty once anything typed differs', () => {
    const a = draftOf(stored);
    const b = draftOf(stored);
    expect(a.steps[0]!.key).not.toBe(b.steps[0]!.key);
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(fingerprint({ ...b, title: 'Log in!' })).not.toBe(fingerprint(a));
  });

  it('saves shared steps and preconditions by reference and default custom fields as defaults', () => {
    const body = patchBody(draftOf(stored));
    expect(body.precondition).toEqual({ sharedPreconditionId: 5 });
    expect(body.steps).toEqual([{ description: 'Open the page', expected: 'A form' }, { sharedStepId: 8 }]);
    expect(body.customFields).toEqual({ env: { value: 'staging' }, browser: { isDefault: true } });
    expect(body).not.toHaveProperty('parameterValues');
  });

  it('creates a template with its parameter rows, and a plain case without them', () => {
    const template: Draft = {
      ...emptyDraft(1),
      type: 'template',
      title: 'Pay with ${card}',
      parameterValues: [{ tcaseId: 'old', values: { card: 'visa' } }],
    };
    expect(createBody(template)).toMatchObject({
      type: 'template',
      parameterValues: [{ values: { card: 'visa' } }],
      precondition: { text: '' },
    });
    expect(createBody(emptyDraft(1))).not.toHaveProperty('parameterValues');
    expect(createBody({ ...emptyDraft(1), type: 'filled' }).type).toBe('standalone');
  });

  it('lists a template’s placeholders once each, in the order they first appear', () => {
    const d: Draft = {
      ...emptyDraft(1),
      title: 'Pay ${amount} with ${card}',
      steps: [{ key: 's', description: 'Use ${card} and ${cvc}', expected: '${amount} paid' }],
      parameterValues: [{ values: { card: 'visa', currency: 'EUR' } }],
    };
    expect(placeholders(d)).toEqual(['amount', 'card', 'cvc', 'currency']);
  });

  it('keeps the first message the service gave for each field', () => {
    const errors = errorsByPath([
      { path: '/title', message: 'is required' },
      { path: '/title', message: 'is too long' },
      { path: '/steps/0/description', message: 'is too long' },
    ]);
    expect(Object.fromEntries(errors)).toEqual({
      '/title': 'is required',
      '/steps/0/description': 'is too long',
    });
    expect(errorsByPath(undefined).size).toBe(0);
  });

  it('copies a case into a new one titled "Copy of …" with everything it holds', () => {
    const copy = copyDraft(stored);
    expect(copy).toMatchObject({
      ...draftOf(stored),
      title: 'Copy of Log in',
      steps: [
        expect.objectContaining({ description: 'Open the page' }),
        expect.objectContaining({ sharedStepId: 8 }),
      ],
    });
    expect(createBody(copy)).toMatchObject({
      type: 'standalone',
      folderId: 3,
      tags: ['smoke'],
      priority: 'high',
    });
    // A filled case's copy is a case of its own; a template's copy makes its own filled cases.
    expect(copyDraft({ ...stored, type: 'filled' } as TestCase).type).toBe('standalone');
    const template = copyDraft({
      ...stored,
      type: 'template',
      parameterValues: [{ tcaseId: 'f1', values: { browser: 'Chrome' } }],
    } as unknown as TestCase);
    expect(createBody(template).parameterValues).toEqual([{ values: { browser: 'Chrome' } }]);
  });

  it('starts the next case after "Save and add another" empty, in the same folder with the same choices', () => {
    const next = nextDraft({
      ...emptyDraft(7),
      title: 'Done',
      priority: 'low',
      type: 'template',
      tags: ['a'],
    });
    expect(next).toEqual({ ...emptyDraft(7), priority: 'low', type: 'template' });
  });
});
