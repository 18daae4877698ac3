import { AgentError } from "../../errors.ts";

// An Athena query touches three things the read-only policy deliberately leaves out, because
// their resource ARNs belong to the user: the table's source data in S3 (s3:GetObject,
// s3:ListBucket), the query results bucket (s3:GetObject, s3:PutObject, s3:ListBucket) and the
// Glue catalog (glue:GetTable, glue:GetDatabase, glue:GetPartitions). When a query fails for lack
// of one of them, name the one Athena's answer points at, with the location it names, instead of
// blaming the results bucket for everything. Athena's documented answers:
//   results  "Access denied when writing output to url: s3://…", "Unable to verify/create output
//            bucket …"
//   source   "…AmazonS3Exception: Access Denied (Service: Amazon S3; Status Code: 403; …) (Path:
//            s3://…)", "Permission denied on S3 path: s3://…"
//   catalog  "… is not authorized to perform: glue:GetTable on resource: …"

const DENIED = /(access denied|accessdenied|not authorized|unable to verify|permission denied|forbidden|insufficient permissions)/i;
const RESULTS_WORDS = /(writing output|output bucket|output location|outputlocation|query results? (bucket|location))/i;
// An IAM action (glue:GetTable), not the service part of an ARN (arn:aws:glue:us-east-1:…).
const GLUE_ACTION = /\bglue:[A-Z][A-Za-z]+/;
const S3_WORDS = /(\bs3\b|amazons3exception|s3:\/\/)/i;

export type StorageCause = "catalog" | "results" | "source" | "s3-unknown";

/** s3://bucket/prefix… named in Athena's text, trailing punctuation removed. */
function s3Path(reason: string): string | undefined {
  return /s3:\/\/[^\s)'",;]+/i.exec(reason)?.[0].replace(/\.+$/, "");
}

/**
 * The folder query results are written under: the location up to its last "/" (Athena reports the
 * result file, s3://bucket/prefix/<query id>.csv, where the caller gave s3://bucket/prefix/).
 */
function resultsFolder(location: string): string {
  const m = /^(s3:\/\/[^/]+)(\/.*)?$/i.exec(location);
  if (!m) return location;
  const rest = m[2] ?? "/";
  return m[1] + rest.slice(0, rest.lastIndexOf("/") + 1);
}

/** Whether `path` is in the results folder; source data elsewhere in the same bucket is not. */
function under(path: string, resultsLocation: string | undefined): boolean {
  return resultsLocation !== undefined && path.startsWith(resultsFolder(resultsLocation));
}

export function storageCause(reason: string, resultsLocation?: string): StorageCause | undefined {
  if (!DENIED.test(reason)) return undefined;
  if (GLUE_ACTION.test(reason) || /\bglue\b.*(catalog|database|table)/i.test(reason)) return "catalog";
  if (RESULTS_WORDS.test(reason)) return "results";
  if (!S3_WORDS.test(reason)) return undefined;
  const path = s3Path(reason);
  if (!path) return "s3-unknown";
  return under(path, resultsLocation) ? "results" : "source";
}

export function storageFailure(reason: string | undefined, where: string, resultsLocation?: string): AgentError | undefined {
  if (!reason) return undefined;
  const cause = storageCause(reason, resultsLocation);
  if (!cause) return undefined;
  const path = s3Path(reason);
  const yours = "They are not in the read-only policy because those resources are yours; grant them in a statement scoped to your ARNs.";
  const said = `Athena said: ${reason}`;
  switch (cause) {
    case "catalog": {
      const actions = [...new Set(reason.match(new RegExp(GLUE_ACTION.source, "g")) ?? [])];
      return new AgentError(
        "permission",
        `${where} failed because the credential cannot read the Glue catalog${actions.length ? ` (${actions.join(", ")} refused)` : ""}. Grant glue:GetTable, glue:GetDatabase and glue:GetPartitions on the catalog, database and table. ${yours} ${said}`,
        { missing: actions.length ? actions : ["glue:GetTable", "glue:GetDatabase", "glue:GetPartitions"], fix: "grant glue:GetTable, glue:GetDatabase, glue:GetPartitions on your catalog" },
      );
    }
    case "results":
      return new AgentError(
        "permission",
        `${where} failed because the credential cannot use the query results bucket${path ? ` (${path})` : ""}. Grant s3:GetObject, s3:PutObject and s3:ListBucket on the results bucket. ${yours} ${said}`,
        { missing: ["s3:GetObject", "s3:PutObject", "s3:ListBucket"], fix: `grant s3:GetObject, s3:PutObject, s3:ListBucket on the results bucket${path ? ` of ${path}` : ""}` },
      );
    case "source":
      return new AgentError(
        "permission",
        `${where} failed because the credential cannot read the table's source data at ${path}: this is the data being queried, not the results bucket. Grant s3:GetObject and s3:ListBucket on that location (and kms:Decrypt if it is encrypted with a KMS key). ${yours} ${said}`,
        { missing: ["s3:GetObject", "s3:ListBucket"], fix: `grant s3:GetObject, s3:ListBucket on ${path}` },
      );
    case "s3-unknown":
      return new AgentError(
        "permission",
        `${where} failed because S3 refused access, and Athena did not say which location: either the table's source data (needs s3:GetObject, s3:ListBucket) or the query results bucket (needs s3:GetObject, s3:PutObject, s3:ListBucket). ${yours} ${said}`,
        { missing: ["s3:GetObject", "s3:ListBucket"], fix: "grant read on the table's data location and read/write on the results bucket" },
      );
  }
}
