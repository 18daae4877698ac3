// Persistence of what the Profiler side produces: enrolled instances, pushed profiles, diffs,
// and the queue operations dispatch needs. Part of `Store` (store.ts), same contract rules.
import type { ArtifactClass } from "../../protocol/enroll.ts";
import type { CaptureRecord } from "./types.ts";

export interface EnrolledInstance {
  orgId: number;
  orgName: string;
  profilerEnabled: boolean;
  instanceId: string;
  artifactClass: ArtifactClass;
  publicKey: string;
  enrolledAt: number;
}

export interface StoredDiff {
  requestId: string;
  /** The capture it was compared with (head of the prior version), or null with `note` saying why. */
  comparedWith: { requestId: string; version: string } | null;
  note: string;
  verdict: string | null;
  json: string | null;
  html: string | null;
  createdAt: number;
}

export interface Baseline {
  head: CaptureRecord;
  replicates: CaptureRecord[];
}

export interface ProfilerStore {
  /**
   * Records (org, instance id) → public key. Same key again: idempotent (alreadyEnrolled). Another
   * key, or another artifact class, for an enrolled instance id: StoreError("conflict").
   */
  enrolInstance(orgId: number, instanceId: string, artifactClass: ArtifactClass, publicKey: string, now?: number): Promise<{ alreadyEnrolled: boolean }>;
  findInstance(orgName: string, instanceId: string): Promise<EnrolledInstance | null>;

  /** Queued requests of every org, oldest first. */
  listQueuedCaptures(limit: number): Promise<CaptureRecord[]>;
  /** running → queued for every request (a previous process died mid-flight). Returns how many. */
  requeueRunningCaptures(now?: number): Promise<number>;

  saveProfile(requestId: string, profileGz: Uint8Array, instanceId: string, now?: number): Promise<void>;
  getProfile(requestId: string): Promise<Uint8Array | null>;
  saveDiff(diff: StoredDiff): Promise<void>;
  getDiff(requestId: string): Promise<StoredDiff | null>;

  /** Latest pushed head of a version other than `version` created before `before`, with that version's pushed replicates. */
  findBaseline(orgName: string, workload: string, env: string, version: string, before: number): Promise<Baseline | null>;
  /** Pushed captures (head and replicates) of one version, oldest first. */
  listPushedOfVersion(orgName: string, workload: string, env: string, version: string): Promise<CaptureRecord[]>;
}
