/* The part of unzipper (exceljs's zip reader) that the .xlsx guard uses: its streaming Parse. It ships no types. */
declare module 'unzipper' {
  import type { Duplex, Readable } from 'node:stream';

  export interface Entry extends Readable {
    path: string;
    type: 'File' | 'Directory';
    vars: { compressedSize: number; uncompressedSize: number; flags: number };
    autodrain(): unknown;
  }

  export function Parse(options?: { forceStream?: boolean }): Duplex & AsyncIterable<Entry>;
}
