import { createHash, createHmac } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCredentialIdentity } from "@smithy/types";

// A cluster bearer token exactly like `aws eks get-token`: a presigned STS GetCallerIdentity URL
// (signed header x-k8s-aws-id = cluster name, valid 60 s), base64url without padding, prefixed
// `k8s-aws-v1.`. The cluster's authenticator calls STS with it to learn who we are; no secret
// travels, only a signature.

export const TOKEN_PREFIX = "k8s-aws-v1.";

/** SHA-256 / HMAC-SHA-256 in the shape the signer expects. */
export class Sha256 {
  private readonly h: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: string | Uint8Array) {
    this.h = secret === undefined ? createHash("sha256") : createHmac("sha256", secret);
  }
  update(data: string | Uint8Array): void {
    this.h.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

export function stsRequest(region: string, cluster: string) {
  const hostname = `sts.${region}.amazonaws.com`;
  return {
    method: "GET",
    protocol: "https:",
    hostname,
    path: "/",
    query: { Action: "GetCallerIdentity", Version: "2011-06-15" },
    headers: { host: hostname, "x-k8s-aws-id": cluster },
  };
}

export async function clusterToken(credentials: AwsCredentialIdentity, region: string, cluster: string, signingDate = new Date()): Promise<string> {
  const signer = new SignatureV4({ credentials, region, service: "sts", sha256: Sha256 as any });
  const signed = await signer.presign(stsRequest(region, cluster) as any, { expiresIn: 60, signingDate });
  const query = new URLSearchParams(signed.query as Record<string, string>).toString();
  const url = `https://${signed.hostname}${signed.path}?${query}`;
  return TOKEN_PREFIX + Buffer.from(url).toString("base64url");
}
