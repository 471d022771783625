import { describe, expect, it } from 'vitest';
import { draftProblem, draftToResult, emptyDraft, issueIdFromUrl } from './recorder-draft';

describe('the recorder’s draft', () => {
  it('reads the issue number or key from a tracker address', () => {
    expect(issueIdFromUrl('https://github.com/acme/shop/issues/42')).toBe('42');
    expect(issueIdFromUrl('https://github.com/acme/shop/issues/42/?tab=x#c')).toBe('42');
    expect(issueIdFromUrl('https://acme.atlassian.net/browse/SHOP-7')).toBe('SHOP-7');
    expect(issueIdFromUrl('https://tracker.example.com/board')).toBe('');
  });

  it('can be sent when empty, and not while a file is still uploading', () => {
    expect(draftProblem(emptyDraft)).toBeUndefined();
    expect(draftProblem({ ...emptyDraft, uploading: 1 })).toEqual({
      field: 'files',
      message: 'Wait for the upload to finish: the files are not attached yet.',
    });
  });

  it('asks for an http(s) issue link, and for one at all once a tracker is chosen', () => {
    expect(draftProblem({ ...emptyDraft, linkUrl: 'javascript:alert(1)' })?.field).toBe('link');
    expect(draftProblem({ ...emptyDraft, linkUrl: 'tracker/42' })?.field).toBe('link');
    expect(draftProblem({ ...emptyDraft, integrationId: 'gh' })).toEqual({
      field: 'link',
      message: 'Give the address of the issue.',
    });
    expect(draftProblem({ ...emptyDraft, linkUrl: ' https://t.example/issues/1 ' })).toBeUndefined();
  });

  it('sends only the status when nothing else was typed', () => {
    expect(draftToResult('passed', emptyDraft)).toEqual({ status: 'passed' });
  });

  it('sends attached files as the result files, in order, leaving the comment as typed', () => {
    const result = draftToResult('failed', {
      ...emptyDraft,
      comment: '<p>Broken</p>',
      files: [
        { id: 'f1', url: '/files/f1', fileName: '<shot>.png' },
        { id: 'f2', url: '/files/f2', fileName: 'log.txt' },
      ],
    });
    expect(result).toEqual({ status: 'failed', comment: '<p>Broken</p>', files: ['f1', 'f2'] });
  });

  it('sends a plain link with its address as text when no text was given', () => {
    expect(draftToResult('failed', { ...emptyDraft, linkUrl: ' https://t.example/x ' }).links).toEqual([
      { url: 'https://t.example/x', text: 'https://t.example/x' },
    ]);
  });

  it('asks the tracker to comment back on the issue the link names, unless an id was typed', () => {
    const tracked = { ...emptyDraft, integrationId: 'gh', linkUrl: 'https://github.com/a/b/issues/42' };
    expect(draftToResult('failed', { ...tracked, linkText: 'Bug' }).links).toEqual([
      { integrationId: 'gh', url: 'https://github.com/a/b/issues/42', text: 'Bug', meta: { id: '42' } },
    ]);
    expect(draftToResult('failed', { ...tracked, issueId: ' 7 ' }).links?.[0]).toMatchObject({
      meta: { id: '7' },
    });
  });
});
