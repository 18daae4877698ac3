// TLS trust for the enrolment and tunnel addresses: the system store plus RUNNER_CA_FILE.
// Passing `ca` alone would replace the system roots, so both are given together.
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";

export function trustedCertificates(caFile?: string): string[] | undefined {
  if (!caFile) return undefined;
  return [...rootCertificates, readFileSync(caFile, "utf8")];
}
