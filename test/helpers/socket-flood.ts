// `bun socket-flood.ts HOST PORT COUNT ADDRESSES`: opens COUNT connections to a tunnel port, each
// sending a WebSocket upgrade and then nothing (no hello), spread over ADDRESSES loopback source
// addresses (127.0.1.1, 127.0.1.2, …), and keeps them until the server drops them. Prints one JSON
// line: how many attempts ended (connected, or refused/reset by the server), and how many
// connections the server still held when the last attempt had ended.
// A process of its own so that its descriptors are not the test's (run under `ulimit -n`).
import { connect, type Socket } from "node:net";

const [host = "127.0.0.1", port = "0", count = "0", addresses = "1"] = process.argv.slice(2);
const total = Number(count);
const sockets = new Set<Socket>();
let ended = 0;

function one(i: number): Promise<void> {
  return new Promise((resolve) => {
    const s = connect({ host, port: Number(port), localAddress: `127.0.1.${1 + (i % Number(addresses))}` });
    let counted = false;
    const count = () => {
      if (!counted) ended++;
      counted = true;
    };
    s.on("connect", () => {
      count();
      sockets.add(s);
      s.write(`GET /tunnel HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      resolve();
    });
    s.on("error", () => {
      count();
      resolve();
    });
    s.on("close", () => sockets.delete(s));
  });
}

const BATCH = 250;
for (let i = 0; i < total; i += BATCH) {
  await Promise.all(Array.from({ length: Math.min(BATCH, total - i) }, (_, j) => one(i + j)));
}
await Bun.sleep(500); // let the server's refusals arrive
console.log(JSON.stringify({ attempts: total, ended, held: sockets.size }));
for (const s of sockets) s.destroy();
process.exit(0);
