// The dashboard page: renders the facts the server pushes (server-sent events). Everything shown
// comes from the cluster, and agent messages are hostile text: it is only ever set as textContent,
// never as HTML.
// The token is the first segment of the page's path: relative URLs below carry it.
const token = location.pathname.split('/')[1] ?? '';
const headers = { 'X-Nodenet-Token': token };

/** Each state's symbol and legend: the colour is never the only mark. */
const STATES = {
  'up-to-date': '✓',
  'unchanged-moved': '=',
  'rolling-out': '↻',
  soaking: '~',
  queued: '·',
  held: '‖',
  'rolling-back': '↶',
  unavailable: '!',
  'misconfigured-agent': '⚙',
  failed: '✗',
  'restore-failed': '‼',
  'no-config': '∅',
};

/** What the legend says where the state's name alone is not clear. */
const LEGEND = {
  'unchanged-moved': 'unchanged-moved (host config unchanged by the revision: moved without a slot)',
  soaking: 'soaking (applied, in its confirm window)',
  'misconfigured-agent': 'misconfigured agent (its self-check fails: fix its configuration)',
};

const $ = (id) => document.getElementById(id);
const el = (tag, text, className) => {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
};

let facts = null;
/** node name -> { button, wave } */
const cells = new Map();
/** wave value -> { section, title, box } */
const waves = new Map();
let selected = null;
let updates = 0;
let picked = false;

function renderLegend() {
  const legend = $('legend');
  for (const [state, symbol] of Object.entries(STATES)) {
    const li = el('li');
    const mark = el('span', symbol, `cell s-${state}`);
    mark.setAttribute('aria-hidden', 'true');
    li.dataset.state = state;
    li.append(mark, ' ', LEGEND[state] ?? state);
    legend.append(li);
  }
}

function waveGroup(wave) {
  let g = waves.get(wave);
  if (g) return g;
  const section = el('div', undefined, 'wave');
  const title = el('h3');
  const box = el('div', undefined, 'cells');
  box.setAttribute('role', 'group');
  section.append(title, box);
  g = { section, title, box };
  waves.set(wave, g);
  // Groups in label order, the unlabelled last.
  const order = [...waves.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)));
  const grid = $('grid');
  const after = order.slice(order.indexOf(wave) + 1).find((w) => waves.get(w).section.isConnected);
  grid.insertBefore(section, after === undefined ? null : waves.get(after).section);
  return g;
}

function waveTitles() {
  for (const [wave, g] of waves) {
    const n = g.box.childElementCount;
    if (n === 0) {
      g.section.remove();
      waves.delete(wave);
      continue;
    }
    const label = facts?.waveLabel;
    g.title.textContent = label
      ? `${label}=${wave === '' ? '(unlabelled)' : wave} (${n})`
      : `all nodes (${n})`;
    g.box.setAttribute('aria-label', g.title.textContent);
  }
}

function setCell(c) {
  let entry = cells.get(c.node);
  if (!entry) {
    const button = el('button', undefined, 'cell');
    button.type = 'button';
    button.dataset.node = c.node;
    button.addEventListener('click', () => showNode(c.node));
    entry = { button, wave: null };
    cells.set(c.node, entry);
  }
  const b = entry.button;
  b.className = `cell s-${c.state}${selected === c.node ? ' selected' : ''}`;
  b.dataset.state = c.state;
  b.textContent = STATES[c.state] ?? '?';
  b.title = `${c.node}\n${c.line}`;
  b.setAttribute('aria-label', `${c.node}: ${c.line}`);
  if (entry.wave !== c.wave) {
    entry.wave = c.wave;
    waveGroup(c.wave).box.append(b);
  }
}

function removeCell(node) {
  cells.get(node)?.button.remove();
  cells.delete(node);
}

