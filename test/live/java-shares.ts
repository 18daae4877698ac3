// What a cpu capture of the java-shop service (test/fixtures/workloads/java-shop) shows of its Java
// frames, and the bar issue 32 sets for it: shared by test/live/ptop-java.test.ts (every JDK of
// this machine) and the kernel matrix's java scenario (Debian's arm64 JDK in a guest).
import type { StreamRecord } from "../../src/protocol/profile-stream.ts";
import { framesById, stacksOf } from "./ptop-harness.ts";

export interface JavaShares {
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

export function javaShares(records: StreamRecord[]): JavaShares {
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

/** What the service is built to show, every criterion of javaSharesHold holding. */
export const JAVA_SHARES_HOLD = { enoughSamples: true, ownJava: true, applyDiscounts: true, priceCart: true };

/** Issue 32's bar: ≥ 90% own Java frames, applyDiscounts 75% and priceCart 25% within 5 points,
 *  over more than minSamples samples; compared with JAVA_SHARES_HOLD so a failure shows them all. */
export function javaSharesHold(s: JavaShares, minSamples: number) {
  return {
    enoughSamples: s.samples > minSamples,
    ownJava: s.ownJava >= 0.9,
    applyDiscounts: Math.abs(s.applyDiscounts - 0.75) <= 0.05,
    priceCart: Math.abs(s.priceCart - 0.25) <= 0.05,
  };
}
