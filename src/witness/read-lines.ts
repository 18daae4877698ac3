// Lines of a byte stream, decoded as UTF-8 a chunk at a time, so a large text file (folded stacks)
// is read without ever holding it whole. A line may not grow past `maxLine` characters: input
// without newlines would otherwise be held whole after all.

/** Longest line accepted: far above a folded stack 20,000 frames deep of long C++ names. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export class LineTooLongError extends Error {}

export async function* readLines(chunks: AsyncIterable<Uint8Array>, maxLine = MAX_LINE_CHARS): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let carry = "";
  let lineNo = 1;
  const tooLong = () => new LineTooLongError(`line ${lineNo} is longer than ${maxLine} characters: refused`);
  for await (const chunk of chunks) {
    const text = carry + decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      if (nl - start > maxLine) throw tooLong();
      yield text.slice(start, nl);
      lineNo++;
      start = nl + 1;
    }
    carry = text.slice(start);
    if (carry.length > maxLine) throw tooLong();
  }
  carry += decoder.decode();
  if (carry.length > maxLine) throw tooLong();
  if (carry !== "") yield carry;
}
