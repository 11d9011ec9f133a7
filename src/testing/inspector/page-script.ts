// The inspector page's script (see page-html.ts), plain browser JavaScript sent as it is.
// Written without template literals so it can live in this string. Everything it shows goes
// through textContent: nothing the sandbox received is ever parsed as HTML.
export const INSPECTOR_JS = String.raw`'use strict';
(() => {
  const MAX_ITEMS = 500;
  const $ = (id) => document.getElementById(id);
  const lists = { calls: $('call-list'), incidents: $('incident-list'), deliveries: $('delivery-list') };
  let routes = [];

  /** An element with attributes (a 'text' key sets its text) and children. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'text') node.textContent = String(value);
      else if (key === 'className') node.className = value;
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  const time = (iso) => new Date(iso).toLocaleTimeString([], { hour12: false });
  const statusClass = (status) => 's' + (status === null ? 0 : String(status).charAt(0));
  const json = (value) => JSON.stringify(value, null, 2);

  async function getJson(path, init) {
    const res = await fetch(path, Object.assign({ headers: { accept: 'application/json' } }, init));
    const text = await res.text();
    const body = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new Error((body && body.message) || ('HTTP ' + res.status));
    return body;
  }

  function say(id, text, error) {
    const node = $(id);
    node.textContent = text;
    node.classList.toggle('error', Boolean(error));
  }

  function definitions(record) {
    const dl = el('dl');
    for (const [key, value] of Object.entries(record)) {
      dl.append(el('dt', { text: key }), el('dd', { className: 'mono', text: typeof value === 'string' ? value : json(value) }));
    }
    return dl;
  }

  function bodyView(body) {
    if (!body || body.bytes === 0) return el('p', { className: 'hint', text: 'No body' });
    if (body.parts) {
      return el('ul', {}, ...body.parts.map((p) =>
        el('li', { text: (p.filename || '(no file name)') + ' — ' + p.contentType + ', ' + p.bytes + ' bytes' })));
    }
    if (body.text === undefined) return el('p', { className: 'hint', text: body.bytes + ' bytes (binary)' });
    return el('pre', { text: body.text + (body.truncated ? '\n… (cut: ' + body.bytes + ' bytes in all)' : '') });
  }

  /** A list item holding a <details>; its body is loaded when opened, and again on change. */
  function upsert(list, key, summaryParts, load, newestFirst) {
    let item = list.querySelector('[data-key="' + CSS.escape(key) + '"]');
    if (!item) {
      const details = el('details');
      details.append(el('summary'), el('div', { className: 'detail' }));
      details.addEventListener('toggle', () => { if (details.open) fill(details, load); });
      item = el('li', { 'data-key': key }, details);
      list.querySelector('.empty')?.remove();
      if (newestFirst) list.prepend(item); else list.append(item);
      while (list.children.length > MAX_ITEMS) (newestFirst ? list.lastElementChild : list.firstElementChild).remove();
    }
    const details = item.firstElementChild;
    // Spaces between the parts: a screen reader reads "POST /incidents 201", not "POST/incidents201".
    const parts = summaryParts.filter(Boolean).flatMap((part, i) => (i === 0 ? [part] : [' ', part]));
    details.firstElementChild.replaceChildren(...parts);
    details._load = load;
    if (details.open) fill(details, load);
    return item;
  }

  async function fill(details, load) {
    const box = details.lastElementChild;
    if (!box.firstChild) box.append(el('p', { className: 'hint', text: 'Loading…' }));
    try {
      box.replaceChildren(...(await load()));
    } catch (error) {
      box.replaceChildren(el('p', { className: 'message error', text: 'Could not load: ' + error.message }));
    }
  }

  function emptyNote(list, text) {
    if (!list.children.length) list.append(el('li', { className: 'empty', text }));
  }

  // ---- calls
  function showCall(call) {
    const parts = [
      el('span', { className: 'time', text: time(call.at) }),
      el('span', { className: 'method', text: call.method }),
      el('span', { className: 'route', text: call.route.slice(call.route.indexOf(' ') + 1), title: call.path }),
      el('span', { className: 'badge ' + statusClass(call.status), text: call.status === null ? 'no answer' : String(call.status) }),
      call.fault ? el('span', { className: 'badge fault', text: 'fault: ' + call.fault }) : null,
      el('span', { className: 'ms', text: call.ms + ' ms' }),
    ];
    upsert(lists.calls, 'call-' + call.id, parts, async () => {
      const full = await getJson('calls/' + call.id);
      const out = [
        el('h3', { text: 'Request' }),
        el('p', { className: 'mono', text: full.method + ' ' + full.path }),
        definitions(full.request.headers),
        bodyView(full.request.body),
        el('h3', { text: 'Answer' }),
      ];
      if (full.fault) {
        out.push(el('p', { className: 'fault', text: 'Fault injected: ' + call.fault + '. Below is the answer the sandbox made; the fault decided how much of it the client got.' }));
      }
      if (full.response) out.push(definitions(full.response.headers), bodyView(full.response.body));
      else out.push(el('p', { className: 'hint', text: 'None: the connection was reset before the call was handled.' }));
      out.push(el('p', { className: 'hint', text: full.processed ? 'Processed: the sandbox acted on it.' : 'Not processed.' }));
      return out;
    }, true);
  }

  // ---- incidents
  function attachmentItem(a) {
    if (a.missing) return el('li', { text: a.attachmentId + ' (no longer held)' });
    const label = a.filename + ' (' + a.contentType + (a.bytes === null ? '' : ', ' + a.bytes + ' bytes') + ')';
    const link = a.status === 'stored'
      ? el('a', { href: 'attachments/' + encodeURIComponent(a.attachmentId), download: a.filename, text: label })
      : el('span', { text: label + ' — ' + a.status + (a.error ? ': ' + a.error : '') });
    return el('li', {}, link, a.description ? el('span', { className: 'hint', text: ' — ' + a.description }) : null);
  }

  function showIncident(incident) {
    const parts = [
      el('span', { className: 'time', text: time(incident.createdAt) }),
      el('span', { className: 'method', text: incident.programmeCode + ' / ' + incident.policyTypeCode + ' / ' + incident.policyCountry }),
      el('span', { className: 'route', text: incident.description }),
      el('span', { className: 'badge s2', text: incident.events + (incident.events === 1 ? ' event' : ' events') }),
    ];
    upsert(lists.incidents, 'incident-' + incident.incidentId, parts, async () => {
      const full = await getJson('incidents/' + encodeURIComponent(incident.incidentId));
      const events = el('ol');
      for (const event of full.events) {
        events.append(el('li', {},
          el('p', { text: time(event.createdAt) + ' — ' + event.eventType + ' · ' + event.category }),
          el('p', { className: 'hint', text: event.detail }),
          event.attachments.length ? el('ul', {}, ...event.attachments.map(attachmentItem)) : null));
      }
      return [
        el('p', { className: 'mono', text: 'incidentId ' + full.incidentId + ' · incidentDate ' + full.incidentDate }),
        el('h3', { text: 'Extended fields' }),
        full.extendedFields.length ? definitions(Object.fromEntries(full.extendedFields.map((f) => [f.identifier, f.value]))) : el('p', { className: 'hint', text: 'None' }),
        el('h3', { text: 'Event log' }),
        full.events.length ? events : el('p', { className: 'hint', text: 'No events' }),
        el('h3', { text: 'Body as received' }),
        el('pre', { text: json(full.body) }),
      ];
    }, true);
  }

  // ---- deliveries
  function showDelivery(d) {
    const parts = [
      el('span', { className: 'time', text: time(d.at) }),
      el('span', { className: 'badge ' + (d.status === 'delivered' ? 's2' : d.status === 'failed' ? 's5' : 's4'), text: d.status }),
      el('span', { className: 'method', text: 'webhook ' + d.webhookId }),
      el('span', { className: 'route', text: d.payload && d.payload.data ? d.payload.data.eventType + ' · ' + d.payload.data.category : '' }),
      el('span', { className: 'ms', text: 'attempt ' + d.attempt + (d.responseStatus === null ? '' : ' · answered ' + d.responseStatus) }),
    ];
    upsert(lists.deliveries, 'delivery-' + d.deliveryId + '-' + d.attempt, parts, async () => {
      const button = el('button', { type: 'button', text: 'Redeliver' });
      button.addEventListener('click', async () => {
        say('fault-message', 'Redelivering ' + d.deliveryId + '…');
        try {
          const again = await getJson('deliveries/' + encodeURIComponent(d.deliveryId) + '/redeliver', { method: 'POST' });
          say('fault-message', 'Redelivered (attempt ' + again.attempt + '): ' + again.status);
        } catch (error) {
          say('fault-message', 'Redelivery failed: ' + error.message, true);
        }
      });
      return [
        el('p', { className: 'mono', text: 'POST ' + d.url }),
        el('h3', { text: 'Headers sent' }),
        definitions(d.headers),
        el('h3', { text: 'Payload' }),
        el('pre', { text: json(d.payload) }),
        el('h3', { text: 'Answer' }),
        d.responseStatus === null ? el('p', { className: 'hint', text: d.error || 'None yet' })
          : el('pre', { text: d.responseStatus + (d.responseBody ? '\n\n' + d.responseBody : '') }),
        button,
      ];
    }, true);
  }

  // ---- faults and counts
  function showFaults(faults) {
    const list = $('fault-list');
    list.replaceChildren(...faults.map((f) => el('li', { text: f.route + ': ' + f.text + ' (' + f.remaining + ' more)' })));
    if (!faults.length) list.append(el('li', { className: 'empty', text: 'None queued' }));
  }

  function showCounts(counts) {
    const names = [['calls', 'Calls'], ['incidents', 'Incidents'], ['events', 'Events'], ['attachments', 'Files'], ['deliveries', 'Deliveries']];
    $('counts').replaceChildren(...names.map(([key, label]) => el('div', {}, el('dt', { text: label }), el('dd', { text: counts[key] }))));
  }

  function showState(state) {
    routes = state.routes;
    const select = $('fault-route');
    const chosen = select.value;
    select.replaceChildren(...routes.map((r) => el('option', { value: r, text: r, selected: r === (chosen || 'POST /incidents') })));
    for (const list of Object.values(lists)) list.replaceChildren();
    state.calls.forEach(showCall);
    state.incidents.forEach(showIncident);
    state.deliveries.forEach(showDelivery);
    emptyNote(lists.calls, 'No calls yet');
    emptyNote(lists.incidents, 'No incidents yet');
    emptyNote(lists.deliveries, 'No deliveries yet');
    showFaults(state.faults);
    showCounts(state.counts);
    $('chaos').textContent = state.chaos
      ? 'Chaos: ' + Math.round(state.chaos.rate * 100) + '% of calls get a random fault (seed ' + state.chaos.seed + ').'
      : '';
  }

  function applyChanges(batch) {
    batch.calls.forEach(showCall);
    batch.incidents.forEach(showIncident);
    batch.deliveries.forEach(showDelivery);
    if (batch.attachments.length) {
      // A download finished: refresh the open incidents (they list their files).
      for (const details of lists.incidents.querySelectorAll('details[open]')) fill(details, details._load);
    }
    if (batch.faults) showFaults(batch.faults);
    showCounts(batch.counts);
  }

  // ---- the fault form
  const form = $('fault-form');
  const kind = $('fault-kind');
  function showParams() {
    const group = kind.value;
    for (const fieldset of form.querySelectorAll('.params')) {
      const on = fieldset.dataset.kind === group;
      fieldset.hidden = !on;
      fieldset.disabled = !on;
    }
  }
  kind.addEventListener('change', showParams);
  showParams();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const number = (name) => Number(data.get(name));
    const faults = {
      status: () => Object.assign({ status: number('status') }, data.get('retryAfter') ? { retryAfter: number('retryAfter') } : {}),
      delay: () => ({ delayMs: number('delayMs') }),
      'reset-before': () => ({ reset: 'before' }),
      'reset-after': () => ({ reset: 'after' }),
      timeout: () => ({ timeout: 'after' }),
      truncate: () => ({ truncate: { afterBytes: number('afterBytes') } }),
      drip: () => ({ drip: { bytes: number('bytes'), everyMs: number('everyMs') } }),
    };
    const rule = { route: data.get('route'), fault: faults[kind.value](), times: number('times') };
    try {
      const answer = await getJson('faults', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) });
      showFaults(answer.faults);
      say('fault-message', 'Queued: ' + rule.route + ', ' + kind.options[kind.selectedIndex].text.toLowerCase() + ', ' + rule.times + ' time(s).');
    } catch (error) {
      say('fault-message', error.message, true);
    }
  });

  $('clear-faults').addEventListener('click', async () => {
    try {
      showFaults((await getJson('faults', { method: 'DELETE' })).faults);
      say('fault-message', 'Queued faults cleared.');
    } catch (error) {
      say('fault-message', error.message, true);
    }
  });

  $('reset').addEventListener('click', async () => {
    try {
      await getJson('reset', { method: 'POST' });
      say('fault-message', 'The sandbox was emptied.');
      $('reset').closest('details').open = false;
    } catch (error) {
      say('fault-message', error.message, true);
    }
  });

  // ---- the live feed
  const live = $('live');
  const source = new EventSource('events');
  source.addEventListener('open', () => { live.textContent = 'Live'; live.classList.add('on'); });
  source.addEventListener('error', () => { live.textContent = 'Disconnected: reconnecting…'; live.classList.remove('on'); });
  source.addEventListener('state', (event) => showState(JSON.parse(event.data)));
  source.addEventListener('changes', (event) => applyChanges(JSON.parse(event.data)));
})();
`;
