// Runs `runner agent …` as users do: the compiled dist/runner when it is built (runnerCommand),
// with a clean environment holding only what the test passes (no connector configured by
// accident from the developer's shell).
import { runnerCommand } from "./runner-bin.ts";

export interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runnerAgent(args: string[], env: Record<string, string | undefined>): Promise<AgentRun> {
  const clean: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", RUNNER_LOG_LEVEL: "error" };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  const p = Bun.spawn([...runnerCommand(), "agent", ...args], { env: clean, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

/** `runner agent health --json` for the connectors configured in env: its rows and exit code. */
export interface HealthRow {
  connector: string;
  status: string;
  detail: string;
  missing?: string[];
  fix?: string;
}

export async function agentHealth(env: Record<string, string | undefined>): Promise<{ code: number; rows: HealthRow[]; of(connector: string): HealthRow; stderr: string }> {
  const r = await runnerAgent(["health", "--json"], env);
  const rows: HealthRow[] = JSON.parse(r.stdout);
  const of = (connector: string) => {
    const row = rows.find((x) => x.connector === connector);
    if (!row) throw new Error(`no health row for ${connector}`);
    return row;
  };
  return { code: r.code, rows, of, stderr: r.stderr };
}

/** The one-line failure `runner agent run` prints: "runner agent: <code>: <message>". */
export function agentFailure(r: AgentRun): { code: string; message: string } {
  const m = /runner agent: ([a-z_]+): (.*)/.exec(r.stderr);
  if (!m) throw new Error(`no agent failure line in stderr (exit ${r.code}): ${r.stderr.slice(0, 500)}`);
  return { code: m[1]!, message: m[2]! };
}
