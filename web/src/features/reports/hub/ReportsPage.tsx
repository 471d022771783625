import { useParams } from '@tanstack/react-router';
import { useDocumentTitle } from '../../../components/useDocumentTitle';

/** `/project/{CODE}/reports`: every report of the project (the page itself is being built, issue 26). */
export function ReportsPage() {
  const { code } = useParams({ from: '/app/project/$code/reports' });
  useDocumentTitle(`Reports · ${code.toUpperCase()}`);
  return (
    <div className="page">
      <div className="page-header">
        <h1 className="page-title">Reports</h1>
      </div>
    </div>
  );
}
