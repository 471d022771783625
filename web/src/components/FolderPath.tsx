import { PATH_MAX_CHARS, pathText, shortPathText } from '../lib/folder-path';

/**
 * A folder named by its whole path (`Shop / Checkout / Cards`), shortened in the middle when long
 * (`Shop / … / Checkout / Cards`): the whole path is then the tooltip and what a screen reader reads. The one way a
 * page shows where a case or a group sits (lib/folder-path.ts builds the paths).
 */
export function FolderPath({
  path,
  max = PATH_MAX_CHARS,
  className,
  empty = 'No folder',
}: {
  path: readonly string[];
  max?: number;
  className?: string;
  /** What a case without a folder (a deleted one) shows. */
  empty?: string;
}) {
  const cls = `folder-path${className ? ` ${className}` : ''}`;
  if (path.length === 0) return <span className={cls}>{empty}</span>;
  const full = pathText(path);
  const { text, shortened } = shortPathText(path, max);
  if (!shortened) return <span className={cls}>{full}</span>;
  return (
    <span className={cls} title={full}>
      <span aria-hidden="true">{text}</span>
      <span className="visually-hidden">{full}</span>
    </span>
  );
}

/** A folder as a select's option: the shortened path shown, the whole one its name and tooltip. */
export function FolderPathOption({
  value,
  path,
  max = PATH_MAX_CHARS,
}: {
  value: number | string;
  path: readonly string[];
  max?: number;
}) {
  const full = pathText(path);
  const { text, shortened } = shortPathText(path, max);
  return (
    // The full path as the option's description, not its name: a name must hold the text shown (WCAG 2.5.3).
    <option value={value} title={shortened ? full : undefined}>
      {text}
    </option>
  );
}
