// Credentials must not appear in output, errors or health reports, even when a third party
// echoes them back in an error body. Every secret value the Agent reads is registered here and
// scrubbed from any text before it leaves the process.

const MIN_SECRET_LENGTH = 6; // shorter values would scrub ordinary words; real credentials are longer

export class Redactor {
  private readonly values = new Set<string>();
  /** The values longest first (so a value containing another is removed whole); rebuilt on add, not per scrub. */
  private longestFirst: string[] = [];

  add(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    this.values.add(value);
    // Credentials also travel encoded (Basic auth, URL query); scrub those spellings too.
    this.values.add(encodeURIComponent(value));
    this.values.add(Buffer.from(value).toString("base64"));
    this.longestFirst = [...this.values].sort((a, b) => b.length - a.length);
  }

  scrub(text: string): string {
    let out = text;
    for (const v of this.longestFirst) out = out.split(v).join("[REDACTED]");
    return out;
  }
}
