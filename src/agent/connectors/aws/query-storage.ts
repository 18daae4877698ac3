import { AgentError } from "../../errors.ts";

// Athena writes results to an S3 bucket and reads table definitions from the Glue catalog. Those
// permissions (s3:GetObject, s3:PutObject, s3:ListBucket on the results bucket; glue:GetTable,
// glue:GetDatabase, glue:GetPartitions) are deliberately absent from the read-only policy because
// the resource ARNs belong to the user. When a query fails for lack of them, say exactly that.

const STORAGE = /\b(s3|bucket|output location|outputlocation|glue|gettable|getdatabase|getpartitions|catalog)\b/i;
const DENIED = /(access denied|accessdenied|not authorized|unable to verify|permission|forbidden|insufficient)/i;

export function storageFailure(reason: string | undefined, where: string): AgentError | undefined {
  if (!reason || !STORAGE.test(reason) || !DENIED.test(reason)) return undefined;
  return new AgentError(
    "permission",
    `${where} failed because the credential cannot use the query results bucket or the Glue catalog. ` +
      "Grant s3:GetObject, s3:PutObject and s3:ListBucket on the results bucket, and glue:GetTable, glue:GetDatabase " +
      "and glue:GetPartitions on the catalog, in a statement scoped to your bucket and catalog ARNs; they are not in the " +
      `read-only policy because those resources are yours. Athena said: ${reason}`,
  );
}
