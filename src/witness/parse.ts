// One entry point for every input format: detects pprof, ptop stream or folded stacks by content
// (and, for folded, takes the axis from the name hint). Pure: bytes in, Capture out.

import type { Capture } from "./model.ts";
import { axisFromName, parseFolded, parseFoldedBytes } from "./folded.ts";
import { parsePprof } from "./pprof.ts";
import { parseStream } from "./stream.ts";

export type ProfileFormat = "pprof" | "stream" | "folded";

export function detectFormat(bytes: Uint8Array, nameHint = ""): ProfileFormat {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return "pprof"; // gzip: pprof is the only gzipped input
  if (/\.(pb|pprof)(\.gz)?$/.test(nameHint)) return "pprof";
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  if (bytes[i] === 0x7b /* { */) return "stream";
  if (/\.(folded|collapsed)$/.test(nameHint) || bytes.length === 0) return "folded";
  // Raw protobuf starts with a field tag; text never has bytes < 0x09.
  for (let k = 0; k < Math.min(bytes.length, 64); k++) if (bytes[k]! < 0x09) return "pprof";
  return "folded";
}

export function parseProfile(input: Uint8Array | string, nameHint = ""): Capture {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const format = detectFormat(bytes, nameHint);
  const name = nameHint || undefined;
  if (format === "pprof") return parsePprof(bytes, name);
  if (format === "folded") return typeof input === "string" ? parseFolded(input, axisFromName(nameHint), name) : parseFoldedBytes(bytes, axisFromName(nameHint), name);
  return parseStream(typeof input === "string" ? input : new TextDecoder("utf-8", { fatal: false }).decode(bytes), name);
}
