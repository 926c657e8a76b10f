(function () {
  'use strict';
  // Recorded text is attacker-controlled: it is only ever put in the page
  // as text (textContent, option labels), never parsed as HTML.
  var ROW_H = 24, OVERSCAN = 12, PRINT_MAX = 2000;
  var F_FAIL = 1, F_EXIT = 2, F_XFAIL = 4, F_NOTIME = 8, F_CUT = 16;

  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  // problem shows a warning; a fatal one means nothing can be shown.
  function problem(msg, fatal) {
    var p = $('problem');
    p.hidden = false;
    p.textContent = msg;
    if (fatal) document.body.dataset.ready = 'error';
  }

  // Control characters, line separators and bidirectional overrides would
  // hide or fake text: they are shown as escapes, as `log` does.
  var UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/g;
  function visible(s) {
    if (!s) return '';
    return s.replace(UNSAFE, function (c) {
      if (c === '\n') return '\\n';
      if (c === '\t') return '\\t';
      if (c === '\r') return '\\r';
      return '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4);
    });
  }

  async function decode() {
    var b64 = $('data').textContent.replace(/\s+/g, '');
    if (typeof DecompressionStream !== 'function') {
      throw new Error('this browser cannot read the report: it needs DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later)');
    }
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  var D, S, C, N, time, line, who, lower;
  var view = new Int32Array(0), selected = -1;

  function prepare(d) {
    D = d; S = d.strings; C = d.cols; N = C.t.length;
    time = new Float64Array(N);
    line = new Int32Array(N);
    who = new Int32Array(N);
    lower = new Array(S.length);
    var t = d.t0, last = new Int32Array(d.sessions.length);
    for (var i = 0; i < N; i++) {
      t += C.t[i];
      time[i] = t;
      var s = C.s[i];
      last[s] += C.ln[i];
      line[i] = last[s];
      who[i] = C.ac[i] || C.ag[i]; // the actor: a hook's agent (claude-code), or who ran an npm script
    }
  }

  function pad(n, w) { var s = String(n); while (s.length < w) s = '0' + s; return s; }
  function fmtTime(ms, utc) {
    var d = new Date(ms);
    if (utc) return d.toISOString().replace('T', ' ').replace('Z', ' UTC');
    return d.getFullYear() + '-' + pad(d.getMonth() + 1, 2) + '-' + pad(d.getDate(), 2) + ' ' +
      pad(d.getHours(), 2) + ':' + pad(d.getMinutes(), 2) + ':' + pad(d.getSeconds(), 2) + '.' + pad(d.getMilliseconds(), 3);
  }
  function fmtDur(ms) {
    if (ms < 1000) return ms + 'ms';
    if (ms < 60000) return (ms / 1000).toFixed(1) + 's';
    return (ms / 60000).toFixed(1) + 'm';
  }
  function str(col, i) { return S[C[col][i]]; }

  // result is what the event's result column says.
  function result(i) {
    var ev = str('ev', i);
    if (C.fl[i] & F_EXIT) {
      var r = String(C.ex[i]);
      if (C.sg[i]) r += ' ' + S[C.sg[i]];
      return r;
    }
    if (C.dc[i]) return S[C.dc[i]];
    if (ev === 'shim_error' || ev === 'extension_error') return 'error';
    if (ev === 'repair') return 'torn';
    return '';
  }

  // --- filters -------------------------------------------------------
  var fSession = $('f-session'), fAgent = $('f-agent'), fDecision = $('f-decision'),
    fEvent = $('f-event'), fFailures = $('f-failures'), fText = $('f-text');

  function options(select, counts, label) {
    var keys = Object.keys(counts).map(Number);
    keys.sort(function (a, b) { return counts[b] - counts[a] || (S[a] < S[b] ? -1 : 1); });
    keys.forEach(function (k) {
      var o = el('option', (label ? label(k) : visible(S[k])) + ' (' + counts[k] + ')');
      o.value = String(k);
      select.appendChild(o);
    });
  }

  function buildFilters() {
    var agents = {}, decisions = {}, events = {}, none = 0;
    for (var i = 0; i < N; i++) {
      if (who[i]) agents[who[i]] = (agents[who[i]] || 0) + 1;
      if (C.dc[i]) decisions[C.dc[i]] = (decisions[C.dc[i]] || 0) + 1; else none++;
      events[C.ev[i]] = (events[C.ev[i]] || 0) + 1;
    }
    D.sessions.forEach(function (s, k) {
      var o = el('option', visible(s.id) + ' (' + s.events + ')');
      o.value = String(k);
      fSession.appendChild(o);
    });
    options(fAgent, agents);
    options(fDecision, decisions);
    if (none) {
      var o = el('option', 'no decision (' + none + ')');
      o.value = 'none';
      fDecision.appendChild(o);
    }
    options(fEvent, events);
    [fSession, fAgent, fDecision, fEvent, fFailures].forEach(function (f) { f.addEventListener('change', refilter); });
    var timer = 0;
    fText.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(refilter, 150); });
    $('filters').addEventListener('submit', function (e) { e.preventDefault(); });
  }

  function lowerOf(k) {
    var v = lower[k];
    if (v === undefined) v = lower[k] = S[k].toLowerCase();
    return v;
  }

  function refilter() {
    var fs = fSession.value === '' ? -1 : +fSession.value;
    var fa = fAgent.value === '' ? -1 : +fAgent.value;
    var fd = fDecision.value, fdk = fd === '' || fd === 'none' ? -1 : +fd;
    var fe = fEvent.value === '' ? -1 : +fEvent.value;
    var ff = fFailures.checked;
    var q = fText.value.trim().toLowerCase();
    var out = new Int32Array(N), n = 0;
    for (var i = 0; i < N; i++) {
      if (fs >= 0 && C.s[i] !== fs) continue;
      if (fa >= 0 && who[i] !== fa) continue;
      if (fd === 'none' ? C.dc[i] !== 0 : fdk >= 0 && C.dc[i] !== fdk) continue;
      if (fe >= 0 && C.ev[i] !== fe) continue;
      if (ff && !(C.fl[i] & F_FAIL)) continue;
      if (q && lowerOf(C.tx[i]).indexOf(q) < 0 && lowerOf(C.ru[i]).indexOf(q) < 0 && lowerOf(C.rs[i]).indexOf(q) < 0) continue;
      out[n++] = i;
    }
    view = out.subarray(0, n);
    $('shown').textContent = n + ' of ' + N + ' events';
    var tl = $('timeline');
    tl.dataset.count = String(n);
    $('spacer').style.height = (n * ROW_H) + 'px';
    tl.scrollTop = 0;
    markSessions(fs);
    render();
  }

  // --- the virtual timeline -----------------------------------------------
  var rowsEl = $('rows'), pool = [], pending = false;
  var CELLS = ['c-time', 'c-ses', 'c-ev', 'c-ag', 'c-tool', 'c-dec', 'c-rule', 'c-dur', 'c-text'];

  function makeRow() {
    var r = el('div', null, 'row');
    r.setAttribute('role', 'listitem');
    CELLS.forEach(function (c) { r.appendChild(el('span', '', c)); });
    r.addEventListener('click', function () { select(+r.dataset.i); });
    return r;
  }

  function fill(r, i) {
    var c = r.children, dec = C.dc[i] ? S[C.dc[i]] : '', ev = str('ev', i);
    var cls = 'row ev-' + ev;
    if (dec === 'deny' || dec === 'ask') cls += ' ' + dec;
    if (i === selected) cls += ' sel';
    r.className = cls;
    r.dataset.i = String(i);
    c[0].textContent = (C.fl[i] & F_NOTIME) ? '-' : fmtTime(time[i]);
    c[1].textContent = visible(D.sessions[C.s[i]].id);
    c[1].title = c[1].textContent;
    c[2].textContent = ev;
    c[3].textContent = visible(S[who[i]]);
    c[4].textContent = visible(str('tl', i));
    var res = result(i);
    c[5].textContent = visible(res);
    c[5].className = 'c-dec' + (dec ? ' dec-' + dec : '') + ((C.fl[i] & F_FAIL) ? ' fail' : '') + ((C.fl[i] & F_XFAIL) ? ' xfail' : '');
    c[6].textContent = visible(str('ru', i));
    c[6].title = c[6].textContent;
    c[7].textContent = (C.fl[i] & F_EXIT) ? fmtDur(C.du[i]) : '';
    c[8].textContent = visible(str('tx', i));
    c[8].title = c[8].textContent;
  }

  function render() {
    pending = false;
    var tl = $('timeline'), n = view.length;
    var first = Math.max(0, Math.floor(tl.scrollTop / ROW_H) - OVERSCAN);
    var last = Math.min(n, Math.ceil((tl.scrollTop + tl.clientHeight) / ROW_H) + OVERSCAN);
    var need = Math.max(0, last - first);
    while (pool.length < need) pool.push(makeRow());
    while (rowsEl.children.length > need) rowsEl.removeChild(rowsEl.lastChild);
    for (var k = 0; k < need; k++) {
      fill(pool[k], view[first + k]);
      if (pool[k].parentNode !== rowsEl) rowsEl.appendChild(pool[k]);
    }
    rowsEl.style.transform = 'translateY(' + (first * ROW_H) + 'px)';
    var empty = $('empty');
    if (n === 0 && !empty) {
      empty = el('p', 'No events match the filters.', 'empty');
      empty.id = 'empty';
      tl.appendChild(empty);
    } else if (n > 0 && empty) {
      empty.remove();
    }
  }
  function schedule() {
    if (!pending) { pending = true; requestAnimationFrame(render); }
  }

  // --- details ---------------------------------------------------------
  function select(i) {
    selected = i;
    render();
    var box = $('details'), dl = $('d-list');
    dl.replaceChildren();
    box.hidden = false;
    var s = D.sessions[C.s[i]];
    $('d-where').textContent = visible(s.file) + ':' + line[i];
    function add(k, v) {
      if (v === '' || v === undefined || v === null) return;
      dl.appendChild(el('dt', k));
      dl.appendChild(el('dd', visible(String(v))));
    }
    add('time', (C.fl[i] & F_NOTIME) ? 'no readable timestamp' : fmtTime(time[i], true) + '  (' + fmtTime(time[i]) + ' local)');
    add('session', s.id);
    add('event', str('ev', i));
    add('actor', str('ac', i));
    add('agent', str('ag', i));
    add("agent's event", str('ne', i));
    add((C.fl[i] & F_EXIT) ? 'npm script' : 'tool', str('tl', i));
    add('decision', str('dc', i));
    add('rule', str('ru', i));
    add('reason', str('rs', i));
    add(str('ev', i) === 'prompt' ? 'prompt' : 'command', str('tx', i));
    if (C.fl[i] & F_EXIT) {
      add('exit status', C.ex[i] + (C.sg[i] ? ' (' + S[C.sg[i]] + ')' : ''));
      add('duration', fmtDur(C.du[i]) + ' (' + C.du[i] + ' ms)');
    }
    add('effects', str('ef', i));
    add('extension runs', str('xr', i));
    add('cwd', str('cw', i));
    var notes = [];
    if (C.fl[i] & F_FAIL) notes.push('a failure');
    if (C.fl[i] & F_XFAIL) notes.push('an extension failed');
    if (C.fl[i] & F_CUT) notes.push('text cut to ' + D.max_text + ' bytes (agent-shell log --json has it whole)');
    add('notes', notes.join('; '));
  }

  function moveSelection(delta) {
    if (!view.length) return;
    var pos = selected < 0 ? -1 : indexInView(selected);
    pos = Math.min(view.length - 1, Math.max(0, pos + delta));
    var tl = $('timeline');
    var top = pos * ROW_H;
    if (top < tl.scrollTop) tl.scrollTop = top;
    else if (top + ROW_H > tl.scrollTop + tl.clientHeight) tl.scrollTop = top + ROW_H - tl.clientHeight;
    select(view[pos]);
  }
  function indexInView(i) {
    var lo = 0, hi = view.length - 1; // view is in event order
    while (lo <= hi) {
      var m = (lo + hi) >> 1;
      if (view[m] === i) return m;
      if (view[m] < i) lo = m + 1; else hi = m - 1;
    }
    return -1;
  }

  // --- sessions ----------------------------------------------------------
  var sessionRows = [];
  function buildSessions() {
    var k, ns = D.sessions.length;
    var denied = new Int32Array(ns), asked = new Int32Array(ns), failures = new Int32Array(ns);
    var first = new Float64Array(ns).fill(NaN), last = new Float64Array(ns).fill(NaN);
    var agents = D.sessions.map(function () { return {}; });
    var deny = S.indexOf('deny'), ask = S.indexOf('ask');
    for (var i = 0; i < N; i++) {
      k = C.s[i];
      if (C.dc[i] === deny) denied[k]++;
      else if (C.dc[i] === ask) asked[k]++;
      if (C.fl[i] & F_FAIL) failures[k]++;
      if (who[i]) agents[k][who[i]] = 1;
      if (!(C.fl[i] & F_NOTIME)) {
        if (!(time[i] >= first[k])) first[k] = time[i];
        if (!(time[i] <= last[k])) last[k] = time[i];
      }
    }
    var body = $('sessions').tBodies[0];
    D.sessions.forEach(function (s, k) {
      var tr = el('tr');
      tr.appendChild(el('td', visible(s.id), 'id'));
      tr.appendChild(el('td', Object.keys(agents[k]).map(function (a) { return visible(S[a]); }).join(', ')));
      tr.appendChild(el('td', isNaN(first[k]) ? '-' : fmtTime(first[k])));
      tr.appendChild(el('td', isNaN(last[k]) ? '-' : fmtTime(last[k])));
      tr.appendChild(el('td', String(s.events), 'n'));
      tr.appendChild(el('td', String(denied[k]), 'n' + (denied[k] ? ' bad' : '')));
      tr.appendChild(el('td', String(asked[k]), 'n'));
      tr.appendChild(el('td', String(failures[k]), 'n' + (failures[k] ? ' bad' : '')));
      var ch = s.chain, text, cls;
      if (!ch.checked) { text = 'not checked: ' + ch.problem; cls = 'bad'; }
      else if (ch.ok) { text = 'verified (' + ch.events + ' lines)'; cls = 'ok'; }
      else { text = 'broken at line ' + ch.line + ': ' + ch.problem; cls = 'bad'; }
      if (ch.repairs) text += '; ' + ch.repairs + ' repaired torn line(s)';
      tr.appendChild(el('td', visible(text), cls));
      var dm = s.damaged;
      tr.appendChild(el('td', dm.count ? dm.count + ' (first at line ' + dm.first_line + ': ' + visible(dm.first_error) + ')' : '0', dm.count ? 'bad' : ''));
      tr.addEventListener('click', function () {
        fSession.value = fSession.value === String(k) ? '' : String(k);
        refilter();
      });
      body.appendChild(tr);
      sessionRows.push(tr);
    });
    if (!D.sessions.length) {
      var tr = el('tr'), td = el('td', 'No sessions recorded.', 'empty');
      td.colSpan = 10;
      tr.appendChild(td);
      body.appendChild(tr);
    }
  }
  function markSessions(k) {
    sessionRows.forEach(function (tr, j) { tr.classList.toggle('on', j === k); });
  }

  // --- printing: the filtered events as a plain table ---------------------
  function beforePrint() {
    var t = $('print');
    t.replaceChildren();
    var n = Math.min(view.length, PRINT_MAX);
    var cap = el('caption', view.length > n ? 'The first ' + n + ' of ' + view.length + ' events shown; narrow the filters to print others.' : view.length + ' events');
    t.appendChild(cap);
    var head = el('tr');
    ['time', 'session', 'event', 'agent', 'tool', 'result', 'rule', 'duration', 'command / prompt / reason'].forEach(function (h) { head.appendChild(el('th', h)); });
    t.appendChild(el('thead')).appendChild(head);
    var body = t.appendChild(el('tbody'));
    for (var k = 0; k < n; k++) {
      var i = view[k], dec = C.dc[i] ? S[C.dc[i]] : '';
      var tr = el('tr', null, dec === 'deny' || dec === 'ask' ? dec : '');
      tr.appendChild(el('td', (C.fl[i] & F_NOTIME) ? '-' : fmtTime(time[i])));
      tr.appendChild(el('td', visible(D.sessions[C.s[i]].id)));
      tr.appendChild(el('td', str('ev', i)));
      tr.appendChild(el('td', visible(S[who[i]])));
      tr.appendChild(el('td', visible(str('tl', i))));
      tr.appendChild(el('td', visible(result(i)), (C.fl[i] & F_FAIL) ? 'fail' : ''));
      tr.appendChild(el('td', visible(str('ru', i))));
      tr.appendChild(el('td', (C.fl[i] & F_EXIT) ? fmtDur(C.du[i]) : ''));
      var text = visible(str('tx', i)), reason = visible(str('rs', i));
      tr.appendChild(el('td', reason ? text + '\n— ' + reason : text, 'text'));
      body.appendChild(tr);
    }
  }

  // --- start ---------------------------------------------------------------
  async function main() {
    var d, began = performance.now();
    try {
      d = await decode();
    } catch (e) {
      problem('The report\'s data cannot be read: ' + e.message, true);
      return;
    }
    prepare(d);
    var zone = '';
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (e) { /* no zone name */ }
    var sessions = d.sessions.length, damaged = 0;
    d.sessions.forEach(function (s) { damaged += s.damaged.count; });
    var meta = N + ' events in ' + sessions + ' session' + (sessions === 1 ? '' : 's');
    if (d.since) meta += ' since ' + d.since;
    if (d.generated) meta += '; generated ' + d.generated;
    if (d.generator) meta += ' by agent-shell ' + d.generator;
    meta += '; times are local' + (zone ? ' (' + zone + ')' : '') + '.';
    $('meta').textContent = visible(meta);
    if (damaged) problem(damaged + ' damaged line(s) could not be read and are not in the timeline: see the sessions table.');
    buildSessions();
    buildFilters();
    var tl = $('timeline');
    tl.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    tl.addEventListener('keydown', function (e) {
      if (e.key === 'ArrowDown' || e.key === 'j') { moveSelection(1); e.preventDefault(); }
      if (e.key === 'ArrowUp' || e.key === 'k') { moveSelection(-1); e.preventDefault(); }
    });
    window.addEventListener('beforeprint', beforePrint);
    window.addEventListener('afterprint', function () { $('print').replaceChildren(); });
    refilter();
    document.body.dataset.ready = '1';
    // For the browser test: when the first rows were drawn, since the
    // navigation started, and how long the script took of it.
    document.body.dataset.renderMs = String(Math.round(performance.now()));
    document.body.dataset.scriptMs = String(Math.round(performance.now() - began));
  }
  main();
})();
