import { Button } from '../../components/Button';
import type { FileRef } from './draft';
import { formatBytes } from '../../lib/format';

/** The image types the service serves inline (files.service.ts servedAs); an SVG downloads, so it is not previewed. */
const RASTER_IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;

/** Attachments: raster images previewed, every file downloadable; removable while editing. */
export function Attachments({ files, onRemove }: { files: FileRef[]; onRemove?: (id: string) => void }) {
  if (files.length === 0) return <p className="muted">No attachments.</p>;
  return (
    <ul className="attachments">
      {files.map((f) => (
        <li key={f.id} className="attachment">
          {RASTER_IMAGE.test(f.mimeType) && (
            <a href={f.url} target="_blank" rel="noreferrer noopener" className="attachment-preview">
              <img src={f.url} alt={`Preview of ${f.fileName}`} loading="lazy" />
            </a>
          )}
          <span className="attachment-name">
            <a href={f.url} download={f.fileName}>
              Download {f.fileName}
            </a>{' '}
            <span className="muted">({formatBytes(f.size)})</span>
          </span>
          {onRemove && (
            <Button
              variant="ghost"
              aria-label={`Remove attachment ${f.fileName}`}
              onPress={() => onRemove(f.id)}
            >
              ✕
            </Button>
          )}
        </li>
      ))}
    </ul>
  );
}
