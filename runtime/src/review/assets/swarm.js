// A whole swarm flight: every vehicle's planned waypoints (dashed), flown track (solid, from
// its autopilot's broadcast positions on the hub's clock), where its gate refused or changed a
// command (crosses), and at the slider's time each vehicle's position with a circle of half
// the separation (touching circles: the pair is at the limit; red: closer). Below the map's
// neighbour: the closest airborne pair over time against the limit, and a table per vehicle.
(function () {
  var S = SWARM, NS = 'http://www.w3.org/2000/svg', root = document.documentElement;
  var colours = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f', '#d62728'];
  function el(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function colour(i) { return colours[i % colours.length]; }
  // Map bounds: every track and waypoint.
  var xs = [], ys = [];
  S.vehicles.forEach(function (v) {
    v.track.x.forEach(function (x, i) { xs.push(x); ys.push(v.track.y[i]); });
    v.waypoints.forEach(function (w) { xs.push(w[0]); ys.push(w[1]); });
  });
  if (!xs.length) { xs = [0, 100]; ys = [0, 100]; }
  var pad = 30 + S.limit_m, size = 580;
  var x0 = Math.min.apply(null, xs) - pad, x1 = Math.max.apply(null, xs) + pad;
  var y0 = Math.min.apply(null, ys) - pad, y1 = Math.max.apply(null, ys) + pad;
  var scale = size / Math.max(x1 - x0, y1 - y0, 1);
  var height = Math.ceil((y1 - y0) * scale);
  function px(x) { return ((x - x0) * scale).toFixed(1); }
  function py(y) { return ((y1 - y) * scale).toFixed(1); }
  var map = el('svg', { id: 'map-svg', width: size, height: height, viewBox: '0 0 ' + size + ' ' + height });
  // A 50 m grid.
  for (var gx = Math.ceil(x0 / 50) * 50; gx <= x1; gx += 50) map.appendChild(el('line', { x1: px(gx), x2: px(gx), y1: 0, y2: height, stroke: '#eee' }));
  for (var gy = Math.ceil(y0 / 50) * 50; gy <= y1; gy += 50) map.appendChild(el('line', { y1: py(gy), y2: py(gy), x1: 0, x2: size, stroke: '#eee' }));
  var bubbles = [], dots = [], labels = [];
  S.vehicles.forEach(function (v, i) {
    var c = colour(i);
    if (v.waypoints.length) {
      map.appendChild(el('polyline', { class: 'planned', stroke: c, points: v.waypoints.map(function (w) { return px(w[0]) + ',' + py(w[1]); }).join(' ') }));
    }
    map.appendChild(el('polyline', { class: 'flown', stroke: c, 'data-vehicle': v.name, points: v.track.x.map(function (x, k) { return px(x) + ',' + py(v.track.y[k]); }).join(' ') }));
    v.findings.forEach(function (f) {
      var s = 5, X = Number(px(f.x)), Y = Number(py(f.y));
      var p = el('path', { class: 'finding', stroke: c, 'data-vehicle': v.name, d: 'M' + (X - s) + ',' + (Y - s) + 'L' + (X + s) + ',' + (Y + s) + 'M' + (X - s) + ',' + (Y + s) + 'L' + (X + s) + ',' + (Y - s) });
      p.appendChild(el('title', {}, v.name + ' ' + f.outcome + ' at its t = ' + f.t_s.toFixed(1) + ' s: ' + f.ids.join(', ')));
      map.appendChild(p);
    });
    var b = el('circle', { class: 'bubble', fill: c, stroke: c, r: (S.limit_m / 2 * scale).toFixed(1), visibility: 'hidden' });
    var d = el('circle', { r: 4, fill: c, visibility: 'hidden' });
    var l = el('text', { 'font-size': 11, fill: c, visibility: 'hidden' }, v.name);
    map.appendChild(b); map.appendChild(d); map.appendChild(l);
    bubbles.push(b); dots.push(d); labels.push(l);
  });
  map.appendChild(el('text', { x: 6, y: height - 6, 'font-size': 10, fill: '#888' }, 'grid 50 m'));
  document.getElementById('map').appendChild(map);

  // Where vehicle i is at swarm time t (linear between samples; none over a gap).
  function at(v, t) {
    var T = v.track.t, n = T.length;
    if (!n || t < T[0] || t > T[n - 1] + 0.5) return null;
    var lo = 0, hi = n - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (T[mid] <= t) lo = mid; else hi = mid - 1; }
    var b = Math.min(lo + 1, n - 1), span = T[b] - T[lo];
    if (span > 1.0 + 1e-9) return null;
    var f = span > 0 ? Math.min((t - T[lo]) / span, 1) : 0;
    function lerp(a) { return a[lo] + (a[b] - a[lo]) * f; }
    return { x: lerp(v.track.x), y: lerp(v.track.y), z: lerp(v.track.z), air: v.track.airborne[lo] || v.track.airborne[b] };
  }

  // The closest pair over time.
  var W = 560, H = 220, P = 36;
  var chart = el('svg', { id: 'chart-svg', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
  var ds = S.closest.map(function (c) { return c.distance_m; });
  var top = Math.max(S.limit_m * 2, Math.min(Math.max.apply(null, ds.concat([0])), S.limit_m * 8));
  var span = Math.max(S.end_s - S.start_s, 1);
  function cx(t) { return (P + (t - S.start_s) / span * (W - P - 8)).toFixed(1); }
  function cy(d) { return (H - P + 8 - Math.min(d, top) / top * (H - P - 8)).toFixed(1); }
  chart.appendChild(el('line', { x1: P, x2: W - 8, y1: cy(0), y2: cy(0), stroke: '#999' }));
  chart.appendChild(el('line', { x1: P, x2: P, y1: 8, y2: cy(0), stroke: '#999' }));
  chart.appendChild(el('line', { class: 'limit', x1: P, x2: W - 8, y1: cy(S.limit_m), y2: cy(S.limit_m) }));
  chart.appendChild(el('text', { x: 2, y: Number(cy(S.limit_m)) + 4, 'font-size': 10, fill: '#d00' }, S.limit_m.toFixed(0) + ' m'));
  chart.appendChild(el('text', { x: 2, y: 16, 'font-size': 10 }, top.toFixed(0) + ' m'));
  chart.appendChild(el('text', { x: W - 150, y: H - 6, 'font-size': 10 }, 'swarm time, s'));
  chart.appendChild(el('text', { x: P, y: Number(cy(0)) + 14, 'font-size': 10 }, S.start_s.toFixed(0)));
  chart.appendChild(el('text', { x: W - 30, y: Number(cy(0)) + 14, 'font-size': 10 }, S.end_s.toFixed(0)));
  chart.appendChild(el('polyline', { id: 'closest-line', fill: 'none', stroke: '#333', 'stroke-width': 1.5, points: S.closest.map(function (c) { return cx(c.t) + ',' + cy(c.distance_m); }).join(' ') }));
  var cursor = el('line', { class: 'cursor', y1: 8, y2: cy(0) });
  chart.appendChild(cursor);
  document.getElementById('chart').appendChild(chart);

  // The table.
  var table = document.getElementById('vehicles');
  var head = document.createElement('tr');
  ['vehicle', 'system', 'ended', 'intents sent / used', 'gate refusals or changes'].forEach(function (h) { var th = document.createElement('th'); th.textContent = h; head.appendChild(th); });
  table.appendChild(head);
  S.vehicles.forEach(function (v, i) {
    var tr = document.createElement('tr');
    [v.name, v.system_id, v.termination || '—', (v.intents_sent === null ? '—' : v.intents_sent) + ' / ' + (v.intents_taken === null ? '—' : v.intents_taken), v.findings.length + v.findings_left_out].forEach(function (x, k) {
      var td = document.createElement('td'); td.textContent = String(x);
      if (k === 0) td.style.color = colour(i);
      if (k === 2 && !v.success) td.className = 'bad';
      tr.appendChild(td);
    });
    table.appendChild(tr);
  });
  var notes = document.getElementById('notes');
  S.notes.forEach(function (n) { var li = document.createElement('li'); li.textContent = n; notes.appendChild(li); });
  var verdict = document.getElementById('verdict');
  verdict.textContent = S.missions_completed + '/' + S.vehicles.length + ' missions complete · closest pair ' +
    (S.closest_m === null ? '—' : S.closest_m.toFixed(1) + ' m') + ' (limit ' + S.limit_m.toFixed(0) + ' m) · ' +
    S.violations + ' separation violation' + (S.violations === 1 ? '' : 's') + ' in truth';

  var slider = document.getElementById('slider'), clock = document.getElementById('clock'), now = document.getElementById('now-closest');
  slider.min = String(S.start_s); slider.max = String(S.end_s);
  function setTime(t) {
    clock.textContent = 't = ' + t.toFixed(1) + ' s';
    var here = S.vehicles.map(function (v) { return at(v, t); });
    here.forEach(function (p, i) {
      [bubbles[i], dots[i], labels[i]].forEach(function (e) { e.setAttribute('visibility', p ? 'visible' : 'hidden'); });
      if (!p) return;
      bubbles[i].setAttribute('cx', px(p.x)); bubbles[i].setAttribute('cy', py(p.y));
      dots[i].setAttribute('cx', px(p.x)); dots[i].setAttribute('cy', py(p.y));
      labels[i].setAttribute('x', Number(px(p.x)) + 6); labels[i].setAttribute('y', Number(py(p.y)) - 6);
      labels[i].textContent = S.vehicles[i].name + ' ' + p.z.toFixed(0) + ' m';
    });
    var best = null;
    for (var i = 0; i < here.length; i++) for (var j = i + 1; j < here.length; j++) {
      var a = here[i], b = here[j];
      if (!a || !b || !(a.air || b.air)) continue;
      var d = Math.sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
      if (!best || d < best.d) best = { d: d, i: i, j: j };
    }
    bubbles.forEach(function (e, k) { e.setAttribute('class', 'bubble' + (best && best.d < S.limit_m && (k === best.i || k === best.j) ? ' close' : '')); });
    now.textContent = best ? 'closest now: ' + S.vehicles[best.i].name + '–' + S.vehicles[best.j].name + ' ' + best.d.toFixed(1) + ' m' : 'no pair airborne';
    now.className = best && best.d < S.limit_m ? 'bad' : '';
    cursor.setAttribute('x1', cx(t)); cursor.setAttribute('x2', cx(t));
  }
  slider.addEventListener('input', function () { setTime(Number(slider.value)); });
  // Open at the closest approach: what a reviewer looks at first.
  var first = S.closest.reduce(function (m, c) { return !m || c.distance_m < m.distance_m ? c : m; }, null);
  var t0 = first ? first.t : S.end_s;
  slider.value = String(t0);
  setTime(t0);
  window.A3SWARM = { setTime: setTime };
  root.setAttribute('data-rendered', '1');
})();
