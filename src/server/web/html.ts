// Server-side HTML: one escaping function, a tagged template that escapes every interpolation
// unless it is already `Html`, and the page layout shared by every signed-in page.
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]!);

type Value = Html | string | number | null | undefined | false | Array<Html | string>;

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map((x) => render(x)).join("");
  return esc(String(v));
}

/** html`<p>${untrusted}</p>`: escapes interpolations; nest html`` results or raw() for markup. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

export const raw = (s: string): Html => new Html(s);

/** JSON inside a <script type="application/json">: `<` escaped so no string can close the tag. */
export function jsonScript(id: string, value: unknown): Html {
  return raw(`<script type="application/json" id="${esc(id)}">${JSON.stringify(value).replace(/</g, "\\u003c")}</script>`);
}

export function isoTime(ms: number | null): string {
  return ms === null ? "never" : new Date(ms).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}
