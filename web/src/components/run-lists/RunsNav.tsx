import { Link } from '@tanstack/react-router';

/** Runs, plans and milestones of a project: three views of the same work, a click apart. */
export function RunsNav({ code }: { code: string }) {
  return (
    <nav aria-label="Testing" className="runs-nav">
      <Link to="/project/$code/runs" params={{ code }} activeProps={{ 'aria-current': 'page' }}>
        Runs
      </Link>
      <Link to="/project/$code/plans" params={{ code }} activeProps={{ 'aria-current': 'page' }}>
        Test plans
      </Link>
      <Link to="/project/$code/milestones" params={{ code }} activeProps={{ 'aria-current': 'page' }}>
        Milestones
      </Link>
    </nav>
  );
}
