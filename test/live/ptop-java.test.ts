// Java methods in ptop's stacks for a JVM started with no flag (issue 32): a com.sun.net.httpserver
// service (test/fixtures/workloads/java-shop) run as uid 65534 under load, on every JDK of the
// machine and on OpenJDK 11 and 21 fetched from Debian (fetched-jdks.ts); JDK 23 and 24 must be
// reported unsupported instead. Each request runs Pricing.priceCart and Pricing.applyDiscounts, the
// second doing three times the loop work of the first: of the samples in either, 75% and 25% by construction.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT, liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, framesById, runPtop, setcapPtop, sharedTempDir, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { waitForQuietJit } from "./jvm-warmup.ts";
import { javaShares, javaSharesHold, JAVA_SHARES_HOLD, type JavaShares } from "./java-shares.ts";
import { DEBIAN_JDK, NOT_WALKED, javaTestJdks as jdks, type FetchedJdk } from "./fetched-jdks.ts";

const live = liveAvailable();
const SHOP = resolve(REPO_ROOT, "test/fixtures/workloads/java-shop");
const UNITS = 2_000_000; // loop iterations of priceCart per request: about 10 ms of both methods
const CAPTURE_SEC = 6;


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
    const seen: Record<string, JavaShares | string> = {};
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
      seen[jdk] = javaShares(run.records);
    }
    console.log(JSON.stringify(seen));
    for (const [jdk, s] of Object.entries(seen)) {
      if (typeof s === "string") continue;
      expect({ jdk, ...javaSharesHold(s, 1000) }).toEqual({ jdk, ...JAVA_SHARES_HOLD });
    }
  }, 600_000);
});
