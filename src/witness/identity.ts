// What a frame is, as a function the diff can follow across captures. A name is an identity only
// when it means the same code in every process: an absolute address does not (ASLR, and garbage
// return addresses from frame-pointer walks through code without frame pointers, differ in every
// process), so such frames are grouped per module and never tested as functions.
import type { Frame } from "./model.ts";

/** `[unknown] 0x7f…` (ptop before module+offset naming, pprof locations without a function). */
const ABSOLUTE_ADDRESS = /^\[unknown\] (0x[0-9a-f]+|fn#\d+)$/i;

/** The function identity of a frame: its name, or `[unknown <module>]` for an absolute address. */
export function functionIdentity(f: Frame): string {
  if (!ABSOLUTE_ADDRESS.test(f.name)) return f.name;
  const mod = f.module ? f.module.slice(f.module.lastIndexOf("/") + 1) : "";
  return mod ? `[unknown ${mod}]` : "[unknown]";
}

/** Placeholders that are not functions: unknown code grouped per module, the root of a stack that
 * could not be walked (`[truncated]`), a sample without a stack. Shown, never tested or flagged. */
export function isPlaceholder(identity: string): boolean {
  return /^\[(unknown|truncated|no stack)[\] ]/.test(identity);
}
