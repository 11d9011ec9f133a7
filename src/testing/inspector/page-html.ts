// The inspector page, served as it is by the sandbox (`GET /_sandbox/`): no build step, no
// library. Its script and style are separate files, so a strict Content-Security-Policy
// (no inline code) holds.
export const INSPECTOR_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Claims sandbox inspector</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="inspector.css">
<script src="inspector.js" defer></script>
</head>
<body>
<a class="skip" href="#calls">Skip to the calls</a>
<header class="top">
  <div class="title">
    <h1>Claims sandbox inspector</h1>
    <p id="live" class="live" role="status" aria-live="polite">Connecting…</p>
  </div>
  <dl id="counts" class="counts" aria-label="What the sandbox holds"></dl>
  <details class="reset">
    <summary>Reset…</summary>
    <p>Empties the sandbox: incidents, files, webhooks, deliveries, calls and queued faults.</p>
    <button type="button" id="reset">Empty the sandbox</button>
  </details>
</header>
<main>
  <section id="faults" class="panel" aria-labelledby="faults-title">
    <h2 id="faults-title">Faults</h2>
    <p class="hint">The next calls to a route fail the way you choose. Tests can do the same with <code>sandbox.faults.next(…)</code> or <code>POST /_sandbox/faults</code>.</p>
    <form id="fault-form" class="fault-form">
      <div class="field wide"><label for="fault-route">Route</label> <select name="route" id="fault-route" required></select></div>
      <div class="field wide"><label for="fault-kind">Fault</label>
        <select name="kind" id="fault-kind">
          <option value="status">Error answer (a status)</option>
          <option value="delay">Slow answer (a delay)</option>
          <option value="reset-before">Connection reset, call not processed</option>
          <option value="reset-after">Connection reset after processing</option>
          <option value="timeout">No answer after processing (time-out)</option>
          <option value="truncate">Answer cut mid-body</option>
          <option value="drip">Answer dripped slowly</option>
        </select>
      </div>
      <fieldset class="params" data-kind="status" aria-label="Error answer">
        <div class="field"><label for="fault-status">Status</label> <input id="fault-status" type="number" name="status" value="503" min="200" max="599" required></div>
        <div class="field"><label for="fault-retryAfter">Retry-After, seconds</label> <input id="fault-retryAfter" type="number" name="retryAfter" min="0" max="86400" placeholder="none"></div>
      </fieldset>
      <fieldset class="params" data-kind="delay" aria-label="Delay" hidden disabled>
        <div class="field"><label for="fault-delayMs">Delay, ms</label> <input id="fault-delayMs" type="number" name="delayMs" value="2000" min="0" max="600000" required></div>
      </fieldset>
      <fieldset class="params" data-kind="truncate" aria-label="Cut" hidden disabled>
        <div class="field"><label for="fault-afterBytes">Cut after, bytes</label> <input id="fault-afterBytes" type="number" name="afterBytes" value="8" min="0" required></div>
      </fieldset>
      <fieldset class="params" data-kind="drip" aria-label="Drip" hidden disabled>
        <div class="field"><label for="fault-bytes">Bytes per write</label> <input id="fault-bytes" type="number" name="bytes" value="4" min="1" required></div>
        <div class="field"><label for="fault-everyMs">Every, ms</label> <input id="fault-everyMs" type="number" name="everyMs" value="250" min="1" max="60000" required></div>
      </fieldset>
      <div class="field"><label for="fault-times">Times</label> <input id="fault-times" type="number" name="times" value="1" min="1" max="10000" required></div>
      <button type="submit">Queue fault</button>
    </form>
    <p id="fault-message" class="message" role="status" aria-live="polite"></p>
    <h3>Queued</h3>
    <ul id="fault-list" class="fault-list"></ul>
    <button type="button" id="clear-faults">Clear queued faults</button>
    <p id="chaos" class="hint"></p>
  </section>
  <section id="calls" class="panel" aria-labelledby="calls-title" tabindex="-1">
    <h2 id="calls-title">Calls</h2>
    <p class="hint">Newest first. Open one for its headers and bodies (the token is never shown).</p>
    <ol id="call-list" class="items"></ol>
  </section>
  <section id="incidents" class="panel" aria-labelledby="incidents-title">
    <h2 id="incidents-title">Incidents</h2>
    <ol id="incident-list" class="items"></ol>
  </section>
  <section id="deliveries" class="panel" aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">Webhook deliveries</h2>
    <ol id="delivery-list" class="items"></ol>
  </section>
</main>
</body>
</html>
`;
