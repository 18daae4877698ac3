// `runner server --listen HOST:PORT --data DIR [--tunnel-listen HOST:PORT] [--tls-cert F --tls-key F]`
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseCommandLine, USAGE_EXIT } from "../cli-args.ts";
import { outputFlushed } from "../exit-after-output.ts";
import { createLogger } from "../log.ts";
import { ownerOnlyFix, widerThanOwner } from "../store-permissions.ts";
import { parseListenAddress } from "./listen-address.ts";
import { startServer } from "./start-server.ts";
import { chosenDatabaseUrl, openStore } from "./store/open.ts";

const USAGE = `usage: runner server --listen HOST:PORT (--data DIR | with RUNNER_DATABASE_URL=postgres://… set)
                     [--tunnel-listen HOST:PORT] [--tls-cert FILE --tls-key FILE]
`;

export async function serverCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseCommandLine({
      args: argv,
      options: {
        listen: { type: "string", default: "127.0.0.1:8080" },
        data: { type: "string" },
        "database-url": { type: "string" },
        "tunnel-listen": { type: "string" },
        "tls-cert": { type: "string" },
        "tls-key": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`runner server: ${(err as Error).message}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // A malformed command line is a usage error (exit 2), as in every role; what fails once it is
  // well formed (a held port, an unreachable database) exits 1.
  let listen, tunnelListen;
  try {
    listen = parseListenAddress(values.listen!, "--listen");
    tunnelListen = values["tunnel-listen"] ? parseListenAddress(values["tunnel-listen"], "--tunnel-listen") : undefined;
    if (!!values["tls-cert"] !== !!values["tls-key"]) throw new Error("--tls-cert and --tls-key go together");
  } catch (err) {
    process.stderr.write(`runner server: ${(err as Error).message}\n${USAGE}`);
    return USAGE_EXIT;
  }
  const logger = createLogger("server");
  try {
    const tls = values["tls-cert"] ? { certFile: values["tls-cert"], keyFile: values["tls-key"]! } : undefined;
    const database = chosenDatabaseUrl(values["database-url"], values.data);
    if (database.warning) logger.warn(database.warning);
    // A mistyped --data would silently start an empty store: say so, in one line, naming it.
    const newStore = !database.url && values.data !== undefined && !existsSync(join(values.data, "runner.db"));
    const store = openStore({ data: values.data, databaseUrl: database.url });
    if (newStore) process.stderr.write(`runner server: created a new, empty store at ${join(values.data!, "runner.db")} (none was there; if you meant an existing store, stop and check --data)\n`);
    // Fail at start, not at the first request, when the database is unreachable (the URL is never echoed).
    await store.ping().catch((err: Error) => {
      throw new Error(`the store is not reachable: ${err.message.replace(/postgres(ql)?:\/\/\S+/gi, "postgres://…")}`);
    });
    if (values.data) {
      const wider = widerThanOwner(values.data);
      if (wider.length) logger.warn({ wider, fix: ownerOnlyFix(values.data) }, "the store is readable by other local users: it holds password, session and token hashes and every profile");
    }
    const server = await startServer({ ...listen, tls, tunnelListen, store, logger });
    const shutdown = async (signal: string) => {
      logger.info({ signal }, "shutting down");
      await server.stop();
      await store.close();
      // The log's asynchronous destination holds the last lines (this one included) until flushed.
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      // A clean stop is 0 even if the log's reader went away meanwhile.
      await outputFlushed();
      process.exit(0);
    };
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    process.once("SIGINT", () => void shutdown("SIGINT"));
    // Announced only once a SIGTERM is ours to handle: a supervisor (or a test) that stops the
    // server as soon as it reads this line must get a clean stop, not the default kill.
    logger.info({ url: server.url, tunnel: server.tunnelUrl, data: values.data }, "control plane listening");
    return -1;
  } catch (err) {
    process.stderr.write(`runner server: ${(err as Error).message}\n`);
    return 1;
  }
}
