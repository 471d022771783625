import type { Config } from './config.js';
import type { Db } from './db/create-db.js';
import { createParsers, type Parsers } from './lib/isolated/run.js';
import { outboundGuard, type OutboundGuard } from './lib/ssrf.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import type { FilesContext } from './modules/files/files.service.js';
import { openFileStorages } from './modules/files/files.storages.js';
import { onTcasesChanged } from './modules/runs/propagation/propagation.service.js';
import { ResultGroupCommit } from './modules/runs/results/results.group-commit.js';
import type { TcasesChanged } from './modules/test-cases/test-cases.service.js';
import { bindJobWakers, JobWakers } from './outbox/wakers.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { RunListCache, runListCacheFor } from './modules/runs/run-tcases/run-list-cache.js';

/**
 * What services are handed beyond `db` and the caller: how modules that must not know each other are wired.
 * Built once where the application is put together (buildApp, and the same way by the CLI, jobs and tests that
 * call services directly), never set as module state.
 */
export interface AppContext {
  /** D17: test-case writes tell open live runs, inside their transaction (runs/propagation/propagation.service.ts). */
  tcasesChanged: TcasesChanged;
  /** Where uploads are kept and the absolute address files are served from. Whoever builds the context closes its storages. */
  files: FilesContext;
  /** Single results wait here for the next commit (runs/results.group-commit.ts): state of this app, not of the process. */
  resultGroupCommit: ResultGroupCommit;
  /** Outgoing mail; undefined when CASEBOOK_SMTP_URL is unset. Whoever builds the context closes it. */
  mailer: Mailer | undefined;
  /** Every outbound request (webhooks, tracker comments) goes through it (lib/ssrf.ts). */
  outboundGuard: OutboundGuard;
  /** This app's job runners, woken at once by its enqueues (outbox/wakers.ts). */
  jobWakers: JobWakers;
  /** This app's Prometheus metrics (metrics/metrics.ts); counted only while `/metrics` is on. */
  metrics: Metrics;
  /** Uploaded files are parsed in worker threads, a bounded number at once (lib/isolated/): imports, previews, JUnit. */
  parsers: Parsers;
  /** PostgreSQL: big run lists' bodies, checked against the database on every request (off on SQLite). */
  runListCache: RunListCache;
}

/** `metrics`: buildApp's, which measures the job kinds' queues; others (CLI, tests) get one that measures none. */
export function createContext(config: Config, db: Db, metrics = createMetrics(db, [])): AppContext {
  const jobWakers = new JobWakers();
  bindJobWakers(db, jobWakers);
  const countGroups = config.metricsToken !== undefined;
  return {
    tcasesChanged: onTcasesChanged,
    resultGroupCommit: new ResultGroupCommit(
      db,
      countGroups ? (size) => metrics.groupCommitSize.observe(size) : undefined,
    ),
    metrics,
    files: {
      storages: openFileStorages(config, db),
      publicUrl: config.publicUrl,
    },
    mailer: createMailer(config),
    outboundGuard: outboundGuard({ allowPrivate: config.webhookAllowPrivate, allow: config.outboundAllow }),
    jobWakers,
    parsers: createParsers(config),
    runListCache: runListCacheFor(db, {
      maxBytes: config.runListCacheBytes,
      minBytes: config.runListCacheMinBytes,
    }),
  };
}
