import { serveIsolated } from '../../../lib/isolated/serve.js';
import { parseJUnitXml } from './junit.parser.js';

/* The worker thread that reads a large JUnit XML report (junit.service.ts starts it), under the upload budget. */

serveIsolated({
  junit: async function* (input) {
    const parts: Buffer[] = [];
    for await (const chunk of input as AsyncIterable<Buffer>) parts.push(chunk);
    yield* parseJUnitXml(Buffer.concat(parts).toString('utf8'));
  },
});
