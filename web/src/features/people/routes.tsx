import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { peopleAreaRoute } from '../../routing/layouts';

// People (admins and the owner): invite, pending invitations, roles, deactivation.
const peopleRoute = createRoute({
  getParentRoute: () => peopleAreaRoute,
  path: '/people',
  staticData: {
    tab: { label: 'People', order: 10 },
    access: {
      role: 'admin',
      title: 'People',
      denied: 'You need the admin role to manage people.',
      why: 'Inviting people, changing roles and deactivating accounts is for admins and the owner: ask one of them if you need a change.',
    },
  },
  component: lazyRouteComponent(() => import('./PeoplePage'), 'PeoplePage'),
});

export const peoplePages = [peopleRoute] as const;
