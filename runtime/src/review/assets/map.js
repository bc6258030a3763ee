// Top-down map in the scenario's frame (x east, y north, metres): geofence, no-fly zones
// (moving ones placed at the cursor time), emergency sites, home, waypoints, the flown path
// coloured by who flew it, other aircraft's tracks, and a marker per denied or clamped verdict.
A3.views.push((function () {
  var size = 560, pad = 24, scale = 1, x0 = 0, y1 = 0;
  var moving = [], aircraft = [], markers = [], vehicle = null, data = null;
  function px(x) { return pad + (x - x0) * scale; }
  function py(y) { return pad + (y1 - y) * scale; }
  function pts(xs, ys) {
    var out = [];
    for (var i = 0; i < xs.length; i++) out.push(px(xs[i]).toFixed(1) + ',' + py(ys[i]).toFixed(1));
    return out.join(' ');
  }
  function bounds(d) {
    var xs = [], ys = [];
    function add(x, y) { if (isFinite(x) && isFinite(y)) { xs.push(x); ys.push(y); } }
    d.frame.geofence.forEach(function (a) {
      if (a.type === 'polygon') a.points.forEach(function (p) { add(p[0], p[1]); });
      else { add(a.center[0] - a.radius_m, a.center[1] - a.radius_m); add(a.center[0] + a.radius_m, a.center[1] + a.radius_m); }
    });
    d.truth.x.forEach(function (x, i) { add(x, d.truth.y[i]); });
    d.frame.waypoints.forEach(function (w) { add(w[0], w[1]); });
    d.frame.emergency_sites.forEach(function (w) { add(w[0], w[1]); });
    if (d.frame.home) add(d.frame.home[0], d.frame.home[1]);
    if (!xs.length) { xs = [0, 100]; ys = [0, 100]; }
    return [Math.min.apply(null, xs), Math.min.apply(null, ys), Math.max.apply(null, xs), Math.max.apply(null, ys)];
  }
  function area(svg, a, cls) {
    if (a.type === 'polygon') {
      svg.appendChild(A3.svg('polygon', { class: cls, points: pts(a.points.map(function (p) { return p[0]; }), a.points.map(function (p) { return p[1]; })) }));
      return null;
    }
    var c = A3.svg('circle', { class: cls + (a.vel_xy ? ' moving' : ''), cx: px(a.center[0]), cy: py(a.center[1]), r: a.radius_m * scale });
    var title = A3.svg('title');
    title.textContent = cls === 'nfz' ? 'no-fly ' + (a.floor_m !== undefined ? a.floor_m + '–' + a.ceiling_m + ' m' : '') : 'geofence';
    c.appendChild(title);
    svg.appendChild(c);
    return a.vel_xy ? { el: c, a: a } : null;
  }
  function cross(x, y) {
    var s = 6;
    return 'M' + (x - s) + ',' + (y - s) + 'L' + (x + s) + ',' + (y + s) + 'M' + (x - s) + ',' + (y + s) + 'L' + (x + s) + ',' + (y - s);
  }
  function init(d) {
    data = d;
    var b = bounds(d);
    var w = Math.max(b[2] - b[0], 1), h = Math.max(b[3] - b[1], 1);
    scale = (size - 2 * pad) / Math.max(w, h);
    x0 = b[0]; y1 = b[3];
    var height = Math.ceil(h * scale + 2 * pad);
    var svg = A3.svg('svg', { viewBox: '0 0 ' + size + ' ' + height, id: 'map-svg' });
    d.frame.geofence.forEach(function (a) { area(svg, a, 'fence'); });
    d.frame.no_fly.forEach(function (a) { var m = area(svg, a, 'nfz'); if (m) moving.push(m); });
    var wps = d.frame.waypoints;
    if (wps.length) {
      svg.appendChild(A3.svg('polyline', { class: 'wp-line', points: pts(wps.map(function (p) { return p[0]; }), wps.map(function (p) { return p[1]; })) }));
      wps.forEach(function (p, i) {
        svg.appendChild(A3.svg('circle', { class: 'wp', cx: px(p[0]), cy: py(p[1]), r: 5 }));
        var l = A3.svg('text', { class: 'wp-label', x: px(p[0]) + 7, y: py(p[1]) - 7 });
        l.textContent = 'WP' + i + ' ' + p[2].toFixed(0) + ' m';
        svg.appendChild(l);
      });
    }
    d.frame.emergency_sites.forEach(function (p) {
      svg.appendChild(A3.svg('rect', { class: 'site', x: px(p[0]) - 5, y: py(p[1]) - 5, width: 10, height: 10 }));
      var l = A3.svg('text', { class: 'site-label', x: px(p[0]) + 7, y: py(p[1]) + 4 });
      l.textContent = 'E';
      svg.appendChild(l);
    });
    if (d.frame.home) {
      var hx = px(d.frame.home[0]), hy = py(d.frame.home[1]);
      svg.appendChild(A3.svg('path', { class: 'home', d: 'M' + hx + ',' + (hy - 8) + 'L' + (hx + 7) + ',' + (hy + 6) + 'L' + (hx - 7) + ',' + (hy + 6) + 'Z' }));
      var hl = A3.svg('text', { class: 'site-label', x: hx + 9, y: hy + 4 });
      hl.textContent = 'home';
      svg.appendChild(hl);
    }
    [['traffic', d.frame.traffic], ['peer', d.frame.peers]].forEach(function (kind) {
      kind[1].forEach(function (tr) {
        svg.appendChild(A3.svg('polyline', { class: 'track ' + kind[0], points: pts(tr.x, tr.y) }));
        var c = A3.svg('circle', { class: 'ac ' + kind[0], r: 5 });
        var title = A3.svg('title');
        title.textContent = tr.name;
        c.appendChild(title);
        svg.appendChild(c);
        aircraft.push({ el: c, tr: tr });
      });
    });
    // The flown path: one polyline per run of samples flown by the same party, every truth
    // sample in exactly one of them; thin joins bridge the runs.
    var tr = d.truth, path = A3.svg('g', { id: 'flown-path', 'data-points': tr.x.length });
    var start = 0;
    for (var i = 1; i <= tr.x.length; i++) {
      if (i === tr.x.length || tr.flyer[i] !== tr.flyer[start]) {
        var who = tr.flyer[start] === 1 ? 'watchdog' : 'agent';
        path.appendChild(A3.svg('polyline', { class: 'flown ' + who, 'data-n': i - start, points: pts(tr.x.slice(start, i), tr.y.slice(start, i)) }));
        if (i < tr.x.length) {
          path.appendChild(A3.svg('line', { class: 'join', x1: px(tr.x[i - 1]), y1: py(tr.y[i - 1]), x2: px(tr.x[i]), y2: py(tr.y[i]) }));
        }
        start = i;
      }
    }
    svg.appendChild(path);
    d.verdicts.forEach(function (v) {
      if (v.outcome === 'approved') return;
      var spot = v.target || v.at;
      if (!spot) spot = d.frame.home || [0, 0];
      var g = A3.svg('g', { class: 'verdict-marker', 'data-outcome': v.outcome, 'data-turn': v.turn, 'data-action': v.action });
      if (v.at && v.target) g.appendChild(A3.svg('line', { x1: px(v.at[0]), y1: py(v.at[1]), x2: px(v.target[0]), y2: py(v.target[1]) }));
      g.appendChild(A3.svg('path', { d: cross(px(spot[0]), py(spot[1])) }));
      var title = A3.svg('title');
      title.textContent = v.outcome + ' at ' + v.t_s.toFixed(1) + ' s, turn ' + v.turn + ' action ' + v.action + ' ' + (v.tool || '') + '\n' +
        v.findings.map(function (f) { return f.id + ': ' + f.reason; }).join('\n');
      g.appendChild(title);
      g.addEventListener('click', function (e) { e.stopPropagation(); A3.setTime(v.t_s); });
      svg.appendChild(g);
      markers.push({ el: g, t: v.t_s });
    });
    vehicle = A3.svg('circle', { class: 'vehicle', r: 6 });
    svg.appendChild(vehicle);
    svg.addEventListener('click', function (e) {
      // Jump to the truth sample nearest the clicked point.
      var r = svg.getBoundingClientRect(), k = size / r.width;
      var mx = (e.clientX - r.left) * k, my = (e.clientY - r.top) * k, best = -1, bd = Infinity;
      for (var j = 0; j < tr.x.length; j++) {
        var dx = px(tr.x[j]) - mx, dy = py(tr.y[j]) - my, dd = dx * dx + dy * dy;
        if (dd < bd) { bd = dd; best = j; }
      }
      if (best >= 0 && bd < 400) A3.setTime(tr.t_s[best]);
    });
    document.getElementById('map').appendChild(svg);
    var legend = document.getElementById('map-legend');
    [['#1976d2', 'agent flew'], ['#ef6c00', 'watchdog flew'], ['#c62828', 'no-fly'], ['#3b8a3b', 'geofence'],
     ['#795548', 'traffic'], ['#00897b', 'peers'], ['#d50000', '✕ denied'], ['#f9a825', '✕ clamped']].forEach(function (l) {
      var s = A3.el('span');
      var i = A3.el('i');
      i.style.background = l[0];
      s.appendChild(i);
      s.appendChild(document.createTextNode(l[1]));
      legend.appendChild(s);
    });
  }
  function update(t) {
    moving.forEach(function (m) {
      m.el.setAttribute('cx', px(m.a.center[0] + m.a.vel_xy[0] * t));
      m.el.setAttribute('cy', py(m.a.center[1] + m.a.vel_xy[1] * t));
    });
    aircraft.forEach(function (a) {
      var p = A3.interp(a.tr.t_s, a.tr.x, a.tr.y, t);
      if (p) { a.el.setAttribute('cx', px(p[0])); a.el.setAttribute('cy', py(p[1])); }
    });
    markers.forEach(function (m) { m.el.setAttribute('class', 'verdict-marker ' + (m.t <= t ? 'past' : 'future')); });
    var tr = data.truth, p = A3.interp(tr.t_s, tr.x, tr.y, t);
    if (p) {
      vehicle.setAttribute('cx', px(p[0]));
      vehicle.setAttribute('cy', py(p[1]));
      var i = Math.max(0, A3.indexAt(tr.t_s, t));
      document.getElementById('now').textContent = 'x ' + tr.x[i].toFixed(0) + ' y ' + tr.y[i].toFixed(0) +
        ' z ' + tr.z[i].toFixed(1) + ' m · ' + tr.speed_mps[i].toFixed(1) + ' m/s · battery ' +
        tr.battery_pct[i].toFixed(1) + ' % · ' + (tr.flyer[i] === 1 ? 'watchdog' : 'agent') + ' flying';
    }
  }
  return { init: init, update: update };
})());
