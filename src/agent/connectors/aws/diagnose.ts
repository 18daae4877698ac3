import { AgentError } from "../../errors.ts";
import { READ_ONLY_POLICY_FILE, statementFor } from "./policy.ts";

// Turns an AWS SDK failure into a diagnosis that names the fix. The SDK error's own message is
// not repeated verbatim when it could carry request details; the CLI scrubs credentials anyway.

const ACCESS_DENIED = new Set([
  "AccessDenied",
  "AccessDeniedException",
  "UnauthorizedOperation",
  "AuthorizationError",
  "AuthorizationErrorException",
  "AccessDeniedFault",
  "UnauthorizedException",
]);

const BAD_CREDENTIAL = new Set([
  "InvalidClientTokenId",
  "UnrecognizedClientException",
  "SignatureDoesNotMatch",
  "ExpiredToken",
  "ExpiredTokenException",
  "InvalidSignatureException",
  "AuthFailure",
]);

export function awsErrorName(e: unknown): string {
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return err.name ?? err.Code ?? "Error";
}

export function diagnoseAwsError(action: string, e: unknown): AgentError {
  if (e instanceof AgentError) return e;
  const name = awsErrorName(e);
  if (ACCESS_DENIED.has(name)) return accessDenied(action, name);
  if (BAD_CREDENTIAL.has(name)) {
    return new AgentError(
      "permission",
      `${action} was refused with ${name}: AWS does not accept the credential itself (wrong, expired or revoked key); check RUNNER_AWS_CRED_MODE and the key`,
      { fix: "check RUNNER_AWS_CRED_MODE and the key (wrong, expired or revoked)" },
    );
  }
  const message = e instanceof Error ? e.message : String(e);
  return new AgentError("upstream", `${action} failed: ${name}: ${message}`);
}

function accessDenied(action: string, name: string): AgentError {
  const statement = statementFor(action);
  if (action.startsWith("quicksight:")) {
    // A policy applied before September 2026 has no BI statement: every BI read fails this way.
    // The credential is fine; rotating it changes nothing.
    return new AgentError(
      "permission",
      `${action} was refused with ${name}: the policy attached to this credential lacks the BI statement "BiQuickSightSomenteLeitura" (quicksight:Describe*, quicksight:List*, quicksight:Search*); policies applied before September 2026 do not have it. Fix: add the BI statement; do not rotate the credential (the statement is in ${READ_ONLY_POLICY_FILE}).`,
      { missing: [action], fix: `add the BI statement from ${READ_ONLY_POLICY_FILE}; do not rotate the credential` },
    );
  }
  if (statement) {
    return new AgentError(
      "permission",
      `${action} was refused with ${name}: the credential's policy lacks ${action}, granted by statement "${statement.Sid}" of ${READ_ONLY_POLICY_FILE}; add that statement (or drop the capability)`,
      { missing: [action], fix: `add statement "${statement.Sid}" of ${READ_ONLY_POLICY_FILE} to the credential's policy` },
    );
  }
  return new AgentError("permission", `${action} was refused with ${name}`);
}
