// What a read token's name and workload scope may be, for `runner admin` and Settings alike.
import { textProblem } from "../../protocol/names.ts";
import { TOKEN_NAME, TOKEN_NAME_RULE } from "./token-name.ts";

/** Why `name` is not a token name; null when it is one. */
export function checkTokenName(name: string): string | null {
  return TOKEN_NAME.test(name) ? null : `a token name is ${TOKEN_NAME_RULE}`;
}

/** Why this workload scope is refused; null when it is fine (an empty list: every workload). */
export function checkWorkloadScope(workloads: string[]): string | null {
  if (workloads.length > 100) return "a read token is scoped to at most 100 workloads";
  for (const w of workloads) {
    // The capture request's own bounds (capture-request.ts): non-empty, at most 256, no control character.
    if (w.length === 0 || w.length > 256) return "a workload is 1 to 256 characters";
    const problem = textProblem(w);
    if (problem) return `a workload ${problem}`;
  }
  return null;
}
