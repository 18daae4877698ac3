// Java methods in ptop's stacks for a JVM started with no flag (issue 32): a com.sun.net.httpserver
// service (test/fixtures/workloads/java-shop) run as uid 65534 under load, on every JDK of the
// machine and on OpenJDK 11 and 21 fetched from Debian (fetched-jdks.ts); JDK 23 and 24 must be
// reported unsupported instead. Each request runs Pricing.priceCart and Pricing.applyDiscounts, the
// second doing three times the loop work of the first: of the samples in either, 75% and 25% by construction.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT, liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type StreamRecord, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, framesById, runPtop, setcapPtop, sharedTempDir, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { waitForQuietJit } from "./jvm-warmup.ts";
import { DEBIAN_JDK, NOT_WALKED, javaTestJdks as jdks, type FetchedJdk } from "./fetched-jdks.ts";

const live = liveAvailable();
const SHOP = resolve(REPO_ROOT, "test/fixtures/workloads/java-shop");
const UNITS = 2_000_000; // loop iterations of priceCart per request: about 10 ms of both methods
const CAPTURE_SEC = 6;

interface Shares {
  samples: number;
  /** of the samples of the service's threads that run Java code (all but the stacks walked whole to
   *  their root without a Java frame: the JIT compilers', GC's and VM thread's, which run none):
   *  those whose stack holds one of its own (com.shop) Java frames. A Java thread whose walk failed
   *  counts against it ([truncated], or no com.shop frame). */
  ownJava: number;
  /** the same of all the service's samples, the VM's own threads included (reported, not bound) */
  ownJavaOfAll: number;
  /** of the samples in either method: each one's inclusive share */
  applyDiscounts: number;
  priceCart: number;
  notWalked: number;
}

function sharesOf(records: StreamRecord[]): Shares {
  const frames = framesById(records);
  let total = 0, vmOnly = 0, own = 0, a = 0, b = 0, either = 0, notWalked = 0;
  for (const s of stacksOf(records, "cpu")) {
    const fs = s.frames.map((id) => frames.get(id)!);
    total += s.value;
    const walkedWhole = !fs.some((f) => f.function === "[truncated]" || f.function === "[java] <frames not walked>");
    if (walkedWhole && !fs.some((f) => f.kind === "java")) vmOnly += s.value;
    if (fs.some((f) => f.kind === "java" && f.function.startsWith("com.shop."))) own += s.value;
    const inA = fs.some((f) => f.kind === "java" && f.function === "com.shop.Pricing.applyDiscounts");
    const inB = fs.some((f) => f.kind === "java" && f.function === "com.shop.Pricing.priceCart");
    if (inA) a += s.value;
    if (inB) b += s.value;
    if (inA || inB) either += s.value;
    if (fs.some((f) => f.function === "[java] <frames not walked>")) notWalked += s.value;
  }
  const r = (x: number, of: number) => Math.round((x / Math.max(of, 1)) * 1000) / 1000;
  return { samples: total, ownJava: r(own, total - vmOnly), ownJavaOfAll: r(own, total), applyDiscounts: r(a, either), priceCart: r(b, either), notWalked: r(notWalked, total) };
}

describeUnless(whyNot([!live, NOT_ROOT], [!existsSync(join(DEBIAN_JDK, "bin/javac")), "needs Debian's openjdk-17-jdk-headless (.ci/run installs it)"]))("ptop Java frames, no JVM flag (live)", () => {
  let dir = "";
  let ptop = "";
  let classes = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-java-");
    ptop = setcapPtop(dir);
    classes = join(dir, "classes");
    mkdirSync(classes);
    // Class files of Java 11, so that every JDK (11 and newer) runs the same code.
    const javac = Bun.spawnSync([join(DEBIAN_JDK, "bin/javac"), "--release", "11", "-d", classes,
      join(SHOP, "com/shop/Pricing.java"), join(SHOP, "com/shop/Service.java")], { stderr: "pipe" });
    if (javac.exitCode !== 0) throw new Error(`javac: ${javac.stderr.toString()}`);
  }, 60_000);
  afterAll(() => cleanup(dir));

  /** The service on jdk, loaded by two request loops; ptop's capture once it is warm. */
  async function capture(jdk: FetchedJdk) {
    // Its own workload name (argv[0]): other JVMs may run on the machine, and every share below is
    // of this one's samples.
    const workload = `javashop-${process.pid}`;
    const svc = Bun.spawn([...NOBODY, "env", "HOME=/tmp", "bash", "-c", 'exec -a "$0" "$@"', workload, ...jdk.java,
      "-cp", classes, "com.shop.Service", "0", String(UNITS)], { stdout: "pipe", stderr: "pipe" });
    let stop = false;
    let loadError: unknown = null;
    const loops: Promise<void>[] = [];
    try {
      const reader = svc.stdout.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const port = /listening (\d+)/.exec(first)?.[1];
      if (!port) throw new Error(`the service did not start: ${first}`);
      const loop = async () => {
        while (!stop) await (await fetch(`http://127.0.0.1:${port}/checkout`)).text();
      };
      // a request cut by the service's end is not an error; one before it is
      const guarded = () => loop().catch((e) => void (stop || (loadError = e)));
      loops.push(guarded(), guarded());
      await waitForQuietJit(svc.pid, 15_000);
      const targets = writeTargets(dir, { targets: [{ workload }] }, "targets-java.json");
      const run = await runPtop(ptop, ["--targets", targets, "--workload", workload, "--duration", String(CAPTURE_SEC), "--frequency", "999", "--probes", "cpu"]);
      expect(svc.exitCode).toBeNull(); // the service ran through the capture, unharmed
      expect(loadError).toBeNull();
      expect(run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []))).toEqual([svc.pid]);
      return run;
    } finally {
      stop = true;
      svc.kill("SIGKILL");
      await svc.exited;
      await Promise.allSettled(loops);
    }
  }

  test("every JDK: ≥ 90% of the service's Java threads' samples carry its Java frames; applyDiscounts 75%, priceCart 25% (± 5 points)", async () => {
    const found = jdks();
    expect(found.map((j) => j.home)).toContain(DEBIAN_JDK);
    const seen: Record<string, Shares | string> = {};
    for (const j of found) {
      const jdk = j.home;
      const run = await capture(j);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const summary = run.records.find((r): r is SummaryRecord => r.type === "summary")!;
      const unsupported = summary.notes?.find((n) => n.startsWith("java frames: unsupported JVM"));
      if (NOT_WALKED.has(j.major)) {
        // JDK 23 and 24 (their nmethod layout, README "Java frames"): said so, and no Java frame
        // at all rather than a wrong one.
        expect(unsupported).toBeDefined();
        expect([...framesById(run.records).values()].filter((f) => f.kind === "java")).toEqual([]);
        seen[jdk] = unsupported!;
        continue;
      }
      expect({ jdk, unsupported }).toEqual({ jdk, unsupported: undefined });
      seen[jdk] = sharesOf(run.records);
    }
    console.log(JSON.stringify(seen));
    for (const [jdk, s] of Object.entries(seen)) {
      if (typeof s === "string") continue;
      const holds = {
        jdk,
        enoughSamples: s.samples > 1000,
        ownJava: s.ownJava >= 0.9,
        applyDiscounts: Math.abs(s.applyDiscounts - 0.75) <= 0.05,
        priceCart: Math.abs(s.priceCart - 0.25) <= 0.05,
      };
      expect(holds).toEqual({ jdk, enoughSamples: true, ownJava: true, applyDiscounts: true, priceCart: true });
    }
  }, 600_000);
});
