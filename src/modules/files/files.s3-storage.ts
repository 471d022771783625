import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from '../../config.js';
import { checkStorageKey, type FileStorage } from './files.storage.js';

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
      throw sourceError ?? err;
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
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const { client, s3 } = await this.load();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectKey(key) }));
  }

  close(): void {
    this.closed = true;
    this.client?.destroy();
  }
}
