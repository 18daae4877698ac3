// Lines of a byte stream as byte ranges, a chunk at a time, so a large text file (folded stacks)
// is read without ever holding it whole, and without a string per line: the reader decides what
// to decode (a folded stack seen before needs no string at all). A line may not grow past
// `maxLine` bytes: input without newlines would otherwise be held whole after all.

/** Longest line accepted: far above a folded stack 20,000 frames deep of long C++ names. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

export class LineTooLongError extends Error {}

/** Receives line `buf[start .. end)`, without its "\n"; `buf` is only valid during the call. */
export type LineSink = (buf: Uint8Array, start: number, end: number) => void;

/** Splits chunks into lines; a line that spans chunks is gathered in a buffer of its own. */
export class LineSplitter {
  private carry = new Uint8Array(1 << 12);
  private carryLen = 0;
  private lineNo = 1;

  constructor(
    private readonly onLine: LineSink,
    private readonly maxLine = MAX_LINE_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    let pos = 0;
    let nl = chunk.indexOf(10);
    if (this.carryLen > 0 || nl < 0) {
      this.append(chunk, 0, nl < 0 ? chunk.length : nl);
      if (nl < 0) return;
      this.emit(this.carry, 0, this.carryLen);
      this.carryLen = 0;
      pos = nl + 1;
      nl = chunk.indexOf(10, pos);
    }
    for (; nl >= 0; nl = chunk.indexOf(10, pos)) {
      if (nl - pos > this.maxLine) throw this.tooLong();
      this.emit(chunk, pos, nl);
      pos = nl + 1;
    }
    this.append(chunk, pos, chunk.length);
  }

  /** The last line, when the input does not end with "\n". */
  end(): void {
    if (this.carryLen > 0) this.emit(this.carry, 0, this.carryLen);
    this.carryLen = 0;
  }

  private emit(buf: Uint8Array, start: number, end: number): void {
    // TextDecoder drops a UTF-8 byte order mark at the start of the input; so does this.
    if (this.lineNo === 1 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) start += 3;
    this.lineNo++;
    this.onLine(buf, start, end);
  }

  private append(chunk: Uint8Array, from: number, to: number): void {
    const len = this.carryLen + to - from;
    if (len > this.maxLine) throw this.tooLong();
    if (len > this.carry.length) {
      const bigger = new Uint8Array(Math.max(len, this.carry.length * 2));
      bigger.set(this.carry.subarray(0, this.carryLen));
      this.carry = bigger;
    }
    this.carry.set(chunk.subarray(from, to), this.carryLen);
    this.carryLen = len;
  }

  private tooLong(): LineTooLongError {
    return new LineTooLongError(`line ${this.lineNo} is longer than ${this.maxLine} bytes: refused`);
  }
}

/** Every line of `chunks`, in order. */
export async function forEachLine(chunks: AsyncIterable<Uint8Array>, onLine: LineSink, maxLine = MAX_LINE_BYTES): Promise<void> {
  const lines = new LineSplitter(onLine, maxLine);
  for await (const chunk of chunks) lines.push(chunk);
  lines.end();
}
