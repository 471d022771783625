import { Link, useParams } from '@tanstack/react-router';
import { useDocumentTitle } from '../../components/useDocumentTitle';

/** `/project/{CODE}/tcase/{seq}` (printed by the upload CLI) reaches the app; the case page itself comes next. */
export function TestCasePage() {
  const { code, seq } = useParams({ from: '/app/project/$code/tcase/$seq' });
  useDocumentTitle(`${code}-${seq}`);
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link to="/">Projects</Link>
        <span aria-hidden="true">/</span>
        <Link to="/project/$code" params={{ code }}>
          {code}
        </Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">
          {code}-{seq}
        </span>
      </nav>
      <h1 className="page-title">
        Test case {code}-{seq}
      </h1>
      <div className="notice" role="note">
        <p className="status-title">The test case page is not in this version of the web application yet.</p>
        <p>
          The case is there: the API serves it at{' '}
          <code>
            /api/public/v0/project/{code}/tcase/{seq}
          </code>
          . Its page (view, editor and version history) is the next part of the web application.
        </p>
      </div>
    </div>
  );
}
