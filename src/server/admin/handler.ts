// What one `runner admin` command is: command.ts dispatches to these, read-token-commands.ts adds its own.
import type { Store } from "../store/store.ts";

export type Handler = (store: Store, args: string[], json: boolean, opts: HandlerOptions) => Promise<void>;
export interface HandlerOptions {
  html?: string;
  role?: string;
  passwordStdin?: boolean;
  workload?: string[];
  headDays?: string;
  replicateDays?: string;
  keepVersions?: string;
  dryRun?: boolean;
}
