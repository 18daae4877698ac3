// The version diff on Python functions (ptop-diff-suite.ts): a small Python service captured five
// times per version by the compiled ptop (targets as uid 65534, no flag), v2 making apply_discounts
// 30% slower; `runner witness diff` and the compiled server's capture screen flag that Python
// function as the cause and no sibling.
import { afterAll, beforeAll } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { cleanup, copyWorkload, setcapPtop, sharedTempDir } from "./ptop-harness.ts";
import { findInterpreters, type Interpreter } from "./ptop-python-interpreters.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { diffTests } from "./ptop-diff-suite.ts";

const live = liveAvailable();

describeUnless(whyNot([!live, NOT_ROOT]))("ptop + witness: a Python function made 30% slower (live)", () => {
  let dir = "";
  let ptop = "";
  let py: Interpreter;
  let workload = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-pydiff-");
    ptop = setcapPtop(dir);
    // pyenv's 3.12 keeps its symbol table (Debian's python3 is stripped: its native frames are
    // module+offset, whose run-to-run spread would dominate the noise floor), else any 3.8+
    const all = findInterpreters(dir);
    py = all.find((p) => p.version.startsWith("3.12.")) ?? all[0]!;
    // The interpreter under a name of this run's own: ptop matches workloads by name machine-wide,
    // and a parallel run of this test (ptop-python.test.ts's names were pyw-<version> too)
    // was captured beside ours, half of v2's samples coming from another process (a comm is at
    // most 15 characters: "pydiff-" and a pid fit).
    workload = `pydiff-${process.pid}`;
    symlinkSync(py.exe, join(dir, workload));
  }, 120_000);
  afterAll(() => cleanup(dir), 120_000);

  // A Python function is never a stack's leaf (the interpreter's C code is): its cost is its
  // inclusive count, which witness tests beside native self counts (the primary Holm family).
  // apply_discounts is a fifth of handle() in v1; 30% slower, its share of the cpu axis goes from
  // 0.20 to 0.26/1.06 = 0.245 (+22.6%: 20,000 of handle()'s 100,000 loop steps in v1, 26,000 of
  // 106,000 in v2) while the three other steps lose 6% of share. Fourteen CI runs measured +18.3%
  // … +24.8%.
  diffTests({
    dir: () => dir,
    ptop: () => ptop,
    workload: () => workload,
    command: (version) => [...py.env, join(dir, workload), copyWorkload(dir, "py_svc.py"), version],
    startMs: 1500,
    cause: "apply_discounts",
    siblings: ["parse_order", "compute_tax", "format_receipt"],
    trueChange: 26 / 106 / (20 / 100) - 1,
    pushed: "pysvc",
    screenshot: "python-diff-capture.png",
  });
});
