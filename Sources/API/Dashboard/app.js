// specd dashboard. Everything the server sends (user ids, flag keys, messages) is client data: it reaches the page
// only as text nodes (textContent / append(string)), never as markup. The admin token lives in sessionStorage and
// goes only into the Authorization header; the event stream opens with a one-time ticket instead.
'use strict';

(() => {
  const TOKEN_KEY = 'specd.token';
  const MAX_EVENTS = 200;
  const byId = (id) => document.getElementById(id);

  let token = sessionStorage.getItem(TOKEN_KEY);
  let currentUser = null;
  let globalStream = null;
  let userStream = null;
  let userRefreshTimer = null;
  let validUntilTimer = null;
  let pollTimer = null;
  let historyBefore = null;
  // Flags whose explain tree is open: a re-render (an event, validUntil passing) keeps them open.
  const expanded = new Set();

  // Builds an element; string children become text nodes, so data can never become markup.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (name === 'class') node.className = value;
      else if (name === 'dataset') Object.assign(node.dataset, value);
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function show(node, visible) { node.hidden = !visible; }

  function compact(value) {
    if (value === undefined) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  }

  function when(iso) {
    if (!iso) return '';
    const at = new Date(iso);
    if (Number.isNaN(at.getTime())) return iso;
    const seconds = Math.round((at.getTime() - Date.now()) / 1000);
    const size = Math.abs(seconds);
    const span = size < 90 ? `${size} s` : size < 5400 ? `${Math.round(size / 60)} min`
      : size < 129600 ? `${Math.round(size / 3600)} h` : `${Math.round(size / 86400)} d`;
    if (seconds === 0) return `${iso} (now)`;
    return `${iso} (${seconds > 0 ? 'in ' + span : span + ' ago'})`;
  }

  async function api(path, options = {}) {
    const headers = Object.assign({ Authorization: `Bearer ${token}` }, options.headers || {});
    if (options.json !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {
      method: options.method || 'GET', headers, cache: 'no-store',
      body: options.json !== undefined ? JSON.stringify(options.json) : undefined,
    });
    const text = await response.text();
    let body = null;
    try { body = text ? JSON.parse(text) : null; } catch (_) { body = null; }
    if (response.status === 401) signOut('The token was refused (401). Enter it again.');
    return { status: response.status, ok: response.ok, body, text };
  }

  function errorText(reply) {
    const error = reply.body && reply.body.error;
    return error ? `${reply.status} ${error.code}: ${error.message}` : `HTTP ${reply.status}`;
  }

  // A 404 from the router ("no route for …") means this build has no such route, not an unknown user.
  function isMissingRoute(reply) {
    const message = reply.body && reply.body.error && reply.body.error.message;
    return reply.status === 404 && typeof message === 'string' && message.startsWith('no route');
  }

  // ---- sign-in -------------------------------------------------------------------------------------------------

  function signOut(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    token = null;
    stopLive();
    clearInterval(pollTimer);
    show(byId('app'), false);
    show(byId('sign-out'), false);
    show(byId('login'), true);
    const error = byId('login-error');
    error.textContent = message || '';
    show(error, Boolean(message));
  }

  async function signIn(candidate) {
    token = candidate;
    const reply = await api('/v1/admin/status');
    if (!reply.ok) {
      if (reply.status !== 401) signOut(`The token cannot read the status: ${errorText(reply)}`);
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    show(byId('login'), false);
    show(byId('app'), true);
    show(byId('sign-out'), true);
    renderStatus(reply.body);
    refreshRuleKeys();
    refreshMetrics();
    refreshOperations();
    startLive();
    pollTimer = setInterval(() => { refreshStatus(); refreshMetrics(); refreshOperations(); }, 5000);
  }

  // ---- rules ---------------------------------------------------------------------------------------------------

  async function refreshStatus() {
    const reply = await api('/v1/admin/status');
    if (reply.ok) renderStatus(reply.body);
  }

  function renderStatus(status) {
    byId('server-version').textContent = status.version ? `v${status.version}` : '';
    const rules = status.rules || {};
    const active = rules.active || {};
    const list = clear(byId('rules-status'));
    const row = (name, value) => list.append(el('dt', null, name), el('dd', null, value));
    row('phase', el('span', { class: `badge phase-${rules.phase}`, id: 'rules-phase' }, rules.phase || 'unknown'));
    row('version', active.version || '');
    row('loaded at', when(active.loadedAt));
    row('source', active.source || '');
    const diagnostics = clear(byId('rules-diagnostics'));
    for (const item of rules.error || []) {
      diagnostics.append(el('li', { class: item.severity === 'warning' ? 'warning' : 'error' },
        el('span', { class: 'mono' }, item.path || ''), ' ', item.code || '', ': ', item.message || ''));
    }
  }

  async function refreshRuleKeys() {
    const reply = await api('/v1/rules');
    if (!reply.ok) return;
    const box = clear(byId('rules-keys'));
    for (const section of ['flags', 'triggers', 'specs']) {
      const keys = Object.keys(reply.body[section] || {}).sort();
      box.append(el('h4', null, `${section} (${keys.length})`),
        el('ul', { class: 'keys' }, ...keys.map((key) => el('li', { class: 'mono' }, key))));
    }
  }

  // ---- metrics -------------------------------------------------------------------------------------------------

  // name -> [label, families summed (the first family present wins, so a renamed series still shows)].
  const METRICS = [
    ['Users in memory', ['specd_users']],
    ['Live streams', ['specd_streams', 'specd_live_streams']],
    ['Open connections', ['specd_open_connections']],
    ['Last log seq', ['specd_log_last_seq']],
    ['HTTP requests', ['specd_http_requests_total']],
    ['Evaluations', ['specd_evaluations_total']],
    ['Streams dropped (slow)', ['specd_streams_dropped_slow', 'specd_streams_dropped_slow_total']],
    ['Storage failed', ['specd_storage_failed']],
    ['Resident memory (MiB)', ['process_resident_memory_bytes'], (v) => (v / 1048576).toFixed(1)],
  ];

  function parseMetrics(text) {
    const totals = new Map();
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (!match) continue;
      const value = Number(match[3]);
      if (!Number.isFinite(value)) continue;
      totals.set(match[1], (totals.get(match[1]) || 0) + value);
    }
    return totals;
  }

  async function refreshMetrics() {
    const response = await fetch('/metrics', { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
    if (!response.ok) return;
    const totals = parseMetrics(await response.text());
    const body = clear(byId('metrics').tBodies[0]);
    for (const [label, families, format] of METRICS) {
      const family = families.find((name) => totals.has(name));
      const value = family === undefined ? '—' : format ? format(totals.get(family)) : String(totals.get(family));
      body.append(el('tr', null, el('th', null, label), el('td', { class: 'number' }, value)));
    }
  }

  // ---- operations ----------------------------------------------------------------------------------------------

  async function refreshOperations() {
    const reply = await api('/v1/admin/operations');
    const note = byId('operations-note');
    const body = clear(byId('operations').tBodies[0]);
    if (!reply.ok) {
      note.textContent = isMissingRoute(reply) ? 'Operations are not available on this server.' : errorText(reply);
      show(note, true);
      return;
    }
    const operations = (reply.body && reply.body.operations) || [];
    note.textContent = operations.length ? '' : 'Nothing runs or waits.';
    show(note, operations.length === 0);
    for (const operation of operations) {
      body.append(el('tr', null,
        el('td', null, operation.kind || ''),
        el('td', null, el('span', { class: `badge phase-${operation.state}` }, operation.state || ''),
          operation.error ? el('div', { class: 'error' }, compact(operation.error)) : null),
        el('td', null, when(operation.startedAt), operation.finishedAt ? el('div', { class: 'muted' }, `done ${when(operation.finishedAt)}`) : null),
        el('td', { class: 'mono' }, compact(operation.detail),
          isCancellable(operation) ? el('div', null, el('button', { type: 'button', onclick: () => cancelOperation(operation) }, 'Cancel')) : null)));
    }
  }

  // A pending delayed fire can be cancelled (DELETE /v1/admin/operations/{id}, logged); nothing else can.
  function isCancellable(operation) {
    return operation.id !== undefined && !operation.finishedAt && /fire/i.test(String(operation.kind || ''));
  }

  async function cancelOperation(operation) {
    const detail = compact(operation.detail);
    if (!window.confirm(`Cancel ${operation.kind} ${detail}?`)) return;
    const reply = await api(`/v1/admin/operations/${encodeURIComponent(operation.id)}`, { method: 'DELETE' });
    const note = byId('operations-note');
    note.textContent = reply.ok ? `Cancelled ${operation.kind}.` : errorText(reply);
    show(note, true);
    refreshOperations();
  }

  // ---- user inspector ------------------------------------------------------------------------------------------

  const userPath = (user) => `/v1/users/${encodeURIComponent(user)}`;

  async function inspect(user) {
    currentUser = user;
    historyBefore = null;
    expanded.clear();
    watchUser(user);
    byId('user-name').textContent = user;
    show(byId('user-view'), true);
    await refreshUser();
  }

  function scheduleUserRefresh() {
    clearTimeout(userRefreshTimer);
    userRefreshTimer = setTimeout(refreshUser, 50);
  }

  async function refreshUser() {
    const user = currentUser;
    if (user === null) return;
    const [context, flags] = await Promise.all([api(userPath(user)), api(`${userPath(user)}/flags`)]);
    if (user !== currentUser) return;
    const error = byId('user-error');
    if (!context.ok || !flags.ok) {
      error.textContent = errorText(context.ok ? flags : context);
      show(error, true);
      return;
    }
    show(error, false);
    renderContext(context.body);
    renderFlags(flags.body.flags || {});
    refreshHistory();
  }

  function renderContext(context) {
    const donations = clear(byId('donations').tBodies[0]);
    for (const [event, summary] of Object.entries(context.donations || {}).sort()) {
      donations.append(el('tr', { dataset: { event } },
        el('td', { class: 'mono' }, event), el('td', { class: 'number count' }, summary.count),
        el('td', null, summary.last ? when(summary.last.at) : '')));
    }
    const counters = clear(byId('counters').tBodies[0]);
    for (const [name, value] of Object.entries(context.counters || {}).sort()) {
      counters.append(el('tr', null, el('th', { class: 'mono' }, name), el('td', { class: 'number' }, value)));
    }
    const rest = Object.assign({}, context);
    delete rest.donations;
    delete rest.counters;
    byId('context-rest').textContent = JSON.stringify(rest, null, 2);
  }

  function renderFlags(flags) {
    const body = clear(byId('flags').tBodies[0]);
    let earliest = null;
    for (const key of Object.keys(flags).sort()) {
      const flag = flags[key];
      if (flag.validUntil && (earliest === null || flag.validUntil < earliest)) earliest = flag.validUntil;
      const detail = el('tr', { class: 'explain', hidden: '' }, el('td', { colspan: '5' }));
      const button = el('button', { type: 'button', onclick: () => toggleExplain(key, detail) }, 'Explain');
      if (expanded.has(key)) loadExplain(key, detail);
      body.append(el('tr', { dataset: { key } },
        el('td', { class: 'mono' }, key),
        el('td', { class: 'mono value' }, compact(flag.value)),
        el('td', null, flag.reason || '', flag.variant ? el('div', { class: 'muted' }, `variant ${flag.variant}`) : null),
        el('td', { class: 'valid-until' }, flag.validUntil ? when(flag.validUntil) : '—'),
        el('td', null, button)), detail);
    }
    // An answer may change by the clock alone at validUntil: look again then.
    clearTimeout(validUntilTimer);
    if (earliest !== null) {
      const delay = new Date(earliest).getTime() - Date.now() + 250;
      if (delay > 0 && delay < 2147483647) validUntilTimer = setTimeout(scheduleUserRefresh, delay);
    }
  }

  function toggleExplain(key, row) {
    if (expanded.has(key)) {
      expanded.delete(key);
      row.hidden = true;
      return;
    }
    expanded.add(key);
    loadExplain(key, row);
  }

  async function loadExplain(key, row) {
    const reply = await api(`${userPath(currentUser)}/flags/${encodeURIComponent(key)}?explain=1`);
    const cell = clear(row.firstChild);
    cell.append(reply.ok ? renderExplain(reply.body.explain) : el('p', { class: 'error' }, errorText(reply)));
    row.hidden = false;
  }

  // The evaluation tree: {node, result, why?, children?}; anything else is shown as JSON.
  // The answer may hold one tree or name several ({"when": tree, ...}): each named tree under its name.
  function renderExplain(node) {
    if (node && typeof node === 'object' && 'node' in node) return el('ul', { class: 'tree' }, explainItem(node));
    const named = node && typeof node === 'object' ? Object.entries(node).filter(([, value]) => value && typeof value === 'object' && 'node' in value) : [];
    if (named.length === 0) return el('pre', null, JSON.stringify(node, null, 2));
    return el('div', null, ...named.map(([name, tree]) => el('div', null, el('span', { class: 'muted' }, name),
      el('ul', { class: 'tree' }, explainItem(tree)))));
  }

  function explainItem(node) {
    const item = el('li', { class: node.result ? 'pass' : 'fail' },
      el('span', { class: 'mark' }, node.result ? '✓' : '✗'), ' ', el('span', { class: 'mono' }, compact(node.node)),
      node.why ? el('span', { class: 'muted' }, ` — ${node.why}`) : null);
    if (Array.isArray(node.children) && node.children.length) {
      item.append(el('ul', null, ...node.children.map((child) => explainItem(child))));
    }
    return item;
  }

  // ---- history -------------------------------------------------------------------------------------------------

  function historyItems(body) {
    if (Array.isArray(body)) return body;
    for (const value of Object.values(body || {})) if (Array.isArray(value)) return value;
    return [];
  }

  async function refreshHistory(older) {
    const user = currentUser;
    const query = older && historyBefore !== null ? `?limit=20&before=${encodeURIComponent(historyBefore)}` : '?limit=20';
    const reply = await api(`${userPath(user)}/history${query}`);
    if (user !== currentUser) return;
    const note = byId('history-note');
    const list = byId('history');
    if (!older) clear(list);
    if (!reply.ok) {
      note.textContent = isMissingRoute(reply) ? 'History is not available on this server.' : errorText(reply);
      show(note, true);
      return;
    }
    const records = historyItems(reply.body);
    note.textContent = records.length || older ? '' : 'No history for this user.';
    show(note, !records.length && !older);
    const more = list.querySelector('li.more');
    if (more) more.remove();
    for (const record of records) {
      list.append(renderRecord(record));
      historyBefore = record.seq;
    }
    if (records.length === 20) {
      list.append(el('li', { class: 'more' }, el('button', { type: 'button', onclick: () => refreshHistory(true) }, 'Older')));
    }
  }

  function renderRecord(record) {
    const changes = (record.changed || []).map((change) =>
      el('li', null, el('span', { class: 'mono' }, compact(change.key)), `: ${compact(change.previous)} → ${compact(change.value)}`));
    const fired = (record.fired || []).map((fire) =>
      el('li', null, 'fired ', el('span', { class: 'mono' }, compact(fire.trigger)), fire.at ? ` at ${fire.at}` : ''));
    const result = el('div', { class: 'explain-then' });
    const picker = el('select', { 'aria-label': 'flag to explain' },
      ...Array.from(document.querySelectorAll('#flags tbody tr[data-key]')).map((row) => el('option', { value: row.dataset.key }, row.dataset.key)));
    const explain = el('button', { type: 'button', onclick: () => explainAt(record.seq, picker.value, result) }, 'Explain at this point');
    return el('li', { dataset: { seq: String(record.seq) } },
      el('div', null, el('strong', null, `#${record.seq}`), ' ', el('span', { class: 'muted' }, record.at || ''), ' ',
        el('span', { class: 'mono' }, compact(record.action))),
      changes.length || fired.length ? el('ul', null, ...changes, ...fired) : null,
      el('div', { class: 'row' }, picker, explain), result);
  }

  async function explainAt(seq, key, box) {
    clear(box);
    if (!key) return;
    const reply = await api(`${userPath(currentUser)}/history/${encodeURIComponent(seq)}/explain/${encodeURIComponent(key)}`);
    if (!reply.ok) {
      box.append(el('p', { class: 'error' }, isMissingRoute(reply) ? 'History is not available on this server.' : errorText(reply)));
      return;
    }
    const body = reply.body || {};
    box.append(el('p', null, el('span', { class: 'mono' }, key), ` was ${compact(body.value)} (${body.reason || ''}) at #${seq}`),
      renderExplain(body.explain !== undefined ? body.explain : body));
  }

  // ---- live events ---------------------------------------------------------------------------------------------

  function setLive(state) {
    const badge = byId('live-state');
    badge.textContent = state;
    badge.className = `badge live-${state}`;
    show(badge, true);
  }

  // EventSource cannot send Authorization: each connection trades the token for a one-time ticket, so a reconnect
  // (which an EventSource would otherwise make with its spent ticket) asks for a fresh one and resumes from the last
  // id seen. Returns a handle whose close() ends it for good.
  function liveStream(path, query, handler, onState) {
    let source = null;
    let timer = null;
    let lastId = '';
    let stopped = false;
    const retry = () => {
      onState('reconnecting');
      clearTimeout(timer);
      timer = setTimeout(connect, 1500);
    };
    async function connect() {
      if (stopped || !token) return;
      onState('connecting');
      let reply;
      try {
        reply = await api('/v1/stream-tickets', { method: 'POST', json: { stream: path } });
      } catch (_) {
        reply = { ok: false };
      }
      if (stopped || !token) return;
      if (!reply.ok) { retry(); return; }
      let url = `${path}?${query ? query + '&' : ''}ticket=${encodeURIComponent(reply.body.ticket)}`;
      if (lastId) url += `&lastEventId=${encodeURIComponent(lastId)}`;
      const stream = new EventSource(url);
      source = stream;
      stream.onopen = () => onState('live');
      stream.onerror = () => {
        if (source !== stream) return;
        stream.close();
        source = null;
        if (!stopped) retry();
      };
      for (const type of ['flag', 'trigger', 'context', 'rules', 'reset', 'message']) {
        stream.addEventListener(type, (event) => {
          if (event.lastEventId) lastId = event.lastEventId;
          handler(type, event);
        });
      }
    }
    connect();
    return {
      close() {
        stopped = true;
        clearTimeout(timer);
        if (source) source.close();
        source = null;
      },
    };
  }

  function stopLive() {
    if (globalStream) globalStream.close();
    if (userStream) userStream.close();
    globalStream = null;
    userStream = null;
  }

  // The global stream feeds the event list: flags, triggers, reloads (no contexts: on a busy server those would be a
  // full context per write of every user).
  function startLive() {
    stopLive();
    globalStream = liveStream('/v1/stream', 'events=flag,trigger,rules,reset', onEvent, setLive);
  }

  // The inspected user's own stream, with contexts: a write to them updates the inspector at once, and while it is
  // open specd pushes their clock-driven changes too.
  function watchUser(user) {
    if (userStream) userStream.close();
    userStream = liveStream(`${userPath(user)}/stream`, 'include=context', (type, event) => {
      if (user !== currentUser) return;
      const data = parse(event);
      if (type === 'context' && data && data.user === user && !data.erased) renderContext(data);
      if (type !== 'message') scheduleUserRefresh();
    }, (state) => {
      // A write between loading the user and the stream opening has no event on this stream: read them again then.
      if (state === 'live' && user === currentUser) scheduleUserRefresh();
    });
  }

  function parse(event) {
    try { return JSON.parse(event.data); } catch (_) { return event.data; }
  }

  function onEvent(type, event) {
    const data = parse(event);
    const user = data && typeof data === 'object' ? data.user : undefined;
    let summary = '';
    if (type === 'flag') summary = `${data.key}: ${compact(data.previous)} → ${compact(data.value)}`;
    else if (type === 'trigger') summary = `${data.trigger} fired`;
    else if (type === 'rules') summary = `version ${data.version}`;
    const list = byId('events');
    list.prepend(el('li', { class: `event-${type}` },
      el('span', { class: 'badge' }, type), ' ',
      user !== undefined ? el('span', { class: 'mono user' }, user) : null, ' ', summary,
      el('span', { class: 'muted' }, event.lastEventId ? ` #${event.lastEventId}` : '')));
    while (list.childElementCount > MAX_EVENTS) list.lastElementChild.remove();
    if (type === 'rules' || type === 'reset') {
      refreshStatus();
      refreshRuleKeys();
      if (currentUser !== null) scheduleUserRefresh();
    }
  }

  // ---- wiring --------------------------------------------------------------------------------------------------

  document.addEventListener('DOMContentLoaded', () => {
    byId('login-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const input = byId('token');
      const value = input.value.trim();
      input.value = '';
      if (value) signIn(value);
    });
    byId('user-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const user = byId('user-id').value;
      if (user) inspect(user);
    });
    byId('sign-out').addEventListener('click', () => signOut(''));
    if (token) signIn(token);
    else signOut('');
  });
})();
