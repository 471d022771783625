import { FILE_SETTINGS } from './config.js';

/**
 * Every setting loadConfig reads (src/config.ts), with its flag, default and meaning: the source of
 * docs/configuration.md (`npm run docs:config`; test/docs/configuration.test.ts fails when the page is stale or a
 * setting read there is missing here).
 */
export interface SettingDoc {
  name: string;
  flag?: string;
  default: string;
  description: string;
  group: 'Server' | 'Security' | 'Limits' | 'Files' | 'Mail' | 'Operations';
}

export const SETTINGS: SettingDoc[] = [
  { group: 'Server', name: 'PORT', flag: '--port', default: '`3000`', description: 'HTTP port.' },
  {
    group: 'Server',
    name: 'HOST',
    flag: '--host',
    default: '`0.0.0.0`',
    description: 'Address to listen on.',
  },
  {
    group: 'Server',
    name: 'CASEBOOK_DATABASE_URL',
    flag: '--database',
    default: '`sqlite:<data dir>/casebook.db`',
    description: '`sqlite:<file>` or `postgres://user:pass@host:5432/db`.',
  },
  {
    group: 'Server',
    name: 'CASEBOOK_DATA_DIR',
    flag: '--data-dir',
    default: '`./data`',
    description: 'The SQLite file, uploaded files (local storage), the generated secret key.',
  },
  {
    group: 'Server',
    name: 'CASEBOOK_PUBLIC_URL',
    default: '`http://localhost:<port>`',
    description:
      'The address clients use (file URLs, links in mail, `user reset-link`). When unset, the device sign-in and check-tenant hand out the address the request came to, and `casebook user reset-link` refuses to print a link.',
  },
  {
    group: 'Server',
    name: 'CASEBOOK_WORKERS',
    flag: '--workers',
    default: 'one per core (PostgreSQL), `1` (SQLite)',
    description: 'Server processes sharing the port (`node:cluster`).',
  },
  {
    group: 'Server',
    name: 'CASEBOOK_MULTI_TENANT',
    default: '`false`',
    description: "Map the request's host name to a tenant (D1).",
  },
  {
    group: 'Server',
    name: 'CASEBOOK_TRUST_PROXY',
    default: '`false`',
    description: 'Believe `X-Forwarded-For`: `true`, a hop count, or proxy addresses.',
  },
  {
    group: 'Server',
    name: 'CASEBOOK_LOG_LEVEL',
    default: '`info`',
    description: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (`LOG_LEVEL` is read too).',
  },
  {
    group: 'Security',
    name: 'CASEBOOK_SECRET_KEY',
    default: 'generated into `<data dir>/secret.key`',
    description:
      'Key that seals tracker credentials, webhook and two-factor secrets at rest; at least 16 characters; the same value on every instance; back it up apart from the database (`casebook secret-key rotate` replaces it).',
  },
  {
    group: 'Security',
    name: 'CASEBOOK_OWNER_EMAIL',
    default: '`owner@casebook.local`',
    description: 'The owner created on first start.',
  },
  {
    group: 'Security',
    name: 'CASEBOOK_OWNER_PASSWORD',
    default: 'generated',
    description:
      "That owner's password (at least 8 characters); a generated one is shown once in the first-start banner.",
  },
  {
    group: 'Security',
    name: 'CASEBOOK_SESSION_TTL_HOURS',
    default: '`336`',
    description: 'Web sign-in session lifetime.',
  },
  {
    group: 'Security',
    name: 'CASEBOOK_RATE_LIMIT',
    default: '`0` (off)',
    description: 'Requests per minute per API key (D14).',
  },
  {
    group: 'Security',
    name: 'CASEBOOK_WEBHOOK_ALLOW_PRIVATE',
    default: '`false`',
    description:
      'Let webhooks (and other outbound requests) reach loopback, private and link-local addresses, and plain http.',
  },
  {
    group: 'Security',
    name: 'CASEBOOK_OUTBOUND_ALLOW',
    default: '(none)',
    description:
      'Comma-separated host names (`.example.com` for a domain), addresses or networks (`10.2.0.0/16`) outbound requests may reach although private; plain http is allowed to them.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_BODY_LIMIT',
    default: '32 MiB',
    description: 'Largest JSON body, in bytes (413 beyond).',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_UPLOAD_MAX_FILE_BYTES',
    default: '50 MiB',
    description: 'Largest uploaded file (`POST /file`, `/file/batch`).',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_UPLOAD_MAX_FILES',
    default: '`100`',
    description: 'Most files in one upload request.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_UPLOAD_MAX_REQUEST_BYTES',
    default: '100 MiB',
    description: 'Largest upload request, all its files together.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_IMPORT_MAX_BYTES',
    default: '100 MiB',
    description: 'Largest test-case import file (`POST /project/{p}/import`), refused before it is stored.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_PARSERS',
    default: '`2`',
    description:
      'Uploaded files parsed at once in a process (each in a worker thread: imports, the .xlsx preview, archives, large JUnit reports).',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_PARSERS_PER_TENANT',
    default: '`1`',
    description: 'Of those, at most this many of one tenant.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_PARSER_MEMORY_MB',
    default: '`512`',
    description: 'The heap of one parse; a file that needs more fails its own request or import.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_PARSER_SECONDS',
    default: '`600`',
    description: 'Working time of one reading of a file; past it the file fails as above.',
  },
  {
    group: 'Limits',
    name: 'CASEBOOK_RUN_LIST_CACHE_MB',
    default: '`32`',
    description:
      'PostgreSQL: MiB of big run lists kept per process, checked against the database on every request (`0`: off).',
  },
  {
    group: 'Files',
    name: 'CASEBOOK_FILE_STORAGE',
    default: '`local`',
    description:
      "Where new uploads are kept: `local` (the data directory's `files/`), `postgres` (in the database; PostgreSQL only) or `s3` (docs/operations.md#file-storage).",
  },
  {
    group: 'Files',
    name: 'CASEBOOK_S3_BUCKET',
    default: '(none)',
    description: 'The bucket of `s3` storage.',
  },
  {
    group: 'Files',
    name: 'CASEBOOK_S3_ENDPOINT',
    default: '(AWS)',
    description: "A self-hosted store's `http://` or `https://` address.",
  },
  { group: 'Files', name: 'CASEBOOK_S3_REGION', default: '`us-east-1`', description: 'The region.' },
  {
    group: 'Files',
    name: 'CASEBOOK_S3_ACCESS_KEY_ID',
    default: "(the AWS SDK's chain)",
    description: 'Access key id; set together with the secret access key or not at all.',
  },
  {
    group: 'Files',
    name: 'CASEBOOK_S3_SECRET_ACCESS_KEY',
    default: "(the AWS SDK's chain)",
    description: 'Secret access key.',
  },
  {
    group: 'Files',
    name: 'CASEBOOK_S3_PREFIX',
    default: '(empty)',
    description: 'Objects are kept under `<prefix><key>`; empty or ending with `/`.',
  },
  {
    group: 'Files',
    name: 'CASEBOOK_S3_FORCE_PATH_STYLE',
    default: 'on with an endpoint',
    description: 'Path-style addresses (`endpoint/bucket/key`), which self-hosted stores need.',
  },
  {
    group: 'Mail',
    name: 'CASEBOOK_SMTP_URL',
    default: '(no mail)',
    description:
      "Outgoing mail for invitation and password-reset links: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; unset, an invitation's link is shown once to the admin who made it, and admins issue the reset links.",
  },
  {
    group: 'Mail',
    name: 'CASEBOOK_MAIL_FROM',
    default: '`Casebook <casebook@<public host>>`',
    description: 'The sender of that mail.',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_DRAIN_SECONDS',
    default: '`5`',
    description:
      'After SIGTERM, seconds the process keeps serving while `/readyz` answers 503, so the load balancer stops sending first (`0` closes at once).',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_METRICS_TOKEN',
    default: '(off: 404)',
    description:
      '`/metrics` answers only with `Authorization: Bearer <token>`; at least 16 characters without spaces.',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_REDIS_URL',
    default: '(in the database or process)',
    description:
      'Rate-limit counters live in this Redis, shared by every process and machine: `redis://[user:pass@]host[:port][/db]` or `rediss://…`.',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_REDIS_PREFIX',
    default: '`casebook:`',
    description: 'The prefix of every key written there (several services may share one Redis).',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_AUDIT_RETENTION_DAYS',
    default: '`0` (keep)',
    description: 'Audit events older than this are removed.',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_JOB_RETENTION_DAYS',
    default: '`30`',
    description:
      'Finished background jobs and webhook delivery records older than this are removed (`0` keeps them).',
  },
  {
    group: 'Operations',
    name: 'CASEBOOK_JOB_LEASE_SECONDS',
    default: '`60`',
    description:
      "How long a job's claim lasts; a job whose process died is taken again after it (11 or more).",
  },
];

