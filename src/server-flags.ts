/**
 * Node flags for a server process. A young generation of 8 MiB semi-spaces instead of V8's 16: a request's
 * garbage dies young either way, and the full benchmark measured the same throughput with a peak RSS of 264 MB
 * instead of 328 MB (SQLite). And an old generation that grows by half of what survived a full collection, not
 * V8's up to fourfold: a 50,000-case import's live heap stays near 65 MB, yet the server's peak RSS was 426 MB
 * (259 MB with it), and the benchmark's was 377 MB (286 MB) at the same throughput. `npm start` passes them;
 * cluster.ts gives them to workers; docs/operations.md tells how to pass them to the `casebook` command. No
 * imports: the benchmark client reads this too.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/** A flag's name as V8 reads it (`--max_semi_space_size` and `--max-semi-space-size` are one flag). */
const flagName = (arg: string) => arg.split('=')[0].replace(/_/g, '-');

/**
 * `execArgv` with the server flags added, except those the operator set already, on the command line or in
 * NODE_OPTIONS (a flag on a worker's command line would override NODE_OPTIONS).
 */
export function withServerFlags(execArgv: string[], nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)].map(flagName));
  return [...execArgv, ...SERVER_NODE_FLAGS.filter((f) => !given.has(flagName(f)))];
}
