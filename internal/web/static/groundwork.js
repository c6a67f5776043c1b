// groundwork's optional script: every page works without it. It adds
// what only a script can: copy buttons, and choosing the reader's own
// time zone on a page that offers a choice of zones.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  // A button with data-copy="ID" copies the text of the element ID and
  // says so in its live region. Hidden until this script shows it.
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const target = document.getElementById(button.dataset.copy);
    const status = document.getElementById(button.dataset.copy + "-status");
    if (!target || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(target.textContent.trim());
        if (status) status.textContent = "Copied.";
      } catch {
        if (status) status.textContent = "Could not copy: select the text and copy it yourself.";
      }
    });
  }
  // A select with data-zone lists time zones; when the page was not asked
  // for one, reload it in the browser's own, if the list has it.
  const zone = document.querySelector("select[data-zone]");
  if (zone && !new URLSearchParams(location.search).has(zone.name)) {
    const mine = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (mine && mine !== zone.value && [...zone.options].some((o) => o.value === mine)) {
      const url = new URL(location.href);
      url.searchParams.set(zone.name, mine);
      location.replace(url);
    }
  }
});
