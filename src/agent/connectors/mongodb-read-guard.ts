import { AgentError } from "../errors.ts";

// The MongoDB connector sends database commands through one function, and that function accepts
// only the read commands below. An aggregation is a read unless a stage writes: $out and $merge are
// refused wherever they appear (also inside $facet, $lookup or $unionWith sub-pipelines).

export const READ_COMMANDS = ["find", "aggregate", "count", "distinct", "listCollections", "listIndexes", "listDatabases", "dbStats", "connectionStatus", "ping"] as const;
export type ReadCommand = (typeof READ_COMMANDS)[number];

const WRITING_STAGES = ["$out", "$merge"];

export function assertReadCommand(command: Record<string, unknown>): ReadCommand {
  const name = Object.keys(command)[0];
  if (!name || !(READ_COMMANDS as readonly string[]).includes(name)) {
    throw new AgentError("invalid_query", `MongoDB command "${name ?? ""}" is not a read command; only ${READ_COMMANDS.join(", ")} are sent`);
  }
  if (name === "aggregate") {
    const stage = writingStage(command.pipeline);
    if (stage) throw new AgentError("invalid_query", `MongoDB aggregation refused: stage ${stage} writes; only read stages are sent`);
  }
  return name as ReadCommand;
}

/** The first writing stage anywhere in a pipeline (keys are checked at every depth). */
function writingStage(v: unknown): string | undefined {
  if (Array.isArray(v)) {
    for (const x of v) {
      const s = writingStage(x);
      if (s) return s;
    }
    return undefined;
  }
  if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      if (WRITING_STAGES.includes(k)) return k;
      const s = writingStage(x);
      if (s) return s;
    }
  }
  return undefined;
}
