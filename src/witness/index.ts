// witness as a library: pure functions the control plane calls when a capture arrives.
export type { Capture, AxisProfile, Frame, Stack, MissingAxis, CaptureMeta } from "./model.ts";
export { axisTotal, instrumentation } from "./model.ts";
export { parseProfile, detectFormat, type ProfileFormat } from "./parse.ts";
export { parseStream, toStream, StreamError } from "./stream.ts";
export { parseFolded, toFolded, FoldedError } from "./folded.ts";
export { parsePprof, toPprof, PprofError } from "./pprof.ts";
export { toSpeedscope } from "./speedscope.ts";
export { diffCaptures, type DiffResult, type DiffOptions, type Change, type AxisReport, type Normalisation } from "./diff.ts";
export { renderDiffHtml } from "./html.ts";
export { renderDiffTable } from "./table.ts";
