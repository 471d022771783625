import { formatBytes } from '../../../lib/format';

/** A file a result names, as the service answers it (extensions.md §8). */
export interface ResultFile {
  id: string;
  fileName: string;
  mimeType: string;
  size: number;
  url: string;
}

/** Image types the service serves inline (files.service.ts servedAs): previewed; every other file is a download. */
const PREVIEWED = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;

/**
 * A result's attachments: images as thumbnails opening the full image in a new tab, other files as download links
 * with their name and size. Nothing when the result has none.
 */
export function ResultFiles({ files }: { files: ResultFile[] | undefined }) {
  if (!files || files.length === 0) return null;
  const images = files.filter((f) => PREVIEWED.test(f.mimeType));
  const others = files.filter((f) => !PREVIEWED.test(f.mimeType));
  return (
    <div className="result-files">
      {images.length > 0 && (
        <ul className="result-thumbs" aria-label="Attached images">
          {images.map((f) => (
            <li key={f.id}>
              <a href={f.url} target="_blank" rel="noopener noreferrer" title={`Open ${f.fileName}`}>
                <img src={f.url} alt={f.fileName} loading="lazy" decoding="async" />
              </a>
            </li>
          ))}
        </ul>
      )}
      {others.length > 0 && (
        <ul className="result-downloads" aria-label="Attached files">
          {others.map((f) => (
            <li key={f.id}>
              <a href={f.url} download={f.fileName}>
                {f.fileName}
              </a>{' '}
              <span className="muted">({formatBytes(f.size)})</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
