import { SaxesParser } from 'saxes';

/** A file that cannot be read as XML, or is refused (a DOCTYPE); the message says which and where. */
export class XmlFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'XmlFileError';
  }
}

/** What a reader is told as it goes: element starts and ends, and text (CDATA included, entities decoded). */
export interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void;
  close(name: string): void;
  text(text: string): void;
}

/**
 * A streaming XML reader (saxes) that refuses any DOCTYPE: internal entities are the way to an XML bomb
 * (billion laughs) and external ones reach files and the network, and no test report or export needs either.
 * saxes never expands entities it was not told of, so with no DOCTYPE only the five predefined ones and
 * character references are read. Feed it with write() (any chunking) and end with close().
 */
export function xmlReader(handlers: XmlHandlers): { write(chunk: string): void; close(): void } {
  const parser = new SaxesParser({ xmlns: false, position: true });
  parser.on('doctype', () => {
    throw new XmlFileError(
      `DOCTYPE declarations are refused (line ${parser.line}): entity definitions can expand without bound`,
    );
  });
  parser.on('opentag', (tag) => handlers.open(tag.name, tag.attributes as Record<string, string>));
  parser.on('closetag', (tag) => handlers.close(tag.name));
  parser.on('text', (text) => handlers.text(text));
  parser.on('cdata', (text) => handlers.text(text));
  const wrap = (work: () => void) => {
    try {
      work();
    } catch (err) {
      if (err instanceof XmlFileError) throw err;
      // saxes reports "line:column: what" (an unclosed tag at the end of a truncated file, a bad entity).
      throw new XmlFileError(`malformed XML: ${(err as Error).message}`);
    }
  };
  return {
    write: (chunk) => wrap(() => parser.write(chunk)),
    close: () => wrap(() => parser.close()),
  };
}

/** Reads a whole text (a file already in memory) through xmlReader. */
export function readXml(text: string, handlers: XmlHandlers): void {
  const reader = xmlReader(handlers);
  // Chunks keep saxes's buffers small for a large file; a cut never splits a surrogate pair.
  const size = 64 * 1024;
  for (let i = 0; i < text.length;) {
    let end = Math.min(i + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    reader.write(text.slice(i, end));
    i = end;
  }
  reader.close();
}
