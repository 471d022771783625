import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { meQuery } from '../../session/session';
import type { Role } from './api';
import { AccessDefaultsSection } from './AccessDefaultsSection';
import { InvitationsSection } from './InvitationsSection';
import { InviteSection } from './InviteSection';
import { OneTimeLinkDialog, type OneTimeLink } from './OneTimeLinkDialog';
import { UsersSection } from './UsersSection';
import './people.css';

export function PeoplePage() {
  useDocumentTitle('People');
  const me = useQuery(meQuery).data;
  if (!me) return <Loading label="Loading your account…" />;
  return <People me={me} />;
}

function People({ me }: { me: { id: number; role: Role } }) {
  const [shown, setShown] = useState<OneTimeLink>();
  return (
    <div className="page page-narrow people">
      <h1 className="page-title">People</h1>
      <InviteSection onLink={setShown} />
      <InvitationsSection />
      <AccessDefaultsSection />
      <UsersSection me={me} onLink={setShown} />
      <OneTimeLinkDialog shown={shown} onClose={() => setShown(undefined)} />
    </div>
  );
}
