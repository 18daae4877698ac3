// Per-image state keyed by exec generation (issue 35): a process that execs into an image mapped at
// the same addresses as its previous one is named right on both sides of the exec. Two non-PIE
// builds of one file (test/fixtures/workloads/exec_image.c) put their hot functions at the same
// address under different names; address randomisation is off (setarch -R), so the libraries lie
// where they lay too. Before, the unwinder and the symbolizer kept one table per address range, so
// the first image's samples were named from the second (image_two_work, all of them).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { cleanup, framesById, runPtop, setcapPtop, sharedTempDir, spawnAsNobody, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const SOURCE = join(import.meta.dir, "../fixtures/workloads/exec_image.c");

function build(dir: string, sub: string, name: string, defines: string[]): string {
  mkdirSync(join(dir, sub), { mode: 0o755 });
  const out = join(dir, sub, name);
  const r = Bun.spawnSync(["clang", "-O1", "-no-pie", "-fno-pie", "-fno-inline", ...defines, SOURCE, "-o", out], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`building ${out} failed: ${r.stderr.toString()}`);
  return out;
}

function symbolAddress(bin: string, symbol: string): string {
  const nm = Bun.spawnSync(["nm", bin], { stdout: "pipe" }).stdout.toString();
  const line = nm.split("\n").find((l) => l.endsWith(` ${symbol}`));
  if (!line) throw new Error(`${symbol} not in ${bin}`);
  return line.split(" ")[0]!;
}

describeUnless(whyNot([!live, NOT_ROOT]))("ptop: an exec into an image at the same addresses (live)", () => {
  let dir = "";
  let ptop = "";
  let one = "";
  let two = "";
  const name = `xim${process.pid}`.slice(0, 15);
  beforeAll(() => {
    dir = sharedTempDir("ptop-exec-image-");
    ptop = setcapPtop(dir);
    one = build(dir, "one", name, ["-DIMAGE_ONE"]);
    two = build(dir, "two", name, []);
  }, 300_000);
  afterAll(() => cleanup(dir));

  test("each image's samples carry its own names, on both sides of the exec", async () => {
    // The premise: the two hot functions lie at one address.
    expect(symbolAddress(one, "image_one_work")).toBe(symbolAddress(two, "image_two_work"));
    const go = join(dir, "go");
    const arch = Bun.spawnSync(["uname", "-m"], { stdout: "pipe" }).stdout.toString().trim();
    const worker = spawnAsNobody(["setarch", arch, "-R", one, go, two]);
    try {
      await Bun.sleep(300);
      const targets = writeTargets(dir, { targets: [{ workload: name }] });
      // The window opens (header), then the first image runs 1 s more and execs the second.
      const run = await runPtop(ptop, ["--targets", targets, "--workload", name, "--duration", "3", "--warmup", "0", "--probes", "cpu"],
        { onHeader: () => writeFileSync(go, "") });
      expect({ exit: run.exitCode, stderr: run.exitCode ? run.stderr : "" }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
      const frames = framesById(run.records);
      const byLeaf = new Map<string, number>();
      let total = 0;
      for (const s of stacksOf(run.records, "cpu")) {
        total += s.value;
        const names = s.frames.map((id) => frames.get(id)!);
        for (const f of names)
          if (f.function === "image_one_work" || f.function === "image_two_work") {
            const key = `${f.function} ${f.module}`;
            byLeaf.set(key, (byLeaf.get(key) ?? 0) + s.value);
            break;
          }
        // Never a user stack cut to nothing above kernel frames (a sample inside execve is marked).
        const user = names.filter((f) => f.kind !== "kernel");
        const cut = user.length === 1 && user[0]!.function === "[truncated]";
        expect({ cut, stack: cut ? names.map((f) => f.function) : [] }).toEqual({ cut: false, stack: [] });
      }
      const oneSamples = byLeaf.get(`image_one_work ${one}`) ?? 0;
      const twoSamples = byLeaf.get(`image_two_work ${two}`) ?? 0;
      console.log(JSON.stringify({ total, byLeaf: Object.fromEntries(byLeaf) }));
      // Each image's function from its own file, and neither name from the other file.
      expect([...byLeaf.keys()].sort()).toEqual([`image_one_work ${one}`, `image_two_work ${two}`].sort());
      expect(oneSamples).toBeGreaterThan(0.1 * total);
      expect(twoSamples).toBeGreaterThan(0.1 * total);
    } finally {
      worker.kill("SIGTERM");
      await worker.exited;
    }
  }, 120_000);
});
