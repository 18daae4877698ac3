// `runner server --listen HOST:PORT --data DIR [--tunnel-listen HOST:PORT] [--tls-cert F --tls-key F]`
import { parseArgs } from "node:util";
import { outputFlushed } from "../exit-after-output.ts";
import { createLogger } from "../log.ts";
import { parseListenAddress } from "./listen-address.ts";
import { startServer } from "./start-server.ts";
import { openStore } from "./store/open.ts";

const USAGE = `usage: runner server --listen HOST:PORT --data DIR [--database-url URL]
                     [--tunnel-listen HOST:PORT] [--tls-cert FILE --tls-key FILE]
  RUNNER_DATABASE_URL stands for --database-url (keeps the password out of argument lists).
`;

export async function serverCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
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
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const logger = createLogger("server");
  try {
    const listen = parseListenAddress(values.listen!, "--listen");
    const tunnelListen = values["tunnel-listen"] ? parseListenAddress(values["tunnel-listen"], "--tunnel-listen") : undefined;
    if (!!values["tls-cert"] !== !!values["tls-key"]) throw new Error("--tls-cert and --tls-key go together");
    const tls = values["tls-cert"] ? { certFile: values["tls-cert"], keyFile: values["tls-key"]! } : undefined;
    // From the environment too: a container's arguments are visible to anyone who lists processes.
    const store = openStore({ data: values.data, databaseUrl: values["database-url"] ?? (values.data ? undefined : process.env.RUNNER_DATABASE_URL || undefined) });
    // Fail at start, not at the first request, when the database is unreachable (the URL is never echoed).
    await store.ping().catch((err: Error) => {
      throw new Error(`the store is not reachable: ${err.message.replace(/postgres(ql)?:\/\/\S+/gi, "postgres://…")}`);
    });
    const server = await startServer({ ...listen, tls, tunnelListen, store, logger });
    logger.info({ url: server.url, tunnel: server.tunnelUrl, data: values.data }, "control plane listening");
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
    return -1;
  } catch (err) {
    process.stderr.write(`runner server: ${(err as Error).message}\n`);
    return 1;
  }
}