function renderRollout(f) {
  const s = f.status;
  const list = (id, items) => $(id).replaceChildren(...items.map((t) => el('li', t)));
  if (!s) {
    $('revision').textContent = 'No revision yet (are any inputs applied?)';
    for (const id of ['phase', 'counts', 'disruption', 'wave', 'next']) $(id).textContent = '';
    list('reasons', []);
    list('attention', f.heldBack);
    return;
  }
  const c = s.counts;
  $('revision').textContent = `Revision ${s.revision.name} (number ${s.revision.number})`;
  $('phase').textContent = `State: ${s.phase}${s.inForce ? ` (in force: ${s.inForce})` : ''}${
    f.fleetPaused ? ' · fleet paused' : ''
  }`;
  $('phase').dataset.phase = s.phase;
  const pct = c.total > 0 ? Math.round((100 * Math.min(c.ready, c.total)) / c.total) : 0;
  $('progress-bar').style.width = `${pct}%`;
  $('progress').setAttribute('aria-valuenow', String(pct));
  $('progress').setAttribute('aria-valuemax', '100');
  $('counts').textContent =
    `ready ${c.ready}, ongoing ${c.ongoing}, queued ${c.queued}, failed ${c.failed}, degraded ${c.degraded}, total ${c.total}` +
    (s.unchanged ? ` · unchanged ${s.unchanged}` : '');
  // The line `kubectl nodenet status` prints, once the configurator has written the host preview.
  $('disruption').textContent = f.disruption ? `Hosts: ${f.disruption}` : '';
  $('wave').textContent = s.wave
    ? `Wave: ${s.wave.label}=${s.wave.values.length ? s.wave.values.join(', ') : '(none in progress)'}`
    : '';
  list(
    'reasons',
    s.reasons.map((r) => `Why: ${r}`),
  );
  list(
    'attention',
    s.attention.map((a) => `Attention: ${a}`),
  );
  $('next').textContent = `Next: ${s.next}`;
}

function renderHistory(rows) {
  $('timeline').replaceChildren(
    ...rows.map((r) => {
      const li = el('li', undefined, `result-${r.result}`);
      const invalid = r.result === 'Invalid' || r.result === 'Aborted';
      const parts = [
        `#${r.number} ${r.name}: ${r.result}${r.inForce ? ' (in force)' : ''}`,
        invalid ? `failed ${r.failed}` : `ready ${r.ready}/${r.total}, failed ${r.failed}`,
        r.startedAt ? `started ${r.startedAt}` : '',
        r.completedAt ? `completed ${r.completedAt}` : '',
        r.retryOf !== undefined ? `retry of ${r.retryOf}` : '',
        r.retriedBy !== undefined ? `retried as ${r.retriedBy}` : r.retryRequested ? 'retry requested' : '',
        r.reason ?? '',
      ];
      li.textContent = parts.filter(Boolean).join(' · ');
      return li;
    }),
  );
  const select = $('control-revision');
  // The desired revision, until the person picks another one.
  const keep = picked ? select.value : facts?.status?.revision.name;
  select.replaceChildren(...rows.map((r) => el('option', `${r.number} ${r.name} (${r.result})`)));
  rows.forEach((r, i) => (select.options[i].value = r.name));
  if (keep && rows.some((r) => r.name === keep)) select.value = keep;
}

function renderInputs(inputs) {
  $('input-rows').replaceChildren(
    ...inputs.map((i) => {
      const tr = el('tr');
      tr.append(el('td', `${i.kind}/${i.name}`));
      for (const type of ['Accepted', 'Applied', 'Selected']) {
        const c = i.conditions.find((x) => x.type === type);
        const td = el('td', c ? `${c.status} (${c.reason})` : '');
        if (c) td.title = c.message;
        tr.append(td);
      }
      return tr;
    }),
  );
}

function renderAll(f) {
  facts = f;
  renderRollout(f);
  renderHistory(f.history);
  renderInputs(f.inputs);
}

