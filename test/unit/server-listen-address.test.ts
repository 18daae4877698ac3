import { describe, expect, test } from "bun:test";
import { parseListenAddress } from "../../src/server/listen-address.ts";

describe("--listen HOST:PORT", () => {
  test.each([
    ["127.0.0.1:8080", { hostname: "127.0.0.1", port: 8080 }],
    ["0.0.0.0:0", { hostname: "0.0.0.0", port: 0 }],
    ["[::1]:8443", { hostname: "::1", port: 8443 }],
    ["localhost:65535", { hostname: "localhost", port: 65535 }],
  ])("%s", (value, expected) => {
    expect(parseListenAddress(value, "--listen")).toEqual(expected);
  });
  test.each(["8080", "host", "host:", ":8080", "host:65536", "host:80x", "::1:80"])("%s is refused naming the flag", (value) => {
    expect(() => parseListenAddress(value, "--tunnel-listen")).toThrow("--tunnel-listen must be HOST:PORT");
  });
});
