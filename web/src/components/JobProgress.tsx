import { useEffect, useRef } from 'react';
import { formatCount, formatCountOf } from '../lib/format';
import './job-progress.css';

/**
 * A background job's progress (an import's): a real <progress> named `label`, whose value reads "n of m rows"
 * to a screen reader, with the same words beside it for everyone. Until the job knows its total the bar moves
 * without a value and `waiting` says what the job is doing. A job just started is scrolled into view: the form
 * that started it can fill the screen, and the bar would appear below it unseen.
 */
export function JobProgress({
  label,
  done,
  total,
  unit,
  verb,
  waiting,
}: {
  label: string;
  done: number;
  /** 0 while not known yet. */
  total: number;
  /** What is counted, singular ("row", "record"). */
  unit: string;
  /** What happened to the done ones ("done", "written"). */
  verb: string;
  waiting: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  // In braces: a current Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
  useEffect(() => {
    box.current?.scrollIntoView?.({ block: 'nearest' });
  }, []);
  const valueText = total ? `${formatCount(done)} of ${formatCountOf(total, unit)}` : undefined;
  return (
    <div ref={box} className="job-progress">
      <progress
        aria-label={label}
        aria-valuetext={valueText}
        max={total || undefined}
        value={total ? Math.min(done, total) : undefined}
      />
      <p role="status">{valueText ? `${valueText} ${verb}` : waiting}</p>
    </div>
  );
}
