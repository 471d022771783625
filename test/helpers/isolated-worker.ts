import { serveIsolated } from '../../src/lib/isolated/serve.js';

/* A worker for lib/isolated's tests: tasks that behave, and tasks that misbehave in each way a parser might. */

class LineError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

serveIsolated({
  /** The input's lines, each as `{n, text}`; a line "boom" fails the parse with its number. */
  lines: async function* (input) {
    let rest = '';
    let n = 0;
    for await (const chunk of input as AsyncIterable<Buffer>) {
      rest += chunk.toString('utf8');
      let at = rest.indexOf('\n');
      while (at >= 0) {
        const text = rest.slice(0, at);
        rest = rest.slice(at + 1);
        n++;
        if (text === 'boom') throw new LineError(`line ${n} went boom`, n);
        yield { n, text };
        at = rest.indexOf('\n');
      }
    }
    if (rest !== '') yield { n: n + 1, text: rest };
  },
  /** Keeps everything it reads, and more: a parser that holds a bomb's contents. */
  hog: async function* () {
    const kept: string[] = [];
    for (let i = 0; ; i++) {
      kept.push(`${i}`.repeat(1024));
      if (i % 100_000 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    yield kept.length;
  },
  /** Never ends and never waits: a parser stuck in a loop. */
  spin: async function* () {
    for (;;);
    yield 0;
  },
  /** Items without end, as fast as it is let: the service's pace must bound what it holds. */
  flood: async function* () {
    for (let i = 0; ; i++) yield { i, pad: 'x'.repeat(1000) };
  },
});
