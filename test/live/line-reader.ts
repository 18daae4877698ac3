// Reading a child's stdout line by line while it runs (live tests and benches that must act on
// what a workload or ptop has printed so far, e.g. ptop's header: the window is open).
import { sleep } from "./ptop-harness.ts";

/** Reads a child's stdout as it comes, up to a line matching `re`. */
export class Lines {
  private text = "";
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private decoder = new TextDecoder();
  /** The read in flight: a timed-out wait leaves it pending, and the next wait takes it over. */
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> | undefined;
  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }
  async until(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = this.text.match(re);
      if (m) return m;
      if (Date.now() > deadline) throw new Error(`no line matching ${re} within ${timeoutMs} ms; got: ${this.text.slice(-500)}`);
      this.pending ??= this.reader.read();
      const r = await Promise.race([this.pending, sleep(200).then(() => null)]);
      if (!r) continue;
      this.pending = undefined;
      if (r.done) throw new Error(`stream ended without ${re}; got: ${this.text.slice(-500)}`);
      this.text += this.decoder.decode(r.value, { stream: true });
    }
  }
  /** Everything read so far, after taking in what has already arrived. */
  async snapshot(): Promise<string> {
    try {
      await this.until(/(?!)/, 0);
    } catch {
      // nothing more within the time: what is there is the snapshot
    }
    return this.text;
  }
  async rest(): Promise<string> {
    for (;;) {
      const r = await (this.pending ?? this.reader.read());
      this.pending = undefined;
      if (r.done) return this.text;
      this.text += this.decoder.decode(r.value, { stream: true });
    }
  }
}

