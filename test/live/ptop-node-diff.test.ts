// The version diff on JavaScript functions (ptop-diff-suite.ts): a small Node.js service captured
// five times per version by the compiled ptop (the target as uid 65534, no flag), v2 making
// applyDiscounts 30% slower; its four steps are inlined into handle() by TurboFan, and ptop names
// them from the code's inlining positions; `runner witness diff` and the compiled server's capture
// screen flag applyDiscounts as the cause and no sibling.
import { afterAll, beforeAll } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { cleanup, copyWorkload, setcapPtop, sharedTempDir } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { diffTests } from "./ptop-diff-suite.ts";

const live = liveAvailable();
const NODE = "/usr/bin/node";

describeUnless(whyNot([!live, NOT_ROOT], [!existsSync(NODE), `needs ${NODE}`]))("ptop + witness: a JavaScript function made 30% slower (live)", () => {
  let dir = "";
  let ptop = "";
  // a comm of this run's own (at most 15 characters): ptop matches workloads by name machine-wide
  const workload = `jsdiff-${process.pid}`;
  beforeAll(() => {
    dir = sharedTempDir("ptop-jsdiff-");
    ptop = setcapPtop(dir);
  }, 120_000);
  afterAll(() => cleanup(dir), 120_000);

  // applyDiscounts is a fifth of handle() in v1; 30% slower, its share of the cpu axis goes from
  // 0.20 to 0.26/1.06 = 0.245 (+22.6%) while the three other steps lose 6% of share.
  diffTests({
    dir: () => dir,
    ptop: () => ptop,
    workload: () => workload,
    command: (version) => [realpathSync(NODE), copyWorkload(dir, "node_svc.js"), version, workload],
    // past TurboFan's tier-up of handle(): before it, V8's compiler threads take a share of the
    // samples that the first capture of each version would not have alike
    startMs: 6000,
    cause: "applyDiscounts",
    siblings: ["parseOrder", "computeTax", "formatReceipt"],
    trueChange: 26 / 106 / (20 / 100) - 1,
    pushed: "jssvc",
    screenshot: "node-diff-capture.png",
  });
});
