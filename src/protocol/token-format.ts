// Shape of the credentials the control plane issues: `<prefix>_<body><check>`.
// body  = 32 random bytes (256 bits) in fixed-width base62 (43 chars);
// check = CRC-32 of (prefix + "_" + body) in fixed-width base62 (6 chars).
// The checksum lets either end refuse a mistyped or forged-looking token without a database read;
// it is not a secret and adds no security by itself — the random body is the secret.

export const CAPTURE_TOKEN_PREFIX = "rpcap";
export const BOOTSTRAP_TOKEN_PREFIX = "rpboot";
/** Read tokens: a pipeline reads its captures' status, outcome and verdict (never queues, never reads profiles). */
export const READ_TOKEN_PREFIX = "rpread";
export type TokenPrefix = typeof CAPTURE_TOKEN_PREFIX | typeof BOOTSTRAP_TOKEN_PREFIX | typeof READ_TOKEN_PREFIX;

const KIND_NAMES: Record<TokenPrefix, string> = {
  [CAPTURE_TOKEN_PREFIX]: "capture token",
  [BOOTSTRAP_TOKEN_PREFIX]: "bootstrap token",
  [READ_TOKEN_PREFIX]: "read token",
};

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_BYTES = 32;
const BODY_CHARS = 43; // ceil(256 / log2(62))
const CHECK_CHARS = 6; // ceil(32 / log2(62))

function toBase62(bytes: Uint8Array, width: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, "0");
}

// CRC-32 catches every single-character typo and most transpositions, costs well under a
// microsecond (it runs before any lookup on every request), and fits a JS number.
function checksum(prefix: string, body: string): string {
  let n = Bun.hash.crc32(`${prefix}_${body}`);
  let out = "";
  for (let i = 0; i < CHECK_CHARS; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new token of the given kind. Shown to the user once; only its hash is kept. */
export function generateToken(prefix: TokenPrefix): string {
  const body = toBase62(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)), BODY_CHARS);
  return `${prefix}_${body}${checksum(prefix, body)}`;
}

const SHAPE = new RegExp(`^([a-z]+)_([0-9A-Za-z]{${BODY_CHARS}})([0-9A-Za-z]{${CHECK_CHARS}})$`);

/** True when `token` has the exact shape and a valid checksum for `prefix`. No I/O. */
export function isWellFormedToken(token: string, prefix: TokenPrefix): boolean {
  if (token.length !== tokenLength(prefix)) return false;
  const m = SHAPE.exec(token);
  if (!m || m[1] !== prefix) return false;
  return checksum(prefix, m[2]!) === m[3];
}

/** The length of every token of `prefix`. */
export const tokenLength = (prefix: TokenPrefix): number => prefix.length + 1 + BODY_CHARS + CHECK_CHARS;

/**
 * Why `token` is not a well-formed token of `prefix`, in words that never repeat the token itself
 * (it may be a real secret of another kind); null when it is well formed.
 */
export function tokenProblem(token: string, prefix: TokenPrefix): string | null {
  const want = KIND_NAMES[prefix];
  const other = (Object.keys(KIND_NAMES) as TokenPrefix[]).find((p) => p !== prefix && token.startsWith(`${p}_`));
  if (other) return `this is a ${KIND_NAMES[other]} (${other}_…), not a ${want} (${prefix}_…)`;
  if (!token.startsWith(`${prefix}_`)) return `a ${want} starts with ${prefix}_`;
  if (token.length !== tokenLength(prefix)) {
    return `it is ${token.length} characters long; a ${want} is ${tokenLength(prefix)} (${prefix}_ and ${BODY_CHARS + CHECK_CHARS} letters and digits): it was cut or pasted incompletely`;
  }
  if (!/^[0-9A-Za-z]+$/.test(token.slice(prefix.length + 1))) return `after ${prefix}_ a ${want} has only letters and digits`;
  if (!isWellFormedToken(token, prefix)) return "its checksum does not match: a character was mistyped or changed";
  return null;
}

/**
 * SHA-256 of the whole token, hex. A token with 256 random bits cannot be brute-forced from its
 * hash, so a slow password hash (argon2/bcrypt) would only cost latency on every request.
 */
export function hashToken(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}
