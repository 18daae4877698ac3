// Retention: each organization's policy for how long pushed profiles are kept, and what pruning
// removed. Pruning deletes a capture's profile (and its diff's flame graph); the capture record,
// its outcome and its diff's verdict stay, with when it was pruned. Part of `Store`.

export interface RetentionPolicy {
  /** A head's profile is pruned once older than this many days; null: heads are kept. */
  headDays: number | null;
  /** A replicate's profile is pruned once older than this many days; null: replicates are kept. */
  replicateDays: number | null;
  /** The latest this many versions of each workload (and env) are always kept whatever their age. */
  keepVersions: number;
}

/** A pushed capture whose profile is still stored. */
export interface StoredProfile {
  requestId: string;
  workload: string;
  env: string;
  version: string;
  kind: "head" | "replicate";
  createdAt: number;
  bytes: number;
}

export interface StorageUsage {
  /** Profiles stored, and their compressed bytes. */
  profiles: number;
  profileBytes: number;
  /** Stored diffs (verdict, JSON and flame graph), bytes. */
  diffBytes: number;
  /** Captures whose profile retention removed. */
  pruned: number;
}

export interface RetentionStore {
  /** not_found for an unknown org. */
  setRetentionPolicy(orgName: string, policy: RetentionPolicy, now?: number): Promise<void>;
  getRetentionPolicy(orgName: string): Promise<RetentionPolicy | null>;
  /** Organizations with a policy (what the server's schedule applies). */
  listRetentionOrgs(): Promise<string[]>;
  /** An org's pushed captures whose profile is still stored, oldest first. */
  listStoredProfiles(orgName: string): Promise<StoredProfile[]>;
  /** Deletes these captures' profiles and their diffs' flame graphs, in one transaction, recording when; ids of another org are ignored. */
  pruneProfiles(orgName: string, requestIds: readonly string[], now?: number): Promise<{ pruned: number; bytes: number }>;
  /** When retention pruned this capture's profile; null when it did not. */
  prunedAt(requestId: string): Promise<number | null>;
  storageUsage(orgName: string): Promise<StorageUsage>;
}
