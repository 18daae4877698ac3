// The Agent's configuration: the process environment, or a test's own map. Its own file so that
// the credential sources and the context that holds them both read it without importing each other.
export type Env = Record<string, string | undefined>;
