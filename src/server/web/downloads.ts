// Downloads of a pushed capture in the formats other tools read (pprof, folded stacks,
// speedscope), one side of a comparison merged (folded stacks per axis), and the diff as JSON.
import { toFolded, toPprof, toSpeedscope, AxisBuilder, axisOf, type Capture } from "../../witness/index.ts";
import type { CaptureRecord } from "../store/types.ts";
import { plain } from "./respond.ts";

function fileName(r: Pick<CaptureRecord, "workload" | "version" | "env">, ext: string): string {
  const safe = `${r.workload}-${r.version}${r.env ? `-${r.env}` : ""}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120);
  return `${safe}.${ext}`;
}

export function attachment(body: BodyInit, type: string, name: string): Response {
  return new Response(body, {
    headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"`, "x-content-type-options": "nosniff", "cache-control": "no-store" },
  });
}

/** A file to download, or why there is none (the 404's text): plain data, made in the worker (download-job.ts). */
export type DownloadFile = { body: Uint8Array | string; type: string; name: string } | { missing: string };

export function respond(f: DownloadFile): Response {
  return "missing" in f ? plain(404, f.missing) : attachment(typeof f.body === "string" ? f.body : Buffer.from(f.body), f.type, f.name);
}

export function captureFile(record: Pick<CaptureRecord, "workload" | "version" | "env">, capture: Capture, format: string, axis: string | null): DownloadFile {
  if (format === "pprof") return { body: toPprof(capture), type: "application/gzip", name: fileName(record, "pb.gz") };
  if (format === "speedscope") return { body: toSpeedscope(capture), type: "application/json", name: fileName(record, "speedscope.json") };
  if (format === "folded") {
    const p = axis ? axisOf(capture, axis) : undefined;
    if (!p) return { missing: `axis "${axis ?? ""}" does not exist in this capture; its axes: ${axesNamed([capture])}` };
    return { body: toFolded(p), type: "text/plain; charset=utf-8", name: fileName(record, `${axis}.folded`) };
  }
  return { missing: `unknown download format "${format}"; use pprof, folded or speedscope` };
}

function axesNamed(caps: Capture[]): string {
  const names = [...new Set(caps.flatMap((c) => Object.keys(c.axes)))].sort();
  return names.length ? names.join(", ") : "none";
}

/** Every capture of one side merged into one folded file of `axis` (the values add up). */
export function mergedFoldedFile(name: string, caps: Capture[], axis: string | null): DownloadFile {
  const ps = caps.map((c) => (axis ? axisOf(c, axis) : undefined)).filter((p) => p !== undefined);
  if (!axis || ps.length === 0) return { missing: `axis "${axis ?? ""}" does not exist on this side; its axes: ${axesNamed(caps)}` };
  const b = new AxisBuilder(axis, ps[0]!.unit, ps[0]!.periodNs);
  for (const p of ps) {
    const ids = p.frames.map((f) => b.frame(f));
    for (const s of p.stacks) b.add(s.frames.map((i) => ids[i]!), s.value, s.totalNs);
  }
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120);
  return { body: toFolded(b.profile), type: "text/plain; charset=utf-8", name: `${safe}.${axis}.folded` };
}

export function diffJson(name: string, json: string): Response {
  return attachment(json, "application/json", `${name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120)}.diff.json`);
}
