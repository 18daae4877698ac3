// The peer for bench/capture-endpoint.ts: a bare Bun.serve hello-world on the same machine,
// measured in the same run, so the capture endpoint's figure is read as a ratio.
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("hello") });
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}` }));
