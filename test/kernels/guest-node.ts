// Node.js in the kernel matrix's guests: Debian bookworm's own `nodejs` (Node 18, V8 10.2) for the
// guest's architecture, fetched as fetch.ts fetches python3.11 (`apt-get download`, `dpkg-deb`
// unpack into the cache, nothing installed) and merged into the initramfs root; and the `node`
// scenario: node_shop_svc.js (test/live/ptop-node.test.ts's service) as nobody, no flag, under load
// from inside the guest, its JavaScript frames read by ptop's V8 walker on that kernel.
import { expect } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CACHE_DIR, type GuestArch } from "./matrix.ts";
import { packageTrees } from "./fetch.ts";
import { unpackDebianPackage } from "../helpers/debian-packages.ts";
import { NODE_SHOP_HOLD, nodeShopApplyAt, nodeShopHolds, nodeShopShares } from "../live/ptop-checks.ts";
import { framesById } from "../live/ptop-harness.ts";
import { BOOKWORM_BUILTINS } from "../live/fetched-nodes.ts";
import { file, okAndDropped, workloadRun, type GuestExtra, type Scenario } from "./scenarios.ts";

const WORKLOADS = resolve(import.meta.dir, "../fixtures/workloads");

/** Debian's node: a small executable linking libnode.so.108 (V8 and its v8dbg_ metadata) and the
 *  libraries that needs (libc6 and zlib1g as python3.11's, fetch.ts: the same trees). */
const NODE_PACKAGES = ["nodejs/bookworm", "libnode108", "libicu72", "libuv1", "libc-ares2", "libbrotli1", "libnghttp2-14", "libssl3", "libstdc++6", "libgcc-s1", "libc6", "zlib1g"];

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
  // nodejs/bookworm: Debian's, where the host's index prefers NodeSource's (this machine's amd64)
  const trees = packageTrees(arch, NODE_PACKAGES);
  const builtins = BOOKWORM_BUILTINS.flatMap((p) => {
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
 *  (process.title: the workload ptop matches), with six times the live test's loop work: the
 *  emulated CPU runs node's own code slowly (at 1x its HTTP code took 18-22% of the service's
 *  samples; at 3x the handler's own code outside the two functions still took 4-5% of the
 *  handler's, and each call's fixed cost weighed on the shorter priceCart, which took applyDiscounts
 *  to 72% by ptop, 74% by the service's clock), and the load. The capture waits for the JIT's
 *  steady state: 60 answered requests (at 3x, by the service's own clock each request's
 *  applyDiscounts:priceCart split settled at 74-78:26-22 from about the 40th on, while at ten
 *  requests the next 3 s ran 64:36 by ptop, 68:32 by that clock: the two functions in different
 *  tiers under the emulated CPU), at most 30 s, then V8's compiler and GC threads (every thread but
 *  the main one) near idle, 2 s at <= 20 ms CPU per half second, at most 10 s more (at two
 *  requests they took 16% of one run's samples). Then one 20-s capture at 49 Hz: ~25 requests,
 *  so that the window's two ends, each cutting a request at some phase, weigh little. Not 999 Hz:
 *  under a TCG guest's slow CPU ptop took 20-24% of a guest core at 999 Hz (0.35% of the host's),
 *  and its sample budget thinned everything from 3 s into the window to one sample in 99; at 49 Hz
 *  it stays within the budget. Then SIGTERM: the service prints its time spans. */
const GUEST = `
      LOAD='${LOAD}'
      ip link set lo up
      mkdir -p $W/node && chmod 755 $W/node && cp /opt/node_shop_svc.js $W/node/ && chmod 644 $W/node/node_shop_svc.js
      $NOBODY /usr/bin/node $W/node/node_shop_svc.js 8080 hotloop 6000000 one-loop >$O/node.out 2>&1 & H=$!; echo $H >$O/workload.pid
      /usr/bin/node -e "$LOAD" $O/responses & L=$!
      : >$O/responses; n=0; until [ "$(wc -c <$O/responses)" -ge 60 ] || [ $n -ge 300 ]; do sleep 0.1; n=$((n + 1)); done
      compilers() { for t in /proc/$H/task/*; do [ "\${t##*/}" = "$H" ] || sed 's/.*) //' $t/stat; done 2>/dev/null | awk '{ s += $12 + $13 } END { print s + 0 }'; }
      was=$(compilers); quiet=0; n=0
      while [ $quiet -lt 4 ] && [ $n -lt 20 ]; do
        sleep 0.5; now=$(compilers); n=$((n + 1))
        if [ $((now - was)) -le 2 ]; then quiet=$((quiet + 1)); else quiet=0; fi; was=$now
      done
      echo "$n $quiet $(wc -c <$O/responses)" >$O/warmup
      ptop_run run --duration 20 --frequency 49 --probes cpu
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
      // Issue 33's bars on the guest, in the JIT's steady state (GUEST): >= 90% of the service's
      // samples with its own JS frames (92.8-99.4% over nine runs), applyDiscounts 75% and priceCart
      // 25% within 5 points, the functions named at their lines; the service's own clock is printed
      // beside ptop's split. Two things kept the split from holding before: the two functions' own
      // loops could sit in different JIT tiers ("one-loop": they share one now), and a 3-s window
      // held only 3-5 requests, whose phase at its two ends moved the clock's own split from 66:34
      // to 79:21 (ptop tracked that clock within 1-5 points). A 20-s window at 49 Hz holds ~25
      // requests and stays within ptop's budget (~900 samples, none thinned).
      name: "Debian's node (Node 18) HTTP service as nobody, no flag, under load, warmed up: >= 90% of its samples with its own JS frames, applyDiscounts 75% and priceCart 25% as constructed, named at their lines from V8's frames",
      check: (s) => {
        const run = workloadRun(s, "run");
        const header = run.records.find((r) => r.type === "header");
        const summary = run.records.at(-1);
        if (header?.type !== "header" || summary?.type !== "summary") throw new Error("the capture has no header or no summary");
        const spent = spentWithin(file(s, "node.out"), header.started_at_ms, header.started_at_ms + summary.measured_sec * 1000);
        const seen = nodeShopShares(run.records);
        const round = (_: string, v: unknown) => (typeof v === "number" ? Math.round(v * 1000) / 1000 : v);
        console.log(`  node: warm-up ${file(s, "warmup").trim()} (half-seconds, quiet ones, responses); ${JSON.stringify(seen)}; split of the two functions: ptop ${JSON.stringify(split(seen.apply, seen.price), round)}, ` +
          `the service's clock ${JSON.stringify({ ...spent, ...split(spent.apply, spent.price) }, round)}`);
        const named = [...framesById(run.records).values()].filter((f) => f.kind === "jit" && f.module?.endsWith("/node_shop_svc.js"));
        const holds = nodeShopHolds(seen, 300);
        expect({
          ...holds,
          priceCart: named.some((f) => f.function === "priceCart"),
          handler: named.some((f) => f.function.startsWith("(anonymous node_shop_svc.js:")),
        }).toEqual({ ...NODE_SHOP_HOLD, applyAt: nodeShopApplyAt(), priceCart: true, handler: true });
      },
    },
  ],
};
