// The version diff on Java methods (ptop-diff-suite.ts): a small Java service
// (test/fixtures/workloads/java-shop, com.shop.Checkout) captured five times per version by the
// compiled ptop, the JVM run as uid 65534 with no flag on Debian's OpenJDK 17, v2 making
// applyDiscounts 30% slower; C2 inlines its four steps into one compiled loop, and ptop names them
// from the nmethod's scope data; `runner witness diff` and the compiled server's capture screen flag
// applyDiscounts as the cause and no sibling.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import { cleanup, setcapPtop, sharedTempDir } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { diffTests } from "./ptop-diff-suite.ts";
import { waitForQuietJit } from "./jvm-warmup.ts";

const live = liveAvailable();
const JDK = "/usr/lib/jvm/java-17-openjdk-amd64";
const hasJdk = existsSync(join(JDK, "bin/javac"));
if (live && !hasJdk && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error(`RUNNER_REQUIRE_LIVE=1 but ${JDK} is missing (apt-get install openjdk-17-jdk-headless)`);
const SOURCE = resolve(REPO_ROOT, "test/fixtures/workloads/java-shop/com/shop/Checkout.java");
const CLASS = "com.shop.Checkout";

describeUnless(whyNot([!live, NOT_ROOT], [!hasJdk, `needs ${JDK} (.ci/run installs openjdk-17-jdk-headless)`]))("ptop + witness: a Java method made 30% slower (live)", () => {
  let dir = "";
  let ptop = "";
  let classes = "";
  // a name of this run's own (argv[0]): ptop matches workloads by name machine-wide
  const workload = `javadiff-${process.pid}`;
  beforeAll(() => {
    dir = sharedTempDir("ptop-javadiff-");
    ptop = setcapPtop(dir);
    classes = join(dir, "classes");
    mkdirSync(classes);
    const javac = Bun.spawnSync([join(JDK, "bin/javac"), "--release", "17", "-d", classes, SOURCE], { stderr: "pipe" });
    if (javac.exitCode !== 0) throw new Error(`javac: ${javac.stderr.toString()}`);
  }, 120_000);
  afterAll(() => cleanup(dir), 120_000);

  // applyDiscounts is a fifth of handle() in v1; 30% slower, its share of the cpu axis goes from
  // 0.20 to 0.26/1.06 = 0.245 (+22.6%) while the three other steps lose 6% of share.
  diffTests({
    dir: () => dir,
    ptop: () => ptop,
    workload: () => workload,
    command: (version) => ["bash", "-c", 'exec -a "$0" "$@"', workload, join(JDK, "bin/java"), "-cp", classes, CLASS, version],
    // C2 compiles the steps within seconds (an order is tens of microseconds); then until its
    // compiler threads are quiet, so that neither version's first capture holds the JIT's samples
    startMs: 0,
    warm: (pid) => waitForQuietJit(pid, 5000),
    cause: `${CLASS}.applyDiscounts`,
    siblings: ["parseOrder", "computeTax", "formatReceipt"].map((m) => `${CLASS}.${m}`),
    trueChange: 26 / 106 / (20 / 100) - 1,
    pushed: "javasvc",
    screenshot: "java-diff-capture.png",
  });
});
