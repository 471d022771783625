import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/**
 * An S3-compatible server in this process, for the S3 storage adapter's tests. s3rver (npm, unmaintained) is a
 * test stand-in only: it speaks the protocol (signatures, multipart uploads, path-style addresses) but is no
 * store to run Casebook on. It accepts the access key S3RVER with the secret S3RVER.
 */
export async function startS3StandIn(bucket = 'casebook', port = 0) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'casebook-s3-'));
  const server = new S3rver({
    port,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const endpoint = `http://127.0.0.1:${(await server.run()).port}`;
  const env = {
    CASEBOOK_S3_ENDPOINT: endpoint,
    CASEBOOK_S3_BUCKET: bucket,
    CASEBOOK_S3_ACCESS_KEY_ID: 'S3RVER',
    CASEBOOK_S3_SECRET_ACCESS_KEY: 'S3RVER',
    CASEBOOK_S3_PREFIX: 'casebook/',
  };
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    env,
    /** Keys of the objects in the bucket, as the store lists them. */
    async keys(): Promise<string[]> {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (out.Contents ?? []).map((o) => o.Key!);
    },
    async stop() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
