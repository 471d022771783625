import { serveIsolated } from '../../lib/isolated/serve.js';
import { checkArchive } from './read.js';

/* The worker thread that checks an uploaded archive (archive.service.ts starts it): the whole file is inflated and
 * every record read here, under the upload budget of lib/isolated, never on the service's own thread. */

serveIsolated({
  'archive-check': async function* (input) {
    yield await checkArchive(input);
  },
});
