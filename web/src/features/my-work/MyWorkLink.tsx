import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { canRunTests, meQuery } from '../../session/session';

/** The header's way to "My work", for the people who can be assigned cases. */
export function MyWorkLink() {
  const me = useQuery(meQuery).data;
  if (!me || !canRunTests(me.role)) return null;
  return (
    <Link to="/my-work" className="topbar-link" activeProps={{ 'aria-current': 'page' }}>
      My work
    </Link>
  );
}
