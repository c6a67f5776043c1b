// groundwork's optional script: every page works without it. It adds
// what only a script can: copy buttons, choosing the reader's own time
// zone on a page that offers a choice of zones, a price that follows the
// length chosen, a form's total as it is answered, and passkeys.
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
  // A link to a part of a page that may hold the focus (tabindex=-1, a
  // report's panel) puts the focus there, so the reader goes on from it.
  if (location.hash.length > 1) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.getAttribute("tabindex") === "-1") target.focus({ preventScroll: true });
  }
  // A select with data-follow changes, as soon as it is chosen, the text
  // of each element with data-follows="NAME" to its option's data-NAME
  // (a booking page's price and length follow the length chosen; its
  // times come with the form's button).
  for (const select of document.querySelectorAll("select[data-follow]")) {
    select.addEventListener("change", () => {
      const chosen = select.selectedOptions[0];
      for (const el of document.querySelectorAll("[data-follows]")) {
        const text = chosen && chosen.dataset[el.dataset.follows];
        if (text) el.textContent = text;
      }
    });
  }
  // An output with data-total adds up the prices of its form's answers as
  // they change (a form's total): data-total is {"currency", "decimals",
  // "prices": {field: {option: price}, or {"": price} for a number's
  // each}}. The button that works it out on the server is hidden.
  for (const out of document.querySelectorAll("output[data-total]")) {
    const spec = JSON.parse(out.dataset.total), form = out.closest("form");
    if (!form) continue;
    const unit = 10 ** spec.decimals, button = form.querySelector("button[data-total-button]");
    if (button) button.hidden = true;
    const work = () => {
      let sum = 0;
      for (const el of form.elements) {
        const prices = spec.prices[el.name];
        if (!prices || el.disabled) continue;
        if ("" in prices) {
          sum += Number(prices[""]) * unit * (Number(el.value) || 0);
        } else if (el.tagName === "SELECT") {
          for (const o of el.selectedOptions) if (o.value in prices) sum += Number(prices[o.value]) * unit;
        } else if ((el.type !== "radio" && el.type !== "checkbox") || el.checked) {
          if (el.value in prices) sum += Number(prices[el.value]) * unit;
        }
      }
      out.textContent = (Math.round(sum) / unit).toFixed(spec.decimals) + " " + spec.currency;
    };
    form.addEventListener("input", work);
    form.addEventListener("change", work);
  }
  // A box with data-passkey="URL" runs a passkey ceremony (WebAuthn)
  // with the site when its button is pressed: POST URL/options, ask the
  // browser, POST its answer to URL, then go where the site says. Shown
  // only where the browser has passkeys; every page works without it.
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const answer = (cred) => {
    if (cred.toJSON) return cred.toJSON();
    const r = cred.response, out = { id: cred.id, rawId: b64(cred.rawId), type: cred.type, response: { clientDataJSON: b64(r.clientDataJSON) },
      clientExtensionResults: cred.getClientExtensionResults() };
    for (const k of ["attestationObject", "authenticatorData", "signature", "userHandle"]) if (r[k]) out.response[k] = b64(r[k]);
    return out;
  };
  for (const box of document.querySelectorAll("[data-passkey]")) {
    if (!window.PublicKeyCredential) {
      const none = document.querySelector("[data-passkey-none]");
      if (none) none.hidden = false;
      continue;
    }
    box.hidden = false;
    const button = box.querySelector("button"), status = box.querySelector("[role=status]"), name = box.querySelector("input[name=name]");
    const register = box.dataset.kind === "register";
    const post = (url, body) => fetch(url, { method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-XSRF-TOKEN": box.dataset.token } });
    button.addEventListener("click", async () => {
      status.textContent = register ? "Follow your browser's steps to make the passkey." : "Follow your browser's steps to use your passkey.";
      try {
        const res = await post(box.dataset.passkey + "/options", {});
        const options = await res.json();
        if (!res.ok) throw new Error(options.message);
        const pk = options.publicKey;
        pk.challenge = bytes(pk.challenge);
        for (const c of [...(pk.excludeCredentials || []), ...(pk.allowCredentials || [])]) c.id = bytes(c.id);
        if (register) pk.user.id = bytes(pk.user.id);
        const cred = register ? await navigator.credentials.create({ publicKey: pk }) : await navigator.credentials.get({ publicKey: pk });
        const url = box.dataset.passkey + (register && name ? "?name=" + encodeURIComponent(name.value) : "");
        const done = await post(url, answer(cred));
        const reply = await done.json();
        if (!done.ok) throw new Error(reply.message);
        location.assign(reply.redirect);
      } catch (e) {
        status.textContent = e && e.name === "NotAllowedError"
          ? "No passkey was " + (register ? "made" : "used") + ": the browser's steps were cancelled or timed out. Try again."
          : (e && e.message) || "Something went wrong. Try again.";
      }
    });
  }
  // A page drawn inside another site's frame (data-frame names that
  // site's origin, which the server checked) tells that origin alone its
  // height as it changes and the events the page marks (data-frame-event,
  // with data-frame-detail); links and forms that stay on this site keep
  // the frame's parameters, and the others open in a new tab, out of the
  // frame.
  const host = document.documentElement.dataset.frame;
  if (host && window.parent !== window) {
    const tell = (event, data) => window.parent.postMessage({ source: "groundwork", event, data }, host);
    const here = new URLSearchParams(location.search);
    const kept = ["embed", "theme", "lang"].filter((k) => here.has(k));
    const keep = (url) => {
      for (const k of kept) if (!url.searchParams.has(k)) url.searchParams.set(k, here.get(k));
      return url.href;
    };
    for (const a of document.querySelectorAll("a[href]")) {
      const url = new URL(a.href, location.href);
      if (url.origin !== location.origin) {
        a.target = "_blank";
        a.rel = "noopener";
      } else if (!(url.hash && url.pathname === location.pathname && url.search === location.search)) {
        a.href = keep(url);
      }
    }
    for (const form of document.forms) {
      const url = new URL(form.getAttribute("action") || location.href, location.href);
      if (url.origin !== location.origin) {
        form.target = "_blank";
      } else if (form.method === "get") {
        for (const k of kept) {
          if (form.querySelector(`[name="${k}"]`)) continue;
          const input = document.createElement("input");
          input.type = "hidden";
          input.name = k;
          input.value = here.get(k);
          form.append(input);
        }
      } else {
        form.action = keep(url);
      }
    }
    let last = 0;
    const height = () => {
      const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (h !== last) tell("resize", { height: (last = h) });
    };
    new ResizeObserver(height).observe(document.body);
    height();
    // Escape inside the frame closes the host's pop-up, as it would
    // outside it (the key goes to the frame, not to the host's dialog).
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !e.defaultPrevented) tell("close", {});
    });
    for (const el of document.querySelectorAll("[data-frame-event]")) {
      tell(el.dataset.frameEvent, JSON.parse(el.dataset.frameDetail || "{}"));
    }
  }
});