function onSnapshot(f) {
  for (const node of [...cells.keys()]) removeCell(node);
  renderAll(f);
  const grid = $('grid');
  grid.hidden = true; // one layout for the whole fleet
  for (const c of f.cells) setCell(c);
  grid.hidden = false;
  waveTitles();
  document.body.dataset.updates = String(++updates);
}

function onUpdate(u) {
  renderAll({ ...u, cells: [] });
  for (const node of u.removed) removeCell(node);
  for (const c of u.changed) setCell(c);
  waveTitles();
  if (selected && u.changed.some((c) => c.node === selected)) void showNode(selected);
  document.body.dataset.updates = String(++updates);
}

async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? headers : { ...headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(data.message ?? `HTTP ${res.status}`);
  return data;
}

async function showNode(node) {
  cells.get(selected)?.button.classList.remove('selected');
  selected = node;
  cells.get(node)?.button.classList.add('selected');
  const section = $('detail');
  section.hidden = false;
  $('detail-title').textContent = `Node ${node}`;
  try {
    const d = await api(`api/node?name=${encodeURIComponent(node)}`);
    if (selected !== node) return;
    $('detail-why').textContent = d.why;
    const dl = $('detail-status');
    const rows = [];
    const st = d.status ?? {};
    for (const [key, label] of [
      ['configStatus', 'Agent report'],
      ['failureCause', 'Failure cause'],
      ['message', 'Message'],
      ['lastUpdate', 'Last update'],
    ]) {
      if (st[key] === undefined) continue;
      rows.push(el('dt', label), el('dd', String(st[key])));
    }
    if (st.observed) rows.push(el('dt', 'Observed'), el('dd', JSON.stringify(st.observed, null, 1)));
    if (!d.status) rows.push(el('dt', 'NodeConfig'), el('dd', 'none'));
    dl.replaceChildren(...rows);
  } catch (err) {
    $('detail-why').textContent = String(err.message ?? err);
    $('detail-status').replaceChildren();
  }
}

function controlRequest(button) {
  const verb = button.dataset.verb;
  return button.dataset.scope === 'fleet' ? { verb } : { verb, revision: $('control-revision').value };
}

function confirmDialog(text) {
  const dialog = $('confirm');
  $('confirm-text').textContent = text;
  return new Promise((resolve) => {
    const done = (answer) => {
      $('confirm-ok').onclick = null;
      $('confirm-cancel').onclick = null;
      dialog.close();
      resolve(answer);
    };
    $('confirm-ok').onclick = () => done(true);
    $('confirm-cancel').onclick = () => done(false);
    dialog.oncancel = () => done(false);
    dialog.showModal();
    $('confirm-cancel').focus();
  });
}

async function control(button) {
  const result = $('control-result');
  const request = controlRequest(button);
  try {
    const { text } = await api('api/confirm', request);
    if (!(await confirmDialog(text))) {
      result.textContent = 'cancelled';
      result.className = '';
      result.dataset.outcome = 'cancelled';
      return;
    }
    const answer = await api('api/control', request);
    result.textContent = answer.message;
    result.className = answer.ok ? '' : 'refused';
    result.dataset.outcome = answer.ok ? 'done' : 'refused';
  } catch (err) {
    result.textContent = String(err.message ?? err);
    result.className = 'refused';
    result.dataset.outcome = 'error';
  }
}

function connect() {
  const status = $('connection');
  const events = new EventSource('events');
  events.addEventListener('open', () => (status.textContent = 'live'));
  events.addEventListener('error', () => (status.textContent = 'reconnecting…'));
  events.addEventListener('snapshot', (e) => onSnapshot(JSON.parse(e.data)));
  events.addEventListener('update', (e) => onUpdate(JSON.parse(e.data)));
}

renderLegend();
$('control-revision').addEventListener('change', () => (picked = true));
for (const b of document.querySelectorAll('#controls button[data-verb]'))
  b.addEventListener('click', () => void control(b));
connect();
