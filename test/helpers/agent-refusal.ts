// The AgentError an operation was refused with; fails the test when it was not refused.
import { AgentError } from "../../src/agent/errors.ts";

export async function refusal(p: Promise<unknown>): Promise<AgentError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AgentError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}
