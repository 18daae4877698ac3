// The top-functions tables (sort by column, search, open a function's sandwich) and the diff's
// controls (which axis, which cost: self or total), wired on every page that has them.
import { child } from "./flame-types.ts";
import { sandwich } from "./sandwich.ts";

export function initTop(top: HTMLElement): void {
  const table = child<HTMLTableElement>(top, "table");
  const body = table.tBodies[0];
  if (!body) return;
  const q = child<HTMLInputElement>(top, ".top-search");
  const count = child(top, ".top-count");
  const dir: Record<number, "ascending" | "descending"> = {};
  top.querySelectorAll<HTMLButtonElement>("button.sort").forEach((b) => {
    b.addEventListener("click", () => {
      const col = Number(b.dataset.col);
      const d = (dir[col] = dir[col] === "descending" ? "ascending" : "descending");
      const rows = [...body.rows];
      rows.sort((x, y) => {
        const r = col === 0 ? (x.cells[0]?.textContent ?? "").localeCompare(y.cells[0]?.textContent ?? "") : Number(x.cells[col]?.dataset.v) - Number(y.cells[col]?.dataset.v);
        return d === "descending" ? -r : r;
      });
      for (const r of rows) body.appendChild(r);
      table.querySelectorAll("th").forEach((th) => th.setAttribute("aria-sort", "none"));
      b.parentElement?.setAttribute("aria-sort", d);
    });
  });
  q.addEventListener("input", () => {
    const t = q.value.toLowerCase();
    let n = 0;
    for (const r of body.rows) {
      const show = !t || (r.dataset.name ?? "").includes(t);
      r.hidden = !show;
      if (show) n++;
    }
    count.textContent = t ? `${n} function${n === 1 ? "" : "s"}` : "";
  });
  top.addEventListener("click", (ev) => {
    const b = (ev.target as Element).closest<HTMLButtonElement>("button.sandwich-open");
    const block = top.closest(".axis-block");
    if (b && block) sandwich(block, b.dataset.fn ?? "");
  });
}

export function initControls(root: ParentNode): void {
  const axis = root.querySelector<HTMLSelectElement>(".dc-axis");
  const kind = root.querySelector<HTMLSelectElement>(".dc-kind");
  if (!axis || !kind) return;
  const apply = () => {
    const a = axis.value;
    const k = kind.value;
    root.querySelectorAll<HTMLElement>("#diff figure.flame").forEach((f) => (f.hidden = !!a && f.dataset.axis !== a));
    root.querySelectorAll<HTMLElement>("table.changes tbody tr").forEach((r) => (r.hidden = (!!a && r.dataset.axis !== a) || (!!k && r.dataset.kind !== k)));
  };
  axis.addEventListener("change", apply);
  kind.addEventListener("change", apply);
}
