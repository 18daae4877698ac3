// Builds the demo's sample service at a given version (src/demo/workload/shop.c, embedded).
import { $ } from "bun";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import shopSource from "./workload/shop.c" with { type: "text" };

export const DEMO_WORKLOAD = "shop";
export const REGRESSED_FUNCTION = "apply_discounts";

/** Compiles shop at `version` (1, or 2 with the regression) into dir/v<version>/shop. */
export async function buildShop(dir: string, version: 1 | 2): Promise<string> {
  const out = join(dir, `v${version}`);
  mkdirSync(out, { recursive: true });
  chmodSync(out, 0o755);
  const src = join(out, "shop.c");
  writeFileSync(src, shopSource);
  const bin = join(out, DEMO_WORKLOAD);
  const cc = Bun.which("clang") ? "clang" : "cc";
  // Without frame pointers, like the distribution and release builds users run: ptop unwinds
  // from the CFI (.eh_frame), so the diff still names apply_discounts with its callers.
  await $`${cc} -O1 -fomit-frame-pointer -fno-inline -pthread -DSHOP_VERSION=${version} ${src} -o ${bin}`.quiet();
  chmodSync(bin, 0o755);
  return bin;
}
