// Cause before consequence. A function that changed moves more than its own counts: every caller's
// inclusive count carries its change, and so does every native leaf it runs in (an interpreter's
// _PyEval_EvalFrameDefault, a memcpy). Those are real changes of those counts, but not changes of
// those functions: counting them, a diff with one slower function reads "5 functions changed".
//
// Each sample has one owner (aggregate.ts: the deepest interpreted frame, else the leaf), so own
// counts partition the axis and a flagged own count is a change of that function's own work: a
// cause. Any other flagged count (an inclusive aggregate, a native leaf shared by interpreted
// callers) is tested again without the samples the causes own. If what is left still clears its
// bar, that function changed too (a caller whose many small callees each grew a little): a cause.
// If not, it is secondary: explained by the causes its samples ran under or over. Of several
// aggregate-only causes on one path, the deepest stands and its callers are tested without it.

import { functionIdentity } from "../identity.ts";
import { ownerFrame } from "../aggregate.ts";
import { rateTest } from "../stats/rate-test.ts";
import type { AxisMatrix, Hypothesis, TestSet } from "./axis-matrix.ts";
import type { NormalisationFit } from "./normalisation-fit.ts";
import type { HolmOutcome } from "./holm-families.ts";

export interface Roles {
  /** Per function index: "cause" or "secondary" when one of its tests cleared the noise floor. */
  role: Map<number, "cause" | "secondary">;
  /** Per secondary function: the causes its change is explained by. */
  explainedBy: Map<number, number[]>;
}

interface Walk {
  /** Owners whose samples are left out. */
  owners: Set<number>;
  /** Functions whose samples are left out of the counts of functions above them in a stack. */
  below: Set<number>;
  /** Functions whose samples are left out of the counts of functions below them in a stack. */
  above?: Set<number>;
}

/** Per capture of the axis: each frame's function and each stack's owning function. */
interface Prepared {
  fn: Int32Array;
  owner: Int32Array;
}

/** Per matrix: assignRoles runs once per round of verdict-run.ts on the same matrix, whose stacks do not change. */
const preparedOf = new WeakMap<AxisMatrix, Prepared[]>();

function prepare(m: AxisMatrix): Prepared[] {
  const cached = preparedOf.get(m);
  if (cached) return cached;
  const index = new Map(m.names.map((n, i) => [n, i]));
  const prepared = [...m.before, ...m.after].map((c) => {
    const p = c.axes[m.axis]!;
    const fn = Int32Array.from(p.frames, (f) => index.get(functionIdentity(f))!);
    const owner = Int32Array.from(p.stacks, (s) => (s.frames.length ? fn[ownerFrame(p, s.frames)]! : -1));
    return { fn, owner };
  });
  preparedOf.set(m, prepared);
  return prepared;
}

/** Where a test's function counts in a stack (−1: not in it): the owner frame for an own count, the leaf for another self count, else its outermost frame. */
function position(m: AxisMatrix, h: Hypothesis, fn: Int32Array, fr: number[], owner: number): number {
  if (h.own) {
    if (owner !== h.fn) return -1;
    for (let k = fr.length - 1; k >= 0; k--) if (fn[fr[k]!] === h.fn) return k;
    return -1;
  }
  if (h.kind === "self") return fn[fr[fr.length - 1]!] === h.fn ? fr.length - 1 : -1;
  return fr.findIndex((f) => fn[f] === h.fn);
}

/** The count of one test recomputed without the samples `walk` leaves out, per capture; and the causes met. */
function residual(m: AxisMatrix, prepared: Prepared[], h: Hypothesis, walk: Walk): { y: Float64Array; met: Set<number> } {
  const y = new Float64Array(prepared.length);
  const met = new Set<number>();
  [...m.before, ...m.after].forEach((c, col) => {
    const { fn, owner } = prepared[col]!;
    c.axes[m.axis]!.stacks.forEach((s, i) => {
      const fr = s.frames;
      if (fr.length === 0 || s.value <= 0) return;
      const at = position(m, h, fn, fr, owner[i]!);
      if (at < 0) return;
      if (walk.owners.has(owner[i]!) && owner[i] !== h.fn) return void met.add(owner[i]!);
      for (let k = 0; k < fr.length; k++) {
        const g = fn[fr[k]!]!;
        if (g !== h.fn && ((k > at && walk.below.has(g)) || (k < at && walk.above?.has(g)))) return void met.add(g);
      }
      y[col]! += s.value / m.quanta[col]!;
    });
  });
  return { y, met };
}

/**
 * Native functions met only beneath an interpreted frame: the interpreter's own machinery
 * (_PyEval_EvalFrameDefault, long_and, PyLong_FromLong …) and the C code Python calls. What they do
 * is what the Python code above them asks for, so when a Python function is a cause, their moves
 * are its consequence — even when a Python helper shared by every step (a `work()` loop) owns
 * their samples and hides which step asked.
 */
function interpreterMachinery(m: AxisMatrix, prepared: Prepared[]): Set<number> {
  const inside = new Set<number>();
  const outside = new Set<number>();
  [...m.before, ...m.after].forEach((c, col) => {
    const { fn } = prepared[col]!;
    const p = c.axes[m.axis]!;
    for (const s of p.stacks) {
      const fr = s.frames;
      let top = fr.findIndex((f) => m.interpreted[fn[f]!]);
      if (top < 0) top = fr.length;
      for (let k = 0; k < fr.length; k++) (k > top ? inside : outside).add(fn[fr[k]!]!);
    }
  });
  return new Set([...inside].filter((f) => !outside.has(f) && !m.interpreted[f]));
}

