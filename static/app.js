// Progressive enhancement only: the page works without this file.
document.documentElement.classList.add("js");

document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const source = document.querySelector(button.dataset.copy);
  if (!source) return;
  const text = source.textContent;
  const done = button.dataset.done || "Copied";
  try {
    await navigator.clipboard.writeText(text);
  } catch (err) {
    // Clipboard API needs a secure context; fall back to selecting the text.
    const range = document.createRange();
    range.selectNodeContents(source);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    document.execCommand("copy");
  }
  const label = button.textContent;
  button.textContent = done;
  setTimeout(() => { button.textContent = label; }, 1500);
});

// The language switch goes back to the page as it is now: htmx updates the address bar
// (the design lives in the query string) after the page was rendered.
document.addEventListener("submit", (event) => {
  const form = event.target.closest("[data-lang-switch]");
  if (!form || !form.elements.next) return;
  form.elements.next.value = window.location.pathname + window.location.search;
});

// htmx swaps no 4xx/5xx answer by itself, so a failed Share would do nothing visible. The
// server marks answers that carry a message for the page (X-Swap-Error: true): show them.
document.addEventListener("htmx:beforeSwap", (event) => {
  const xhr = event.detail.xhr;
  if (xhr && xhr.status >= 400 && xhr.getResponseHeader("X-Swap-Error") === "true") {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
