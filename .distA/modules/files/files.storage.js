import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { newUuid } from '../../lib/ids.js';
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
/** The default store: one file per object under a root directory (`<dataDir>/files`). */
export class LocalDiskStorage {
    root;
    tmpDir;
    constructor(root) {
        this.root = root;
        this.tmpDir = path.join(root, '.tmp');
    }
    pathOf(key) {
        // Segments never start with a dot, so no key can climb out of the root or hit `.tmp`.
        if (!KEY.test(key))
            throw new Error(`invalid storage key "${key}"`);
        return path.join(this.root, ...key.split('/'));
    }
    async put(key, stream) {
        const target = this.pathOf(key);
        await fsp.mkdir(this.tmpDir, { recursive: true });
        // Written beside the root and renamed into place (same file system: atomic), so a reader never
        // sees half a file and a failed upload leaves only nothing.
        const tmp = path.join(this.tmpDir, newUuid());
        try {
            await pipeline(stream, fs.createWriteStream(tmp, { flags: 'wx', flush: true }));
            await fsp.mkdir(path.dirname(target), { recursive: true });
            await fsp.rename(tmp, target);
        }
        catch (err) {
            await fsp.rm(tmp, { force: true });
            throw err;
        }
    }
    async get(key) {
        const file = this.pathOf(key);
        try {
            const handle = await fsp.open(file, 'r');
            return handle.createReadStream();
        }
        catch (err) {
            if (err.code === 'ENOENT')
                return undefined;
            throw err;
        }
    }
    async delete(key) {
        await fsp.rm(this.pathOf(key), { force: true });
    }
}
//# sourceMappingURL=files.storage.js.map