import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../../config.js';
import { AppError } from '../../errors.js';
import { checkStorageKey, type FileStorage } from './files.storage.js';

/** Errors of the network or of the store itself (5xx, throttling): the store is away, not the request wrong. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

interface StoreError {
  code?: string;
  name?: string;
  $metadata?: { httpStatusCode?: number };
  /** A refused connection to every address of a name comes as an AggregateError. */
  errors?: unknown[];
}

function isUnavailable(err: unknown, depth = 0): boolean {
  const e = err as StoreError | undefined;
  if (!e || depth > 3) return false;
  if (e.code && NETWORK_CODES.has(e.code)) return true;
  if (e.name === 'TimeoutError' || e.name === 'RequestTimeout') return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && (status >= 500 || status === 429)) return true;
  return (e.errors ?? []).some((inner) => isUnavailable(inner, depth + 1));
}

/** The D7 error for a store that is away, with the store's own error kept for the log. */
function unavailable(err: unknown): unknown {
  if (!isUnavailable(err)) return err;
  const error = new AppError(
    'STORAGE_UNAVAILABLE',
    'The file store cannot be reached: nothing of this request was stored. Retry shortly.',
  );
  error.cause = err;
  return error;
}

interface Sdk {
  s3: typeof import('@aws-sdk/client-s3');
  client: S3Client;
  Upload: typeof import('@aws-sdk/lib-storage').Upload;
}

/**
 * S3-compatible object storage (CASEBOOK_FILE_STORAGE=s3) through the AWS SDK v3. Path-style addressing for
 * self-hosted stores, and checksums only "when required": the SDK's default CRC trailers in aws-chunked bodies
 * are refused by many self-hosted stores. Tested against s3rver, a test stand-in (test/scale/file-storage.test.ts).
 */
export class S3Storage implements FileStorage {
  private sdk?: Promise<Sdk>;
  private client?: S3Client;
  private closed = false;

  constructor(private readonly settings: S3Settings) {}

  /** The SDK is loaded at the first use: about 35 MB resident that a service storing files elsewhere never needs. */
  private load(): Promise<Sdk> {
    return (this.sdk ??= (async () => {
      const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
      if (this.closed) throw new Error('the S3 file storage is closed');
      this.client = this.makeClient(s3.S3Client);
      return { s3, client: this.client, Upload: storage.Upload };
    })().catch((err: unknown) => {
      // The next use tries again (a load that failed once is not kept for the life of the process).
      this.sdk = undefined;
      throw err;
    }));
  }

  private makeClient(Client: typeof S3Client): S3Client {
    const settings = this.settings;
    return new Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return `${this.settings.prefix}${checkStorageKey(key)}`;
  }

  async put(key: string, stream: Readable): Promise<void> {
    // Streamed in parts (one PUT below a part's size); a failed stream aborts the multipart upload, so a
    // failed upload leaves no object. Two 8 MiB parts in flight at most: bounded memory per upload.
    // The source's own error (a file over the limit: 413) is what the caller must see, not a later one of
    // the abort that follows it.
    let sourceError: unknown;
    async function* body() {
      try {
        for await (const chunk of stream) yield chunk as Buffer;
      } catch (err) {
        sourceError = err;
        throw err;
      }
    }
    const { client, Upload } = await this.load();
    const upload = new Upload({
      client,
      params: { Bucket: this.settings.bucket, Key: this.objectKey(key), Body: Readable.from(body()) },
      partSize: 8 * 1024 * 1024,
      queueSize: 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      throw sourceError ?? unavailable(err);
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    try {
      const { client, s3 } = await this.load();
      const out = await client.send(
        new s3.GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }),
      );
      // In Node.js the body is the response's IncomingMessage: a Readable.
      return out.Body as Readable;
    } catch (err) {
      if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
      throw unavailable(err);
    }
  }

  async delete(key: string): Promise<void> {
    const { client, s3 } = await this.load();
    try {
      await client.send(
        new s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }),
      );
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** One HEAD of an object that need not exist: any answer of the store but a 5xx says it is there. */
  async reachable(): Promise<boolean> {
    try {
      const { client, s3 } = await this.load();
      await client.send(
        new s3.HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey('readiness-probe') }),
      );
      return true;
    } catch (err) {
      return !isUnavailable(err);
    }
  }

  close(): void {
    this.closed = true;
    this.client?.destroy();
  }
}
