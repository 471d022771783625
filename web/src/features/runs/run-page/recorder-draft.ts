import type { ResultDraft } from '../api';
import type { StatusId } from '../../../api/statuses';

/** A result as a tester drafts it on the run page, and the checks and shape it takes before it is sent. */

export interface AttachedFile {
  id: string;
  url: string;
  fileName: string;
  mimeType?: string;
  size?: number;
}

/** What a tester has typed for a case and not sent yet; kept per case until its result is recorded. */
export interface RecorderDraft {
  /** HTML from the rich-text editor; '' for none. */
  comment: string;
  linkUrl: string;
  linkText: string;
  /** '' for a plain link; otherwise the project integration the link belongs to. */
  integrationId: string;
  /** The issue's number or key on that tracker (meta.id): the service comments back on it. */
  issueId: string;
  files: AttachedFile[];
  /** Uploads still on their way: the result waits for them, so no file is left behind. */
  uploading: number;
}

export const emptyDraft: RecorderDraft = {
  comment: '',
  linkUrl: '',
  linkText: '',
  integrationId: '',
  issueId: '',
  files: [],
  uploading: 0,
};

export type DraftUpdate = (update: (d: RecorderDraft) => RecorderDraft) => void;

/** The issue number or key a tracker address names: `…/issues/42` → 42, `…/browse/SHOP-7` → SHOP-7. */
export function issueIdFromUrl(url: string): string {
  const key = /\b([A-Z][A-Z0-9]+-\d+)\b/.exec(url);
  if (key) return key[1];
  const number = /\/(\d+)\/?(?:[?#].*)?$/.exec(url);
  return number ? number[1] : '';
}

const isHttpUrl = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

export interface DraftProblem {
  field: 'link' | 'files';
  message: string;
}

/** Why the draft cannot be sent yet, in words and where to show them; undefined when it can. */
export function draftProblem(d: RecorderDraft): DraftProblem | undefined {
  if (d.uploading > 0)
    return { field: 'files', message: 'Wait for the upload to finish: the files are not attached yet.' };
  const url = d.linkUrl.trim();
  if (!url && d.integrationId) return { field: 'link', message: 'Give the address of the issue.' };
  if (url && !isHttpUrl(url))
    return {
      field: 'link',
      message: 'The issue link must be an http(s) address, like https://tracker.example.com/issues/42.',
    };
  return undefined;
}

/**
 * The draft as the result API takes it. Attachments are items of the result (`files`, extensions.md §8), uploaded
 * for it; a tracker link with an issue id asks the service to comment back on that issue.
 */
export function draftToResult(status: StatusId, d: RecorderDraft): ResultDraft {
  const comment = d.comment;
  const url = d.linkUrl.trim();
  const text = d.linkText.trim() || url;
  const issueId = d.issueId.trim() || issueIdFromUrl(url);
  const link = !url
    ? undefined
    : d.integrationId
      ? { integrationId: d.integrationId, url, text, ...(issueId ? { meta: { id: issueId } } : {}) }
      : { url, text };
  return {
    status,
    ...(comment ? { comment } : {}),
    ...(link ? { links: [link] } : {}),
    ...(d.files.length ? { files: d.files.map((f) => f.id) } : {}),
  };
}
