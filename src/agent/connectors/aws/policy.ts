import readOnlyPolicy from "../../../../policies/aws/runner-read-only.json";

// The read-only policy file is the single source of truth for which IAM actions the AWS
// connector may use; diagnostics point at the statement (Sid) that grants a refused action.

export const READ_ONLY_POLICY_FILE = "policies/aws/runner-read-only.json";

export interface PolicyStatement {
  Sid: string;
  Effect: string;
  Action: string[];
  Resource: string;
}

export const readOnlyStatements: PolicyStatement[] = readOnlyPolicy.Statement;

/** IAM action patterns: `*` matches any run of characters; names compare case-insensitively. */
export function actionMatches(pattern: string, action: string): boolean {
  const re = new RegExp(`^${pattern.split("*").map(escape).join(".*")}$`, "i");
  return re.test(action);
}

function escape(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

export function statementFor(action: string): PolicyStatement | undefined {
  return readOnlyStatements.find((s) => s.Action.some((p) => actionMatches(p, action)));
}
