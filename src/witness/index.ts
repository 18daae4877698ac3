// witness as a library: the one surface the control plane and the CLI import (pure functions:
// bytes in, objects out; `witnessCommand`, the `runner witness` subcommand, is the only part that
// touches files). Nothing outside src/witness/ reaches past this file.
export type { Capture, AxisProfile, Frame, Stack, MissingAxis, CaptureMeta } from "./model.ts";
export { axisTotal, axisOf, instrumentation, AxisBuilder } from "./model.ts";
export { gunzipProfileSync } from "./gunzip.ts";
export { parseProfile, detectFormat, type ProfileFormat } from "./parse.ts";
export { parseStream, toStream, StreamError } from "./stream.ts";
export { parseFolded, toFolded, FoldedError } from "./folded.ts";
export { parsePprof, toPprof, PprofError } from "./pprof.ts";
export { toSpeedscope } from "./speedscope.ts";
export { functionTotals, addStackShares, shareRoot, type ShareNode, type FunctionTotals } from "./aggregate.ts";
export { diffCaptures } from "./diff.ts";
export type { DiffResult, DiffOptions, Change, AxisReport, Side, NormalisedChange, CaptureInfo, Normalisation } from "./diff.ts";
export { renderDiffHtml } from "./html.ts";
export { renderDiffTable } from "./table.ts";
export { signedPercent, count } from "./words.ts";
export { adjustedP, changeColour, changeSentence, changeWord, direction, frameChanges, verdictWords, LEGEND, NOT_TESTED, ROOT_FRAME, WITHIN_NOISE, GREW, SHRANK } from "./palette.ts";
export { witnessCommand } from "./command.ts";
