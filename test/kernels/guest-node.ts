// Node.js in the kernel matrix's guests: Debian bookworm's own `nodejs` (Node 18, V8 10.2) for the
// guest's architecture, fetched as fetch.ts fetches python3.11 (`apt-get download`, `dpkg-deb`
// unpack into the cache, nothing installed) and merged into the initramfs root; and the `node`
// scenario: node_shop_svc.js (test/live/ptop-node.test.ts's service) as nobody, no flag, under load
// from inside the guest, its JavaScript frames read by ptop's V8 walker on that kernel.
import { expect } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CACHE_DIR, type GuestArch } from "./matrix.ts";
import { unpackDebianPackage } from "../helpers/debian-packages.ts";
import { nodeShopApplyAt, nodeShopShares } from "../live/ptop-checks.ts";
import { framesById } from "../live/ptop-harness.ts";
import { ptopRun, file, okAndDropped, type GuestExtra, type Scenario } from "./scenarios.ts";

const WORKLOADS = resolve(import.meta.dir, "../fixtures/workloads");

/** Debian's node: a small executable linking libnode.so.108 (V8 and its v8dbg_ metadata) and the
 *  libraries that needs (libc6 and zlib1g as python3.11's, fetch.ts: the same trees). */
const NODE_PACKAGES = ["nodejs", "libnode108", "libicu72", "libuv1", "libc-ares2", "libbrotli1", "libnghttp2-14", "libssl3", "libstdc++6", "libgcc-s1", "libc6", "zlib1g"];
/** Debian's "externalized builtins": libnode reads them at start-up from /usr/share/nodejs (paths
 *  compiled in; the archive leaves usr/share out of package trees, so they come as files). */
const NODE_BUILTINS = ["node-acorn", "node-cjs-module-lexer", "node-undici"];

/** Every file under dir, as archive files at `under/` + its path there (TypeScript declarations left out). */
function filesUnder(dir: string, under: string): { path: string; src: string }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((rel) => !rel.split("/").includes("@types") && statSync(join(dir, rel)).isFile())
    .sort()
    .map((rel) => ({ path: `${under}/${rel}`, src: join(dir, rel) }));
}

/** What the node scenario adds to arch's archive: the package trees, each unpacked once into the
 *  cache, the builtins and the service's script. */
export function nodeExtra(arch: GuestArch): GuestExtra {
  const trees = NODE_PACKAGES.map((p) => {
    const dir = join(CACHE_DIR, `${p}-${arch}`);
    // nodejs/bookworm: Debian's, where the host's index prefers NodeSource's (this machine's amd64)
    unpackDebianPackage(`${p}:${arch}${p === "nodejs" ? "/bookworm" : ""}`, dir, []);
    return dir;
  });
  const builtins = NODE_BUILTINS.flatMap((p) => {
    const dir = join(CACHE_DIR, p);
    unpackDebianPackage(p, dir, []); // Architecture: all
    return filesUnder(join(dir, "usr/share/nodejs"), "usr/share/nodejs");
  });
  return { trees, files: [...builtins, { path: "opt/node_shop_svc.js", src: join(WORKLOADS, "node_shop_svc.js") }] };
}

/** The load: a keep-alive client with two requests always in flight (as test/live's), started with
 *  the service and retrying until it listens; a dot per response into the file argv[1]. */
const LOAD = `const http = require("http"), fs = require("fs");
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 }), out = fs.openSync(process.argv[1], "a");
const get = () => http.get({ host: "127.0.0.1", port: 8080, agent }, (r) => r.resume().on("end", () => { fs.writeSync(out, "."); get(); }))
  .on("error", () => setTimeout(get, 200));
get(); get();`;

/** Shell body: the service as nobody on 127.0.0.1 (lo brought up: no other network), named hotloop
 *  (process.title: the workload ptop matches), with three times the live test's loop work (the
 *  emulated CPU runs node's own HTTP code slowly enough that at 1x its requests' share of the
 *  service was 18-22%, the 90% bar missed for the workload's sake), and the load; once it has
 *  answered ten requests (node's own code compiled: at two, V8's compilers still took 16% of one
 *  run's samples), one 3-s capture: ptop's sample budget, which a TCG guest's slow CPU
 *  exceeds (ptop took 20-24% of a guest core where it takes 0.35% of the host's), thins the
 *  samples from its first check, 3 s into the window, to one in 99, so a longer window adds a few
 *  heavily weighted samples, not precision. Then SIGTERM: the service prints its time spans. */