/** Does the residual still clear the test's own bar (first-step level, minimum effect)? */
function stands(y: Float64Array, fit: NormalisationFit, key: number, level: number, minEffect: number, direction: number): boolean {
  const t = fit.tests[key]!;
  const r = rateTest(y, fit.groups, fit.alpha0, t.phi, t.df);
  return r.p <= level && Math.abs(Math.expm1(r.logRatio)) >= minEffect && Math.sign(r.logRatio) === direction;
}

/** Roles of the functions whose tests cleared the noise floor on one axis. */
export function assignRoles(m: AxisMatrix, tests: TestSet, fit: NormalisationFit, run: HolmOutcome, minEffect: number): Roles {
  const role = new Map<number, "cause" | "secondary">();
  const explainedBy = new Map<number, number[]>();
  const cleared = tests.hyps.filter((h) => run.flagged[h.key]);
  if (cleared.length === 0) return { role, explainedBy };
  const prepared = prepare(m);
  const owners = new Set(cleared.filter((h) => h.own).map((h) => h.fn));
  for (const f of owners) role.set(f, "cause");
  // Aggregate-only candidates, smallest first: a callee is smaller than its callers. The
  // interpreter's machinery waits until the Python code above it has been judged.
  const mass = (h: Hypothesis) => h.y.reduce((a, b) => a + b, 0);
  const machinery = interpreterMachinery(m, prepared);
  const rest = cleared.filter((h) => !owners.has(h.fn) && !machinery.has(h.fn)).sort((a, b) => mass(a) - mass(b));
  const below = new Set<number>();
  const judge = (h: Hypothesis) => {
    if (role.get(h.fn) === "cause") return;
    const { y, met } = residual(m, prepared, h, { owners, below });
    const dir = Math.sign(fit.tests[h.key]!.r.logRatio);
    if (stands(y, fit, h.key, run.level[h.key]!, minEffect, dir)) {
      role.set(h.fn, "cause");
      explainedBy.delete(h.fn);
      below.add(h.fn);
    } else if (!role.has(h.fn)) {
      role.set(h.fn, "secondary");
      explainedBy.set(h.fn, [...met]);
    }
  };
  rest.forEach(judge);
  const pythonCauses = [...role].filter(([f, r]) => r === "cause" && m.interpreted[f]).map(([f]) => f);
  for (const h of cleared.filter((x) => machinery.has(x.fn) && !owners.has(x.fn)).sort((a, b) => mass(a) - mass(b))) {
    if (pythonCauses.length === 0) judge(h);
    else if (!role.has(h.fn)) {
      role.set(h.fn, "secondary");
      explainedBy.set(h.fn, pythonCauses);
    }
  }
  foldUnderCallers(m, prepared, tests, fit, run, minEffect, cleared, role, explainedBy);
  return { role, explainedBy };
}

/** The own-cost causes a cleared caller g explains: same direction, and unchanged outside g. */
function foldable(m: AxisMatrix, prepared: Prepared[], tests: TestSet, fit: NormalisationFit, run: HolmOutcome, minEffect: number, cleared: Hypothesis[], role: Roles["role"], g: Hypothesis): number[] {
  const dir = Math.sign(fit.tests[g.key]!.r.logRatio);
  const folded: number[] = [];
  for (const h of cleared) {
    if (h.fn === g.fn || !h.own || role.get(h.fn) !== "cause") continue;
    if (Math.sign(fit.tests[h.key]!.r.logRatio) !== dir) continue;
    const { y, met } = residual(m, prepared, h, { owners: new Set(), below: new Set(), above: new Set([g.fn]) });
    if (!met.has(g.fn) || y.every((v) => v === 0) || stands(y, fit, h.key, run.level[h.key]!, minEffect, dir)) continue;
    folded.push(h.fn);
  }
  return folded;
}

/**
 * Fewest causes: a function called from several places whose own count changed only under one
 * caller (what it owns outside that caller did not move) changed *because of* that caller — a
 * new waiter calling the shared lock helper, a caller calling a shared helper more. The cleared
 * caller that explains the most such own-cost causes (the smaller caller on a tie) becomes the
 * cause and they secondary, until no caller explains one. A callee only ever called from one
 * caller is never folded (nothing outside to compare), so a slower function stays the cause
 * rather than its caller, and two siblings that changed stay two causes.
 */
function foldUnderCallers(m: AxisMatrix, prepared: Prepared[], tests: TestSet, fit: NormalisationFit, run: HolmOutcome, minEffect: number, cleared: Hypothesis[], role: Roles["role"], explainedBy: Roles["explainedBy"]): void {
  const mass = (h: Hypothesis) => h.y.reduce((a, b) => a + b, 0);
  const callers = cleared.filter((h) => h.kind === "inclusive" && !h.own);
  for (let round = 0; round < callers.length; round++) {
    let best: { g: Hypothesis; folded: number[] } | null = null;
    for (const g of callers) {
      if (role.get(g.fn) === "cause" && cleared.some((h) => h.fn === g.fn && h.own)) continue;
      const folded = foldable(m, prepared, tests, fit, run, minEffect, cleared, role, g);
      if (folded.length >= 1 && (!best || folded.length > best.folded.length || (folded.length === best.folded.length && mass(g) < mass(best.g)))) best = { g, folded };
    }
    if (!best) return;
    const { g, folded } = best;
    role.set(g.fn, "cause");
    explainedBy.delete(g.fn);
    for (const f of folded) {
      role.set(f, "secondary");
      explainedBy.set(f, [g.fn]);
    }
    for (const [f, by] of explainedBy) if (by.some((x) => folded.includes(x))) explainedBy.set(f, [...new Set(by.map((x) => (folded.includes(x) ? g.fn : x)))]);
  }
}
