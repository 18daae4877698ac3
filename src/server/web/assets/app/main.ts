// The app's only script, bundled into the executable at build (../app-js.ts): live refresh of the
// Profiling table and of a capture still in flight (swapping in what changed, keeping focus: no
// full reloads), confirmations, the copy button of a new token, the diff controls, the top
// tables, the sandwich view and the flame graphs.
import { mount } from "./flame.ts";
import type { FlameData } from "./flame-types.ts";
import { initControls, initTop } from "./tables.ts";

const asHtml = { credentials: "same-origin", headers: { accept: "text/html" } } as const;

/** While the first page shows queued or running requests, refetch its rows. */
function liveRows(tbody: HTMLElement): void {
  const timer = setInterval(async () => {
    try {
      const r = await fetch(tbody.dataset.rows ?? "", asHtml);
      if (!r.ok) return clearInterval(timer);
      const t = await r.text();
      if (tbody.innerHTML !== t) tbody.innerHTML = t;
      if (r.headers.get("x-live") !== "1") {
        tbody.dataset.live = "0";
        clearInterval(timer);
      }
    } catch {
      // A missed refresh is retried on the next tick.
    }
  }, 2000);
}

/** A capture still in flight: refetch the page and swap in its new content, focus kept (by id). */
function liveCapture(cap: HTMLElement): void {
  const timer = setInterval(async () => {
    try {
      const r = await fetch(location.href, asHtml);
      if (!r.ok) return;
      const next = new DOMParser().parseFromString(await r.text(), "text/html").getElementById("capture");
      if (!next) return;
      if (next.innerHTML !== cap.innerHTML) {
        const active = document.activeElement?.id;
        cap.innerHTML = next.innerHTML;
        init(cap);
        if (active) document.getElementById(active)?.focus({ preventScroll: true });
      }
      if (next.dataset.poll !== "1") {
        cap.dataset.poll = "0";
        clearInterval(timer);
      }
    } catch {
      // A missed refresh is retried on the next tick.
    }
  }, 3000);
}

function copyButton(b: HTMLButtonElement): void {
  b.addEventListener("click", () => {
    const input = document.getElementById(b.dataset.copy ?? "") as HTMLInputElement | null;
    const note = b.parentElement?.querySelector(".copied");
    if (!input) return;
    input.select();
    const done = () => {
      if (note) note.textContent = "Copied";
    };
    const legacy = () => {
      document.execCommand("copy");
      done();
    };
    if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, legacy);
    else legacy();
  });
}

function init(root: ParentNode): void {
  root.querySelectorAll<HTMLFormElement>("form[data-confirm]").forEach((f) => {
    f.addEventListener("submit", (ev) => {
      if (!window.confirm(f.dataset.confirm ?? "")) ev.preventDefault();
    });
  });
  root.querySelectorAll<HTMLButtonElement>("button.copy").forEach(copyButton);
  root.querySelectorAll<HTMLElement>("figure.flame").forEach((fig) => {
    const s = fig.querySelector("script[type='application/json']");
    if (s) mount(fig, JSON.parse(s.textContent ?? "null") as FlameData);
  });
  root.querySelectorAll<HTMLElement>(".top").forEach(initTop);
  initControls(root);
}

const rows = document.getElementById("records");
if (rows?.dataset.live === "1") liveRows(rows);
const cap = document.getElementById("capture");
if (cap?.dataset.poll === "1") liveCapture(cap);
init(document);