const GUEST = `
      LOAD='${LOAD}'
      ip link set lo up
      mkdir -p $W/node && chmod 755 $W/node && cp /opt/node_shop_svc.js $W/node/ && chmod 644 $W/node/node_shop_svc.js
      $NOBODY /usr/bin/node $W/node/node_shop_svc.js 8080 hotloop 3000000 >$O/node.out 2>&1 & H=$!; echo $H >$O/workload.pid
      /usr/bin/node -e "$LOAD" $O/responses & L=$!
      : >$O/responses; n=0; until [ "$(wc -c <$O/responses)" -ge 10 ] || [ $n -ge 1200 ]; do sleep 0.1; n=$((n + 1)); done
      ptop_run run --duration 3 --frequency 999 --probes cpu
      kill -TERM $H; wait $H; kill $L; wait $L`;

/** Wall-clock ms the service spent in each of its two functions within [from, to], by its own clock. */
function spentWithin(nodeOut: string, from: number, to: number) {
  const spans = JSON.parse(nodeOut.match(/^spans (.*)$/m)?.[1] ?? "null") as [number, number, number, number][] | null;
  if (!spans) throw new Error(`the service printed no spans on SIGTERM:\n${nodeOut.slice(-2000)}`);
  const overlap = (a: number, b: number) => Math.max(0, Math.min(b, to) - Math.max(a, from));
  let apply = 0, price = 0;
  for (const [t0, t1, t2] of spans) {
    apply += overlap(t0, t1);
    price += overlap(t1, t2);
  }
  return { requests: spans.length, apply, price };
}

/** The two functions' split of what they took together: ptop's from nodeShopShares, the clock's. */
const split = (apply: number, price: number) => ({ apply: apply / (apply + price || 1), price: price / (apply + price || 1) });

export const NODE_SCENARIO: Scenario = {
  name: "node",
  guest: GUEST,
  extra: nodeExtra,
  checks: [
    okAndDropped("run"),
    {
      // What the walk on arm64 must give whatever the host's load: the service's functions named at
      // their lines, and most samples with its own JS frames (83.8-97.6% over seven runs; a walk
      // that fails on arm64 gives none). Issue 33's figures are printed, not asserted here: its
      // 90% bar and the two functions' split against the service's own clock (0.7-3.0 points off
      // in four runs at load average 5-6) fail when the host starves the emulated CPU: at load 8.7,
      // 130 samples a second, the clock (a wall clock) charged whole host preemptions to whichever
      // function ran and the split came 17 points off. test/live asserts both on the host.
      name: "Debian's node (Node 18) HTTP service as nobody, no flag, under load: its functions named at their lines from V8's frames, >= 75% of its samples with its own JS frames",
      check: (s) => {
        const run = ptopRun(s, "run");
        expect(run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []))).toEqual([Number(file(s, "workload.pid"))]);
        const header = run.records.find((r) => r.type === "header");
        const summary = run.records.at(-1);
        if (header?.type !== "header" || summary?.type !== "summary") throw new Error("the capture has no header or no summary");
        const spent = spentWithin(file(s, "node.out"), header.started_at_ms, header.started_at_ms + summary.measured_sec * 1000);
        const seen = nodeShopShares(run.records);
        const round = (_: string, v: unknown) => (typeof v === "number" ? Math.round(v * 1000) / 1000 : v);
        console.log(`  node: ${JSON.stringify(seen)}; split of the two functions: ptop ${JSON.stringify(split(seen.apply, seen.price), round)}, ` +
          `the service's clock ${JSON.stringify({ ...spent, ...split(spent.apply, spent.price) }, round)}`);
        const named = [...framesById(run.records).values()].filter((f) => f.kind === "jit" && f.module?.endsWith("/node_shop_svc.js"));
        expect({
          applyAt: seen.applyAt,
          priceCart: named.some((f) => f.function === "priceCart"),
          handler: named.some((f) => f.function.startsWith("(anonymous node_shop_svc.js:")),
          enoughSamples: seen.total >= 300,
          mostOwn: seen.own >= 0.75,
        }).toEqual({ applyAt: nodeShopApplyAt(), priceCart: true, handler: true, enoughSamples: true, mostOwn: true });
      },
    },
  ],
};
