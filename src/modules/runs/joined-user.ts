// Shared by the run reads and the result reads (run-tcases/), beside both.

/** A user read by a join (a run's assignee, a result's author); null when there is none, or it is gone. */
export function joinedUser(
  id: number | null,
  email: string | null,
  name: string | null,
  avatar: string | null,
  role: string | null,
): { id: number; email: string; name: string; avatar: string | null; role: string } | null {
  return id !== null && email !== null ? { id, email, name: name ?? '', avatar, role: role ?? '' } : null;
}
