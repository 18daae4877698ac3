// The grammar of the names a capture is about, one definition for both sides: the Profiler's
// target list (profiler/targets.ts, with ptop's own parser native/ptop/src/collector/targets.c — change a
// rule here, change it there) and the capture request API (capture-request.ts), whose workload is
// matched against that list and whose fields are printed on operators' terminals and pages.

/** Longest workload name, in bytes of UTF-8: ptop compares it with comm and with the basename of
 *  the executable or argv[0], a file name, and Linux file names are at most NAME_MAX = 255 bytes. */
export const MAX_NAME_BYTES = 255;

// C0 controls and DEL: NUL ends a C string early, CR/ESC/BEL rewrite a terminal, none is ever part
// of a process name we compare against.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** What any stored text must be: well-formed Unicode without control characters. */
export function textProblem(text: string): string | undefined {
  if (!text.isWellFormed()) return "contains an unpaired UTF-16 surrogate";
  const at = text.search(CONTROL);
  if (at >= 0) {
    const code = text.charCodeAt(at).toString(16).padStart(4, "0").toUpperCase();
    return `contains a control character (U+${code} at character ${at + 1}); control characters such as NUL, CR or ESC are not allowed`;
  }
  return undefined;
}

/** A workload (a process name) or a namespace as the target list writes it. */
export function nameProblem(name: string, what: "workload" | "namespace"): string | undefined {
  if (name.length === 0) return `is empty: name the ${what === "workload" ? "process" : "namespace"}`;
  if (name.trim() === "") return "is only whitespace";
  if (what === "workload" && name.trim() === "*") return 'is "*": a wildcard meaning every process is refused; name the process';
  // A basename never contains '/': "bin/api" could match no process.
  if (what === "workload" && name.includes("/")) return 'contains "/": a workload is a process name (the executable\'s file name), not a path';
  if (name !== name.trim()) return "has leading or trailing whitespace";
  const text = textProblem(name);
  if (text) return text;
  const bytes = Buffer.byteLength(name, "utf8");
  if (bytes > MAX_NAME_BYTES) return `is ${bytes} bytes of UTF-8, longer than the ${MAX_NAME_BYTES} a process name can have`;
  return undefined;
}
