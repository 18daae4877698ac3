// The policy files compiled into the `runner` executable (Bun embeds `type: "file"` imports), so a
// control plane started without a policies/ directory still serves them byte for byte.
import argocdAccount from "../../../policies/argocd/runner-account.yaml" with { type: "file" };
import argocdRbac from "../../../policies/argocd/runner-rbac.csv" with { type: "file" };
import awsReadOnly from "../../../policies/aws/runner-read-only.json" with { type: "file" };
import awsSecretStore from "../../../policies/aws/runner-secret-store.json" with { type: "file" };
import eksClusterRole from "../../../policies/eks/runner-read-clusterrole.yaml" with { type: "file" };
import gcpRoles from "../../../policies/gcp/runner-roles.json" with { type: "file" };

/** `<cloud>/<file>` → path of the embedded copy. */
export const EMBEDDED_POLICIES: Record<string, string> = {
  "aws/runner-read-only.json": awsReadOnly as unknown as string,
  "aws/runner-secret-store.json": awsSecretStore as unknown as string,
  "eks/runner-read-clusterrole.yaml": eksClusterRole as unknown as string,
  "argocd/runner-rbac.csv": argocdRbac as unknown as string,
  "argocd/runner-account.yaml": argocdAccount as unknown as string,
  "gcp/runner-roles.json": gcpRoles as unknown as string,
};