const GROUPS: SettingDoc['group'][] = ['Server', 'Security', 'Limits', 'Files', 'Mail', 'Operations'];

/** docs/configuration.md as `npm run docs:config` writes it. */
export function renderConfigurationPage(): string {
  const withFile = new Set<string>(FILE_SETTINGS);
  const lines = [
    '# Configuration',
    '',
    '<!-- Written by `npm run docs:config` from src/config-reference.ts; test/docs/configuration.test.ts fails when it is stale. -->',
    '',
    'Every setting of the server and of every `casebook` command, read the same way by all of them (src/config.ts):',
    'from the environment, with the command-line flag winning where there is one. A bad value stops the start, or',
    'the command, with a message naming it (exit code 1).',
    '',
    '- **Files holding secrets**: the settings marked "also `_FILE`" may be given as `<NAME>_FILE=/path`, a file',
    '  holding the value (one trailing newline is removed), as container platforms mount secrets. Setting both',
    '  `<NAME>` and `<NAME>_FILE` is an error, and so is a file that cannot be read.',
    "- **An environment file**: Node's own `--env-file` reads `NAME=value` lines, for the server and the commands",
    '  alike: `node --env-file=/etc/casebook.env dist/cli/main.js serve`, or',
    '  `node --env-file=/etc/casebook.env dist/cli/main.js user reset-link --email a@b.c`. Run a command with the',
    "  server's settings, so that it reads the same database and prints the server's address.",
    '',
  ];
  for (const group of GROUPS) {
    lines.push(`## ${group}`, '');
    for (const s of SETTINGS.filter((x) => x.group === group)) {
      const facts = [
        s.flag ? `flag \`${s.flag}\`` : undefined,
        `default ${s.default}`,
        withFile.has(s.name) ? `also \`${s.name}_FILE\`` : undefined,
      ].filter(Boolean);
      lines.push(`- \`${s.name}\` (${facts.join('; ')}): ${s.description}`);
    }
    lines.push('');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
