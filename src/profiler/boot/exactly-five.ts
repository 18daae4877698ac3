// Boot check: the bounding set holds the five and nothing else. A capability beyond the five in
// the bounding set is one a flaw in ptop (or any file-capability binary in the container) could
// gain; a bounding set holding every capability — all the kernel knows, or all that the host's
// init (PID 1, visible with the host PID namespace the Profiler runs in) holds — is how a
// `--privileged` container (Kubernetes `privileged: true`) looks from inside, and it is named so. An operator who cannot drop a
// capability (a platform that forces one in) names each accepted extra in
// RUNNER_ALLOW_EXTRA_CAPABILITIES: the boot then warns instead of refusing.

import { readFileSync } from "node:fs";
import { bitsToNames, CAP_NAMES, REQUIRED_CAPS, REQUIRED_MASK } from "./capability-names.ts";
import { deployFix, fail, pass, warn, type Finding } from "./finding.ts";

export const EXTRA_CAPS_OVERRIDE = "RUNNER_ALLOW_EXTRA_CAPABILITIES";

const FIVE_SHORT = REQUIRED_CAPS.map((c) => c.short);
const FIX = deployFix({
  docker: `--cap-drop ALL then only --cap-add ${FIVE_SHORT.join(" --cap-add ")}; never --privileged (compose: cap_drop: [ALL], cap_add: [${FIVE_SHORT.join(", ")}], no privileged: true)`,
  kubernetes: `securityContext.capabilities: {drop: [ALL], add: [${FIVE_SHORT.join(", ")}]} and no privileged: true`,
  systemd: `CapabilityBoundingSet=${REQUIRED_CAPS.map((c) => c.name).join(" ")}`,
});
const COST = "needless privilege: any file-capability program in the container, or a flaw in ptop, could gain these capabilities";

/** The highest capability number this kernel knows (/proc/sys/kernel/cap_last_cap). */
export function readCapLastCap(): number | undefined {
  try {
    const n = Number(readFileSync("/proc/sys/kernel/cap_last_cap", "utf8").trim());
    return Number.isInteger(n) && n > 0 && n < 64 ? n : undefined;
  } catch {
    return undefined;
  }
}

/** Parses the override: capability names (CAP_NET_ADMIN or NET_ADMIN, any case), comma separated, or "ALL". */
export function parseExtraCapsOverride(value: string): { mask: bigint; all: boolean } | { error: string } {
  const items = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) return { error: `${EXTRA_CAPS_OVERRIDE} is set but names no capability` };
  let mask = 0n;
  for (const item of items) {
    const upper = item.toUpperCase();
    if (upper === "ALL") return { mask: ~0n, all: true };
    const name = upper.startsWith("CAP_") ? upper : `CAP_${upper}`;
    const bit = CAP_NAMES.indexOf(name);
    if (bit < 0) return { error: `${EXTRA_CAPS_OVERRIDE} names "${item}", which is not a Linux capability` };
    mask |= 1n << BigInt(bit);
  }
  return { mask, all: false };
}

/** CapBnd of PID 1 (the host's init under --pid host / hostPID), when readable. */
export function readInitBoundingSet(): bigint | undefined {
  try {
    const m = /^CapBnd:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/1/status", "utf8"));
    return m ? BigInt(`0x${m[1]}`) : undefined;
  } catch {
    return undefined;
  }
}

export function checkExactlyFive(capBnd: bigint, override: string | undefined, lastCap = readCapLastCap(), initBnd = readInitBoundingSet()): Finding[] {
  const extra = capBnd & ~REQUIRED_MASK;
  if (extra === 0n) return [pass("bounding-set", "exactly five", `the bounding set holds exactly the five (${REQUIRED_CAPS.map((c) => c.name).join(", ")})`)];
  const names = bitsToNames(extra);
  const everyKnown = lastCap !== undefined && capBnd === (1n << BigInt(lastCap + 1)) - 1n;
  const allOfInit = initBnd !== undefined && (initBnd & ~REQUIRED_MASK) !== 0n && (initBnd & ~capBnd) === 0n;
  const full = everyKnown || allOfInit;
  const what = full
    ? `the bounding set holds every capability ${everyKnown ? `the kernel knows (up to ${CAP_NAMES[lastCap!] ?? `capability ${lastCap}`})` : "that PID 1 holds"}, ${names.length} beyond the five: this is a privileged container (--privileged, or privileged: true in Kubernetes), which the Profiler must never run as`
    : `the bounding set holds ${names.length} capabilit${names.length === 1 ? "y" : "ies"} beyond the five: ${names.join(", ")}`;

  if (override !== undefined && override !== "") {
    const parsed = parseExtraCapsOverride(override);
    if ("error" in parsed) return [fail("env", EXTRA_CAPS_OVERRIDE, parsed.error, `name the accepted extras, e.g. ${EXTRA_CAPS_OVERRIDE}=CAP_NET_ADMIN, or unset it`, COST)];
    const unaccepted = extra & ~parsed.mask;
    if (unaccepted === 0n) {
      return [warn("bounding-set", EXTRA_CAPS_OVERRIDE, `${what}; accepted by ${EXTRA_CAPS_OVERRIDE}=${override}`, FIX, COST)];
    }
    const left = bitsToNames(unaccepted);
    return [fail("bounding-set", left.join(","), `${what}; ${EXTRA_CAPS_OVERRIDE} does not accept ${left.join(", ")}`, FIX, COST)];
  }
  return [fail("bounding-set", full ? "--privileged" : names.join(","), `${what}. Exactly five are allowed (override: ${EXTRA_CAPS_OVERRIDE} naming each extra)`, FIX, COST)];
}
