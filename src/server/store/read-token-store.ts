// Read tokens (rpread_…): what a pipeline uses to learn the status, outcome and verdict of the
// captures it queued. Distinct from capture tokens, which read nothing. Part of `Store`, same
// contract rules (test/unit/store-contract.ts).
import type { Org } from "./types.ts";

export interface ReadTokenInfo {
  name: string;
  /** The workloads it may read; null: every workload of its organization. */
  workloads: string[] | null;
  createdAt: number;
  revokedAt: number | null;
}

/** What authenticating a read token yields. */
export interface ReadTokenPrincipal {
  tokenId: number;
  tokenName: string;
  tokenHash: string;
  org: Org;
  workloads: string[] | null;
}

export interface ReadTokenStore {
  /** Stores the hash of a new read token. One active token per (org, name); conflict otherwise. */
  addReadToken(orgName: string, name: string, tokenHash: string, workloads: string[] | null, now?: number): Promise<void>;
  /** The active (unrevoked) read token with this hash, with its org; null when none. */
  findReadToken(tokenHash: string): Promise<ReadTokenPrincipal | null>;
  /** Revokes the active read token of that name; not_found when there is none. */
  revokeReadToken(orgName: string, name: string, now?: number): Promise<void>;
  listReadTokens(orgName: string): Promise<ReadTokenInfo[]>;
}

/** A read token's workload scope as stored: a JSON array, or NULL for every workload. */
export const workloadsColumn = (w: string[] | null): string | null => (w === null ? null : JSON.stringify(w));
export const workloadsFromColumn = (c: string | null): string[] | null => (c === null ? null : (JSON.parse(c) as string[]));
