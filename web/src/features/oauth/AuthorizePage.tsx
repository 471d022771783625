import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '../../components/Button';
import { Loading } from '../../components/Status';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { sentence } from '../../lib/useForm';
import {
  AUTHORIZATION_PARAMS,
  authorizationQuery,
  decideAuthorization,
  type AuthorizationParams,
} from './api';
import './oauth.css';

/**
 * The app sign-in approval page (src/modules/oauth, authorization code grant): an MCP client such as an AI
 * assistant asks to act as the person signed in. The page names the app as it registered itself AND the origin
 * it sends the person back to, which the app cannot choose freely: a lying name still shows where it lives.
 */
export function AuthorizePage() {
  useDocumentTitle('Sign in an app');
  // The address bar as the app wrote it: the router's search parsing reads JSON, which would turn a state of
  // `1e3` into 1000, and the app must get its state back exactly.
  const [params] = useState(() => {
    const found: AuthorizationParams = {};
    const search = new URLSearchParams(window.location.search);
    for (const name of AUTHORIZATION_PARAMS) {
      const value = search.get(name);
      if (value !== null && value !== '') found[name] = value;
    }
    return found;
  });
  const view = useQuery(authorizationQuery(params));
  const decide = useMutation({
    mutationFn: (decision: 'approve' | 'deny') => decideAuthorization(params, decision),
    onSuccess: ({ redirectTo }) => window.location.assign(redirectTo),
  });

  let body;
  if (view.isPending) body = <Loading label="Checking the sign-in request…" />;
  else if (view.isError)
    body = (
      <div className="notice" role="alert">
        <p className="status-title">This sign-in request cannot be used</p>
        <p>{sentence(view.error.message)}</p>
      </div>
    );
  else if (decide.isSuccess)
    body = (
      <p role="status">
        {decide.variables === 'approve' ? 'Approved' : 'Denied'}: returning you to{' '}
        <span className="oauth-origin">{view.data.redirectOrigin}</span>…
      </p>
    );
  else {
    const v = view.data;
    const blocked = !v.allowed || v.error !== undefined;
    body = (
      <section className="panel oauth-panel" aria-labelledby="oauth-ask">
        <h2 id="oauth-ask" className="panel-title">
          <strong>{v.clientName}</strong> asks to act as you
        </h2>
        <p>
          After you decide, you go back to <span className="oauth-origin">{v.redirectOrigin}</span>. The name
          above is the app’s own; this address is where it really lives.
        </p>
        {v.error !== undefined ? (
          <p className="form-error" role="alert">
            The app’s request is faulty ({sentence(v.errorDescription ?? v.error)}) Go back to tell it so.
          </p>
        ) : !v.allowed ? (
          <p className="form-error" role="alert">
            Your administrator does not allow apps at this address to sign in here.
          </p>
        ) : (
          <p className="muted">
            If you approve, it can do anything you can do here, with your role, until you sign it out under
            Settings → API keys. Approve only if you started this sign-in yourself, just now.
          </p>
        )}
        {decide.isError && (
          <p className="form-error" role="alert">
            {sentence(decide.error.message)}
          </p>
        )}
        <div className="oauth-actions">
          {!blocked && (
            <Button variant="primary" isPending={decide.isPending} onPress={() => decide.mutate('approve')}>
              Approve
            </Button>
          )}
          <Button
            variant={blocked ? 'primary' : 'danger'}
            isDisabled={decide.isPending}
            onPress={() => decide.mutate('deny')}
          >
            {blocked ? 'Go back to the app' : 'Deny'}
          </Button>
        </div>
      </section>
    );
  }
  return (
    <div className="page page-narrow">
      <h1 className="page-title">Sign in an app</h1>
      {body}
    </div>
  );
}
