/** The first letters of a person's first and last names: the avatar of a run case's assignee. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = [...words[0]][0] ?? '';
  const last = words.length > 1 ? ([...words[words.length - 1]][0] ?? '') : '';
  return (first + last).toUpperCase();
}

/** An assignee as initials in a circle and the name beside them (the name is what a screen reader reads). */
export function AssigneeBadge({ name, compact = false }: { name: string; compact?: boolean }) {
  return (
    <span className={`assignee${compact ? ' assignee-compact' : ''}`}>
      {/* Drawn by CSS from the attribute: the initials are no text of the control's name (label in name). */}
      <span className="assignee-avatar" aria-hidden="true" data-initials={initialsOf(name)} />
      <span className="assignee-name">{name}</span>
    </span>
  );
}
