// Creating a member (admin CLI `user create`): validation of email, role and password, then the store.
import { ROLES, type Role, type User, type UserStore } from "../store/user-store.ts";
import { StoreError } from "../store/types.ts";
import { textProblem } from "../../protocol/names.ts";
import { hashPassword, passwordProblem } from "./password.ts";

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createMember(store: UserStore, org: string, email: string, role: string, password: string, now = Date.now()): Promise<User> {
  // The email is the requester of the captures the member queues: no control characters.
  const text = textProblem(email);
  if (text) throw new StoreError(`the email ${text}`, "invalid");
  const e = normaliseEmail(email);
  if (!EMAIL.test(e)) throw new StoreError(`"${email}" is not an email address`, "invalid");
  if (!(ROLES as readonly string[]).includes(role)) throw new StoreError(`role must be one of ${ROLES.join(", ")}`, "invalid");
  const problem = passwordProblem(password);
  if (problem) throw new StoreError(problem, "invalid");
  return store.createUser(org, e, role as Role, await hashPassword(password), now);
}
