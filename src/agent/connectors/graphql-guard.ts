import { AgentError } from "../errors.ts";

// Some platforms take reads as GraphQL over POST. The POST is query transport only: a document is
// sent only if it parses and every definition in it is a query or a fragment — a mutation, a
// subscription or any schema definition is refused before anything leaves the process.

export async function assertQueryOnly(opName: string, document: string): Promise<void> {
  // Loaded on first use: the parser costs ~0.15 s of startup that catalog/health never need.
  const { Kind, parse } = await import("graphql");
  let doc;
  try {
    doc = parse(document, { noLocation: true });
  } catch (e) {
    throw new AgentError("invalid_query", `${opName}: the GraphQL document does not parse (${e instanceof Error ? e.message : String(e)})`);
  }
  for (const d of doc.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) continue;
    if (d.kind === Kind.OPERATION_DEFINITION && d.operation === "query") continue;
    const what = d.kind === Kind.OPERATION_DEFINITION ? d.operation : d.kind;
    throw new AgentError("invalid_query", `${opName}: refused a GraphQL ${what}; only queries are sent (the POST is query transport, never a mutation)`);
  }
}
