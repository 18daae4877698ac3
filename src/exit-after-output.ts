// Every one-shot command ends here, so that none can lose the end of its output.
//
// Bun's process.stdout/stderr queue what a pipe does not take at once (64 KiB) and
// process.exit() drops that queue: `runner agent catalog --json | (sleep 2; wc -c)` used to
// print 65536 of 158799 bytes and exit 0. Each write's callback runs once its bytes are in the
// kernel (or failed), so counting writes whose callback has not run yet tells exactly when the
// output is whole; an empty write cannot be used as a marker (its callback runs at once).
//
// A reader that goes away (`| head -1`) makes a write fail with EPIPE. From then on that stream's
// output goes nowhere (quietly: no stack trace), the command finishes its work, and it ends the way
// the shell reports a POSIX tool killed by SIGPIPE: status 141 (128 + 13), so a script with
// `set -o pipefail` sees the same as for `cat big | head -1`. The JavaScript runtime ignores
// SIGPIPE itself, hence the explicit status. A long-running role (the server) whose log reader
// went away keeps serving instead of dying on its next log line.

export const CLOSED_PIPE_STATUS = 141;

type Stream = NodeJS.WriteStream;
type Write = Stream["write"];

const pending = new Map<Stream, number>();
const closed = new Set<Stream>();
const idle: Array<() => void> = [];
let installed = false;

function settle() {
  for (const n of pending.values()) if (n > 0) return;
  for (const wake of idle.splice(0)) wake();
}

function closedPipe(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === "EPIPE" || code === "ERR_STREAM_DESTROYED";
}

function readerGone(stream: Stream) {
  if (closed.has(stream)) return;
  closed.add(stream);
  pending.set(stream, 0);
  // A writer waiting for "drain" would wait forever: the pipe never drains once its reader is
  // gone, and with nothing else pending Bun ends the process with status 0 before the command
  // returns (seen: `runner witness fold big.folded | head -c 10` exited 0, not 141). Writes from
  // here on succeed at once, so wake it.
  stream.emit("drain");
  settle();
}

function track(stream: Stream) {
  pending.set(stream, 0);
  const write = stream.write.bind(stream) as (chunk: unknown, enc?: unknown, cb?: unknown) => boolean;
  stream.write = ((chunk: unknown, encOrCb?: unknown, cb?: unknown) => {
    const callback = (typeof encOrCb === "function" ? encOrCb : cb) as ((e?: Error | null) => void) | undefined;
    const encoding = typeof encOrCb === "function" ? undefined : encOrCb;
    if (closed.has(stream)) {
      if (callback) queueMicrotask(() => callback(null));
      return true;
    }
    const empty = chunk === "" || (chunk instanceof Uint8Array && chunk.length === 0);
    if (empty) return write(chunk, encoding, callback);
    pending.set(stream, pending.get(stream)! + 1);
    return write(chunk, encoding, (err?: Error | null) => {
      if (err && closedPipe(err)) readerGone(stream);
      else pending.set(stream, Math.max(0, pending.get(stream)! - 1));
      callback?.(err);
      settle();
    });
  }) as Write;
  // Without a listener, EPIPE surfaces as an uncaught error with a stack trace.
  stream.on("error", (err) => {
    if (!closedPipe(err)) throw err;
    readerGone(stream);
  });
}

/** Called once at start-up, before any command writes. */
export function trackOutput() {
  if (installed) return;
  installed = true;
  track(process.stdout);
  track(process.stderr);
}

/** Resolves once every byte written so far through process.stdout/stderr is in the kernel. */
export function outputFlushed(): Promise<void> {
  return new Promise((resolve) => {
    idle.push(resolve);
    settle();
  });
}

/** True once a reader of stdout or stderr went away. */
export function outputCutOff(): boolean {
  return closed.size > 0;
}

/**
 * Exits with `code` after the output is whole; the one way a one-shot command ends. A command
 * that succeeded but whose reader left early ends with 141; a failure keeps its own status.
 */
export async function exitAfterOutput(code: number): Promise<never> {
  await outputFlushed();
  process.exit(code === 0 && outputCutOff() ? CLOSED_PIPE_STATUS : code);
}
