// Downloads of a pushed capture in the formats other tools read (pprof, folded stacks,
// speedscope), one side of a comparison merged (folded stacks per axis), and the diff as JSON.
import { toFolded, toPprof, toSpeedscope, AxisBuilder, axisOf, type Capture } from "../../witness/index.ts";
import type { CaptureRecord } from "../store/types.ts";
import { plain } from "./respond.ts";

function fileName(r: CaptureRecord, ext: string): string {
  const safe = `${r.workload}-${r.version}${r.env ? `-${r.env}` : ""}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120);
  return `${safe}.${ext}`;
}

export function attachment(body: BodyInit, type: string, name: string): Response {
  return new Response(body, {
    headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"`, "x-content-type-options": "nosniff", "cache-control": "no-store" },
  });
}

export function download(record: CaptureRecord, capture: Capture, format: string, axis: string | null): Response {
  if (format === "pprof") return attachment(Buffer.from(toPprof(capture)), "application/gzip", fileName(record, "pb.gz"));
  if (format === "speedscope") return attachment(toSpeedscope(capture), "application/json", fileName(record, "speedscope.json"));
  if (format === "folded") {
    const p = axis ? axisOf(capture, axis) : undefined;
    if (!p) return plain(404, `axis "${axis ?? ""}" does not exist in this capture; its axes: ${axesNamed([capture])}`);
    return attachment(toFolded(p), "text/plain; charset=utf-8", fileName(record, `${axis}.folded`));
  }
  return plain(404, `unknown download format "${format}"; use pprof, folded or speedscope`);
}

function axesNamed(caps: Capture[]): string {
  const names = [...new Set(caps.flatMap((c) => Object.keys(c.axes)))].sort();
  return names.length ? names.join(", ") : "none";
}

/** Every capture of one side merged into one folded file of `axis` (the values add up). */
export function mergedFolded(name: string, caps: Capture[], axis: string | null): Response {
  const ps = caps.map((c) => (axis ? axisOf(c, axis) : undefined)).filter((p) => p !== undefined);
  if (!axis || ps.length === 0) return plain(404, `axis "${axis ?? ""}" does not exist on this side; its axes: ${axesNamed(caps)}`);
  const b = new AxisBuilder(axis, ps[0]!.unit, ps[0]!.periodNs);
  for (const p of ps) {
    const ids = p.frames.map((f) => b.frame(f));
    for (const s of p.stacks) b.add(s.frames.map((i) => ids[i]!), s.value, s.totalNs);
  }
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120);
  return attachment(toFolded(b.profile), "text/plain; charset=utf-8", `${safe}.${axis}.folded`);
}

export function diffJson(name: string, json: string): Response {
  return attachment(json, "application/json", `${name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120)}.diff.json`);
}
