// The identity volume on real files: key pair created once, 0600, atomic; class and instance
// recorded; a lock held while running that a second process (another replica) cannot take.
import { afterEach, beforeEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import sodium from "libsodium-wrappers";
import { checkIdentity } from "../../src/profiler/boot/identity.ts";
import { IDENTITY_FILE, IdentityError, KEY_FILE, openIdentity } from "../../src/profiler/identity.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "identity-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function refusal(p: Promise<unknown>): Promise<IdentityError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(IdentityError);
    return err as IdentityError;
  }
  throw new Error("expected an IdentityError");
}

/** A second process (another replica) that opens the identity and holds it until killed. */
function holder(instanceId: string) {
  const script = join(dir, "..", `hold-${process.pid}-${Date.now()}.ts`);
  writeFileSync(
    script,
    `import { openIdentity } from ${JSON.stringify(resolve(import.meta.dir, "../../src/profiler/identity.ts"))};
     await openIdentity(${JSON.stringify(dir)}, ${JSON.stringify(instanceId)});
     console.log("held");
     setInterval(() => {}, 1000);`,
  );
  const child = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "inherit" });
  const ready = (async () => {
    const reader = child.stdout.getReader();
    const { value } = await reader.read();
    reader.releaseLock();
    expect(new TextDecoder().decode(value)).toContain("held");
  })();
  return { child, ready, cleanup: () => rmSync(script, { force: true }) };
}

describe("identity volume", () => {
  test("first boot creates an ed25519 key pair, files 0600, no temp files left", async () => {
    const id = await openIdentity(dir, "node-1");
    expect(id.created).toBe(true);
    for (const f of [IDENTITY_FILE, KEY_FILE, "identity.lock"]) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual([IDENTITY_FILE, "identity.lock", KEY_FILE].sort());
    const record = JSON.parse(readFileSync(join(dir, IDENTITY_FILE), "utf8"));
    expect(record).toMatchObject({ version: 1, class: "profiler", instanceId: "node-1", publicKey: id.publicKey });
    await sodium.ready;
    const msg = new TextEncoder().encode("challenge");
    const sig = id.sign(msg);
    expect(sodium.crypto_sign_verify_detached(sig, msg, sodium.from_base64(id.publicKey, sodium.base64_variants.ORIGINAL))).toBe(true);
    id.release();
    expect(() => id.sign(msg)).toThrow("released");
  });

  test("the next boot loads the same key", async () => {
    const a = await openIdentity(dir, "node-1");
    a.release();
    const b = await openIdentity(dir, "node-1");
    expect(b.created).toBe(false);
    expect(b.publicKey).toBe(a.publicKey);
    b.release();
  });

  test("a volume of another instance is refused (one volume per replica)", async () => {
    (await openIdentity(dir, "node-1")).release();
    const e = await refusal(openIdentity(dir, "node-2"));
    expect(e.setting).toBe("instance id");
    expect(e.message).toContain('belongs to instance "node-1"');
  });

  test("the Agent's volume is refused", async () => {
    writeFileSync(join(dir, IDENTITY_FILE), JSON.stringify({ version: 1, class: "agent", instanceId: "node-1", publicKey: "x" }));
    const e = await refusal(openIdentity(dir, "node-1"));
    expect(e.setting).toBe("class");
    expect(e.message).toContain('"agent"');
  });

  test("a key that does not match the record is refused", async () => {
    (await openIdentity(dir, "node-1")).release();
    await sodium.ready;
    writeFileSync(join(dir, KEY_FILE), sodium.to_base64(sodium.crypto_sign_keypair().privateKey, sodium.base64_variants.ORIGINAL));
    expect((await refusal(openIdentity(dir, "node-1"))).message).toContain("does not match");
  });

  test("corrupt files are refused with a message", async () => {
    writeFileSync(join(dir, IDENTITY_FILE), "{not json");
    expect((await refusal(openIdentity(dir, "node-1"))).message).toContain("not valid JSON");
  });

  test("group-readable files (a Kubernetes fsGroup) are reset to 0600", async () => {
    (await openIdentity(dir, "node-1")).release();
    chmodSync(join(dir, KEY_FILE), 0o640);
    const id = await openIdentity(dir, "node-1");
    expect(id.repairedModes).toEqual([KEY_FILE]);
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    id.release();
  });

  test("inspect mode reports group-readable files but leaves their mode alone", async () => {
    (await openIdentity(dir, "node-1")).release();
    chmodSync(join(dir, KEY_FILE), 0o640);
    const id = await openIdentity(dir, "node-1", { create: false });
    expect(id.repairedModes).toEqual([KEY_FILE]);
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o640);
  });

  test("inspect (doctor): a volume locked by the running Profiler is a warning, at boot a failure", async () => {
    const running = await openIdentity(dir, "node-1");
    try {
      const inspect = await checkIdentity(dir, "node-1", false);
      expect(inspect.findings.map((f) => f.status)).toEqual(["warn"]);
      expect(inspect.findings[0]!.message).toContain("is in use by PID");
      const boot = await checkIdentity(dir, "node-1", true);
      expect(boot.findings.map((f) => f.status)).toEqual(["fail"]);
    } finally {
      running.release();
    }
  });

  test("inspect mode creates nothing", async () => {
    const e = await refusal(openIdentity(dir, "node-1", { create: false }));
    expect(e.message).toContain("holds no identity yet");
    expect(readdirSync(dir)).not.toContain(KEY_FILE);
  });

  test("a second process cannot take the volume while the first holds it; it can once the first dies", async () => {
    (await openIdentity(dir, "node-1")).release();
    const h = holder("node-1");
    try {
      await h.ready;
      const e = await refusal(openIdentity(dir, "node-1"));
      expect(e.setting).toBe("lock");
      expect(e.message).toContain(`in use by PID ${h.child.pid}`);
      expect(e.message).toContain("one volume per replica");
    } finally {
      h.child.kill();
      await h.child.exited;
      h.cleanup();
    }
    const id = await openIdentity(dir, "node-1");
    expect(id.created).toBe(false);
    id.release();
  });

  test("within one process the lock is exclusive too until released", async () => {
    const a = await openIdentity(dir, "node-1");
    expect((await refusal(openIdentity(dir, "node-1"))).setting).toBe("lock");
    a.release();
    (await openIdentity(dir, "node-1")).release();
  });
});

describe("identity volume shared with something else", () => {
  test("another artifact's key files are refused", async () => {
    writeFileSync(join(dir, "agent.key"), "x");
    const e = await refusal(openIdentity(dir, "node-1"));
    expect(e.setting).toBe("class");
    expect(e.message).toContain("agent.key");
  });

  test("other files are reported, lost+found is not, our own interrupted writes are cleaned", async () => {
    writeFileSync(join(dir, "notes.txt"), "x");
    mkdirSync(join(dir, "lost+found"));
    writeFileSync(join(dir, `.${KEY_FILE}.123.456.tmp`), "partial");
    const id = await openIdentity(dir, "node-1");
    expect(id.foreignEntries).toEqual(["notes.txt"]);
    expect(readdirSync(dir)).not.toContain(`.${KEY_FILE}.123.456.tmp`);
    id.release();
  });
});
