import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useSearch } from '@tanstack/react-router';
import { Button } from '../../../components/Button';
import { ErrorState, Loading } from '../../../components/Status';
import { useDocumentTitle } from '../../../components/useDocumentTitle';
import { providerQuery, TEST_MESSAGE } from './api';
import { TestOutcomeView } from './TestOutcomeView';
import '../integrations/adm-b.css';
import './sign-in.css';

/**
 * /admin/sign-in/test-result?provider=… : where a "Test sign-in" popup lands. Shows what the test found and tells
 * the page that opened it (same origin only), which shows it too.
 */
export function TestResultPage() {
  const { provider: providerId } = useSearch({ from: '/app/admin/sign-in/test-result' });
  const provider = useQuery(providerQuery(providerId));
  useDocumentTitle('Test sign-in');
  const opener = typeof window !== 'undefined' ? window.opener : null;
  useEffect(() => {
    if (!provider.data) return;
    (opener as Window | null)?.postMessage({ type: TEST_MESSAGE, providerId }, window.location.origin);
  }, [provider.data, providerId, opener]);
  if (provider.isPending) return <Loading label="Loading the test's outcome…" />;
  if (provider.isError)
    return (
      <ErrorState
        title="The test's outcome could not be loaded."
        error={provider.error}
        onRetry={() => void provider.refetch()}
      />
    );
  const p = provider.data;
  return (
    <div className="page page-narrow adm-page">
      <h1 className="page-title">Test sign-in: {p.name}</h1>
      {p.lastTest ? (
        <TestOutcomeView outcome={p.lastTest} providerName={p.name} />
      ) : (
        <p>No test of this provider has finished yet.</p>
      )}
      <p className="adm-intro">No session was opened and no account was made or changed.</p>
      {opener && (
        <Button variant="primary" onPress={() => window.close()}>
          Close this window
        </Button>
      )}
    </div>
  );
}
