// `runner admin user create ORG EMAIL --role R --password-stdin`: the bootstrap of app members.
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { verifyPassword } from "../../src/server/users/password.ts";
import { runAdmin } from "../helpers/runner-admin.ts";

setDefaultTimeout(60_000);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "runner-admin-user-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const admin = (args: string[], stdin?: string) => runAdmin(dir, args, stdin);

describe("admin user create", () => {
  test("creates a member from the password on stdin; the store holds an argon2id hash of it", async () => {
    expect(admin(["org", "create", "acme"]).code).toBe(0);
    const r = admin(["user", "create", "acme", "Alice@Acme.Test", "--role", "admin", "--password-stdin"], "s3cret password here\n");
    expect(r).toMatchObject({ code: 0, out: "created admin alice@acme.test in acme\n" });
    const store = new SqliteStore(join(dir, "runner.db"));
    const u = (await store.findUserCredentials("acme", "alice@acme.test"))!;
    expect(u.role).toBe("admin");
    expect(u.passwordHash).toStartWith("$argon2id$");
    expect(await verifyPassword("s3cret password here", u.passwordHash)).toBe(true);
    expect(await verifyPassword("s3cret password here\n", u.passwordHash)).toBe(false);
    await store.close();
  });

  test("refusals: no --password-stdin, no --role, bad role, short password, unknown org, duplicate email (any case)", () => {
    admin(["org", "create", "acme"]);
    const pw = "long enough password\n";
    expect(admin(["user", "create", "acme", "a@acme.test", "--role", "owner"], pw)).toMatchObject({ code: 2 });
    expect(admin(["user", "create", "acme", "a@acme.test", "--password-stdin"], pw)).toMatchObject({ code: 2 });
    const bad = admin(["user", "create", "acme", "a@acme.test", "--role", "root", "--password-stdin"], pw);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("role must be one of owner, admin, member");
    const short = admin(["user", "create", "acme", "a@acme.test", "--role", "owner", "--password-stdin"], "short\n");
    expect(short.code).toBe(1);
    expect(short.err).toContain("at least 12 characters");
    expect(short.err).not.toContain("short\n");
    expect(admin(["user", "create", "nope", "a@acme.test", "--role", "owner", "--password-stdin"], pw).err).toContain('organization "nope" does not exist');
    expect(admin(["user", "create", "acme", "not-an-email", "--role", "owner", "--password-stdin"], pw).code).toBe(1);
    expect(admin(["user", "create", "acme", "a@acme.test", "--role", "owner", "--password-stdin"], pw).code).toBe(0);
    const dup = admin(["user", "create", "acme", "A@ACME.test", "--role", "member", "--password-stdin"], pw);
    expect(dup.code).toBe(1);
    expect(dup.err).toContain("already has a member");
  });
});
