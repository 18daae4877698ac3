import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join, resolve } from "node:path";
import protobuf from "protobufjs";
import { parseStream, toStream, StreamError } from "../../src/witness/stream.ts";
import { parseFolded, toFolded, FoldedError, axisFromName } from "../../src/witness/folded.ts";
import { parsePprof, toPprof, PprofError } from "../../src/witness/pprof.ts";
import { toSpeedscope } from "../../src/witness/speedscope.ts";
import { detectFormat, parseProfile } from "../../src/witness/parse.ts";
import { instrumentation } from "../../src/witness/model.ts";
import { testUnless } from "../helpers/skip.ts";

const FIX = resolve(import.meta.dir, "../fixtures/profiles");
const streamText = readFileSync(`${FIX}/api-v1-head.stream.jsonl`, "utf8");
const lines = streamText.trimEnd().split("\n");

describe("ptop stream reader", () => {
  const c = parseStream(streamText, "head.jsonl");
  test("reads axes, metadata and frames", () => {
    expect(Object.keys(c.axes).sort()).toEqual(["cpu", "syscalls"]);
    expect(c.meta.workload).toBe("api");
    expect(c.meta.measuredSec).toBe(60);
    expect(c.meta.partial).toBe(false);
    expect(c.axes.cpu!.periodNs).toBe(10101010);
    expect(c.axes.syscalls!.stacks[0]!.totalNs).toBe(3400000);
    expect(c.meta.processes).toEqual([{ pid: 4242, nspid: 1, comm: "api" }]);
  });
  test("a probe that did not attach is an absent axis with its reason, never zero", () => {
    expect(c.axes.offcpu).toBeUndefined();
    expect(c.missing).toEqual([{ axis: "offcpu", reason: "tracefs not mounted at /sys/kernel/tracing" }]);
    expect(instrumentation(c)).toBe("2 of 3 probes");
  });
  test("an unsymbolized frame keeps its address", () => {
    expect(toFolded(c.axes.cpu!)).toContain("main;[unknown] 0x7f00dead 50");
  });
  test("no summary record means partial", () => {
    const p = parseStream(lines.slice(0, -1).join("\n") + "\n");
    expect(p.meta.partial).toBe(true);
    expect(p.meta.partialReason).toContain("no summary");
    expect(p.axes.cpu!.stacks.length).toBe(4);
  });
  test("a truncated last line (collector killed) is dropped and marks partial", () => {
    const cut = lines.slice(0, 14).join("\n") + "\n" + lines[14]!.slice(0, 20);
    const p = parseStream(cut);
    expect(p.meta.partial).toBe(true);
    expect(p.meta.partialReason).toContain("truncated");
  });
  test("the summary's partial flag and reason are kept", () => {
    const last = JSON.parse(lines.at(-1)!);
    const text = [...lines.slice(0, -1), JSON.stringify({ ...last, partial: true, partial_reason: "SIGTERM after 12.3 s of 60 s", measured_sec: 12.3 })].join("\n");
    const p = parseStream(text);
    expect(p.meta.partial).toBe(true);
    expect(p.meta.partialReason).toBe("SIGTERM after 12.3 s of 60 s");
    expect(p.meta.measuredSec).toBe(12.3);
  });
  const bad: [string, string, RegExp][] = [
    ["malformed JSON in the middle", [lines[0], "{nope", ...lines.slice(1)].join("\n"), /line 2: not valid JSON/],
    ["a record failing the schema", [lines[0], '{"type":"stack","axis":"cpu","frames":[-1],"value":1}'].join("\n"), /line 2: invalid record \(\/frames\/0: Expected integer to be greater or equal to 0\)/],
    ["an unknown record type", [lines[0], '{"type":"evil"}'].join("\n"), /line 2: invalid record \("type" "evil" is not a record type: one of header, probe, axis, process, frame, stack, summary\)/],
    ["a record without a type", [lines[0], '[1]'].join("\n"), /line 2: invalid record \("type" is missing: one of header/],
    ["no header first", lines.slice(1).join("\n"), /first record must be the header/],
    ["a stack on an undefined frame", [...lines.slice(0, 6), '{"type":"stack","axis":"cpu","frames":[99],"value":1}'].join("\n"), /undefined frame id 99/],
    ["a stack for a probe that did not attach", [...lines.slice(0, 9), '{"type":"stack","axis":"offcpu","frames":[0],"value":1}'].join("\n"), /did not attach/],
    ["a record after the summary", [...lines, lines[1]].join("\n"), /after the summary/],
    ["an empty input", "", /no header/],
    ["a not_fired entry for no probe", [lines[0], '{"type":"summary","samples":{},"lost":{},"not_fired":{"__proto__x":"y"},"partial":false,"ended_at_ms":1,"measured_sec":1}'].join("\n"), /line 2: invalid record \(\/not_fired\/__proto__x: Unexpected property\)/],
  ];
  for (const [name, text, re] of bad) {
    test(`rejects ${name}`, () => {
      expect(() => parseStream(text)).toThrow(StreamError);
      expect(() => parseStream(text)).toThrow(re);
    });
  }
  test("toStream writes a stream that reads back identically", () => {
    const again = parseStream(toStream(c));
    expect(toFolded(again.axes.cpu!)).toBe(toFolded(c.axes.cpu!));
    expect(again.missing).toEqual(c.missing);
  });
});

describe("a stream written by the real ptop", () => {
  // Recorded from dist/ptop on bench/witness-workload.c (4 s, 999 Hz, all three probes).
  const real = parseStream(readFileSync(`${FIX}/ptop-workload.stream.jsonl`, "utf8"));
  test("reads every axis; attached-but-idle axes are present and empty, not missing", () => {
    expect(Object.keys(real.axes).sort()).toEqual(["cpu", "offcpu", "syscalls"]);
    expect(real.missing).toEqual([]);
    expect(real.meta.partial).toBe(false);
    expect(real.meta.measuredSec).toBe(4.25);
    expect(real.axes.offcpu!.stacks.length).toBe(0);
  });
  test("the workload's hot functions come out on top, root first", () => {
    const folded = toFolded(real.axes.cpu!);
    expect(folded).toContain("main;db_query ");
    const total = real.axes.cpu!.stacks.reduce((t, s) => t + s.value, 0);
    expect(total).toBe(real.meta.samples!.cpu!);
  });
});

describe("folded", () => {
  test("parses, merges duplicate stacks and writes root first", () => {
    const c = parseFolded("a;b;c 3\na;b 2\n# comment\na;b;c 4\n");
    expect(toFolded(c.axes.cpu!)).toBe("a;b 2\na;b;c 7\n");
  });
  test("rejects lines without a count and empty frames", () => {
    expect(() => parseFolded("a;b;c\n")).toThrow(FoldedError);
    expect(() => parseFolded("a;;c 3\n")).toThrow(/line 1: empty frame/);
    expect(() => parseFolded("a;b -3\n")).toThrow(FoldedError);
  });
  test("axis from the file name", () => {
    expect(axisFromName("api.offcpu.folded")).toBe("offcpu");
    expect(axisFromName("x.folded")).toBe("cpu");
  });
});

describe("pprof", () => {
  const c = parseStream(streamText, "head.jsonl");
  const root = protobuf.loadSync(`${FIX}/profile.proto`);
  const Profile = root.lookupType("perftools.profiles.Profile");
  const decoded = Profile.toObject(Profile.decode(gunzipSync(toPprof(c))), { longs: Number, defaults: true }) as {
    stringTable: string[];
    sampleType: { type: number; unit: number }[];
    sample: { locationId: number[]; value: number[] }[];
    location: { id: number; mappingId: number; line: { functionId: number }[] }[];
    function: { id: number; name: number }[];
    mapping: { id: number }[];
    durationNanos: number;
    periodType: { type: number; unit: number };
    period: number;
    comment: number[];
  };
  const s = (i: number) => decoded.stringTable[i]!;

  test("decodes with an independent reader against the published profile.proto", () => {
    expect(decoded.stringTable[0]).toBe("");
    expect(decoded.sampleType.map((t) => `${s(t.type)}/${s(t.unit)}`)).toEqual(["samples/count", "cpu/nanoseconds", "syscalls/count", "syscall_time/nanoseconds"]);
    expect(decoded.durationNanos).toBe(60e9);
    expect(`${s(decoded.periodType.type)}/${s(decoded.periodType.unit)}`).toBe("cpu/nanoseconds");
    expect(decoded.period).toBe(10101010);
  });
  test("every reference resolves: ids nonzero and unique, sample values match sample types", () => {
    const locIds = new Set(decoded.location.map((l) => l.id));
    const fnIds = new Set(decoded.function.map((f) => f.id));
    const mapIds = new Set(decoded.mapping.map((m) => m.id));
    expect(locIds.size).toBe(decoded.location.length);
    expect(fnIds.size).toBe(decoded.function.length);
    for (const id of [...locIds, ...fnIds, ...mapIds]) expect(id).toBeGreaterThan(0);
    for (const l of decoded.location) {
      if (l.mappingId) expect(mapIds.has(l.mappingId)).toBe(true);
      for (const ln of l.line) expect(fnIds.has(ln.functionId)).toBe(true);
    }
    for (const smp of decoded.sample) {
      expect(smp.value.length).toBe(decoded.sampleType.length);
      for (const id of smp.locationId) expect(locIds.has(id)).toBe(true);
    }
    for (const f of decoded.function) expect(s(f.name)).toBeDefined();
  });
  test("samples list the leaf first and carry samples × period as cpu time", () => {
    const nameOfLoc = new Map(decoded.location.map((l) => [l.id, s(decoded.function.find((f) => f.id === l.line[0]!.functionId)!.name)]));
    const stacks = decoded.sample.filter((x) => x.value[0]! > 0).map((x) => `${x.locationId.map((id) => nameOfLoc.get(id)).reverse().join(";")} ${x.value[0]} ${x.value[1]}`);
    expect(stacks).toContain("main;handle_request;parse_json 600 6060606000");
  });
  test("round trip keeps stacks, values, metadata and the missing axis", () => {
    const back = parsePprof(toPprof(c));
    expect(toFolded(back.axes.cpu!)).toBe(toFolded(c.axes.cpu!));
    expect(toFolded(back.axes.syscalls!)).toBe(toFolded(c.axes.syscalls!));
    expect(back.axes.syscalls!.stacks[0]!.totalNs).toBe(3400000);
    expect(back.meta.workload).toBe("api");
    expect(back.meta.measuredSec).toBe(60);
    expect(back.missing).toEqual([{ axis: "offcpu", reason: "tracefs not mounted at /sys/kernel/tracing" }]);
    expect(back.axes.offcpu).toBeUndefined();
  });
  // The reader users have: `go tool pprof` (Debian's golang-go on CI; elsewhere it skips).
  const go = Bun.which("go");
  testUnless(!go && process.env.RUNNER_REQUIRE_LIVE !== "1" ? "go is not installed (go tool pprof)" : null)("go tool pprof reads it: the stacks with -traces, the cpu time with -top", () => {
    if (!go) throw new Error("RUNNER_REQUIRE_LIVE=1 but `go` is not installed (apt-get install golang-go)");
    const dir = mkdtempSync(join(tmpdir(), "witness-pprof-"));
    try {
      const file = join(dir, "head.pb.gz");
      writeFileSync(file, toPprof(c));
      const env = { PATH: process.env.PATH ?? "", HOME: dir, GOCACHE: join(dir, "cache"), PPROF_TMPDIR: dir };
      const pprof = (...args: string[]) => {
        const r = Bun.spawnSync([go, "tool", "pprof", ...args, file], { env, stdout: "pipe", stderr: "pipe" });
        expect(r.stderr.toString()).not.toContain("failed");
        expect(r.exitCode).toBe(0);
        return r.stdout.toString();
      };
      // -traces: one block per sample, leaf first, with the sample's value.
      const traces = pprof("-traces", "-sample_index=samples");
      expect(traces).toMatch(/\b600\s+parse_json\n\s+handle_request\n\s+main\n/);
      // -top on the cpu column: 600 samples × the 10.1 ms period flat, 750 with its memcpy.
      const top = pprof("-top", "-sample_index=cpu");
      expect(top).toContain("Type: cpu\n");
      expect(top).toContain("Duration: 60s");
      expect(top).toMatch(/6060\.61ms\s+60\.00%\s+[\d.]+%\s+7575\.76ms\s+75\.00%\s+parse_json\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a single-axis export holds only that axis", () => {
    const one = parsePprof(toPprof(c, ["syscalls"]));
    expect(Object.keys(one.axes)).toEqual(["syscalls"]);
  });
  test("rejects garbage and corrupt gzip", () => {
    expect(() => parsePprof(new Uint8Array([0x1f, 0x8b, 1, 2, 3]))).toThrow(PprofError);
    expect(() => parsePprof(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1]))).toThrow(PprofError);
  });
});

describe("speedscope", () => {
  test("one sampled profile per axis, indexes in range, weights sum to the axis total", () => {
    const c = parseStream(streamText);
    const doc = JSON.parse(toSpeedscope(c)) as { $schema: string; shared: { frames: { name: string }[] }; profiles: { type: string; samples: number[][]; weights: number[]; endValue: number }[] };
    expect(doc.$schema).toBe("https://www.speedscope.app/file-format-schema.json");
    expect(doc.profiles.length).toBe(2);
    for (const p of doc.profiles) {
      expect(p.type).toBe("sampled");
      expect(p.samples.length).toBe(p.weights.length);
      for (const smp of p.samples) for (const i of smp) expect(i).toBeLessThan(doc.shared.frames.length);
      expect(p.weights.reduce((a, b) => a + b, 0)).toBe(p.endValue);
    }
    expect(doc.profiles[0]!.endValue).toBe(1000);
  });
});

describe("format detection", () => {
  const c = parseStream(streamText);
  test("by content", () => {
    expect(detectFormat(toPprof(c))).toBe("pprof");
    expect(detectFormat(new TextEncoder().encode(streamText))).toBe("stream");
    expect(detectFormat(new TextEncoder().encode("a;b 1\n"), "x.folded")).toBe("folded");
    expect(parseProfile("main;f 3\n", "x.offcpu.folded").axes.offcpu).toBeDefined();
    expect(parseProfile(toPprof(c), "blob").meta.source).toBe("pprof");
  });
});

describe("the alloc axis (bytes)", () => {
  const alloc = [
    '{"type":"header","version":1,"workload":"shop","probes_requested":["alloc"],"frequency_hz":99,"warmup_sec":0,"duration_sec":10,"started_at_ms":1}',
    '{"type":"probe","name":"alloc","attached":true}',
    '{"type":"axis","name":"alloc","unit":"bytes"}',
    '{"type":"frame","id":0,"function":"main","kind":"native"}',
    '{"type":"frame","id":1,"function":"build_cart","kind":"native"}',
    '{"type":"frame","id":2,"function":"malloc","kind":"native"}',
    '{"type":"stack","axis":"alloc","frames":[0,1,2],"value":3145728}',
    '{"type":"stack","axis":"alloc","frames":[0,2],"value":1048576}',
    '{"type":"summary","samples":{"alloc":8},"lost":{"alloc":0},"totals":{"alloc":4200000},"partial":false,"ended_at_ms":2,"measured_sec":10}',
  ].join("\n");
  const c = parseStream(alloc);
  test("reads it with its unit", () => {
    expect(c.axes.alloc!.unit).toBe("bytes");
    expect(toFolded(c.axes.alloc!)).toContain("main;build_cart;malloc 3145728");
  });
  test("pprof round trip keeps the axis, unit and bytes", () => {
    const back = parsePprof(toPprof(c));
    expect(back.axes.alloc!.unit).toBe("bytes");
    expect(toFolded(back.axes.alloc!)).toBe(toFolded(c.axes.alloc!));
  });
  test("folded: the axis from the file name, the unit from the axis", () => {
    expect(axisFromName("shop.alloc.folded")).toBe("alloc");
    expect(parseFolded("main;malloc 1024\n", axisFromName("shop.alloc.folded")).axes.alloc!.unit).toBe("bytes");
  });
  test("speedscope: a bytes profile", () => {
    const doc = JSON.parse(toSpeedscope(c)) as { profiles: { unit: string; endValue: number }[] };
    expect(doc.profiles).toHaveLength(1);
    expect(doc.profiles[0]).toMatchObject({ unit: "bytes", endValue: 4194304 });
  });
});

