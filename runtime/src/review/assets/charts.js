// Timelines drawn with uPlot on one time axis: altitude with the band, speed, battery with the
// reserve lines, link latency and loss with the slice and the slice decisions, time to breach.
// Every chart draws the shared cursor time and the denied/clamped verdicts; a click moves it.
A3.views.push((function () {
  var plots = [];
  var SLICE_COLOURS = { URLLC: '#1976d2', eMBB: '#8e24aa', mMTC: '#00897b' };
  function constant(xs, v) { return xs.map(function () { return v; }); }
  function overlay(extra) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
          ctx.save();
          A3.data.verdicts.forEach(function (v) {
            if (v.outcome === 'approved') return;
            var x = Math.round(u.valToPos(v.t_s, 'x', true));
            ctx.strokeStyle = v.outcome === 'denied' ? 'rgba(213,0,0,.55)' : 'rgba(249,168,37,.7)';
            ctx.lineWidth = 1;
            ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
          });
          if (extra) extra(u, ctx);
          var cx = Math.round(u.valToPos(A3.t, 'x', true));
          ctx.strokeStyle = '#000'; ctx.lineWidth = 2;
          ctx.beginPath(); ctx.moveTo(cx, top); ctx.lineTo(cx, top + h); ctx.stroke();
          ctx.restore();
        }],
        ready: [function (u) {
          u.over.addEventListener('click', function (e) { A3.setTime(u.posToVal(e.offsetX, 'x')); });
        }]
      }
    };
  }
  // Link chart extras: the slice as a strip along the top, a tick per slice decision at the
  // bottom (grey for send_now, red for any other decision).
  function linkExtras(u, ctx) {
    var l = A3.data.link, top = u.bbox.top, h = u.bbox.height;
    for (var i = 0; i < l.t_s.length; i++) {
      var xa = u.valToPos(l.t_s[i], 'x', true);
      var xb = i + 1 < l.t_s.length ? u.valToPos(l.t_s[i + 1], 'x', true) : u.bbox.left + u.bbox.width;
      ctx.fillStyle = SLICE_COLOURS[l.slice[i]] || '#999';
      ctx.fillRect(xa, top, Math.max(1, xb - xa), 5 * devicePixelRatio);
    }
    A3.data.slice_decisions.forEach(function (d) {
      var x = u.valToPos(d.t_s, 'x', true);
      ctx.fillStyle = d.decision === 'send_now' ? 'rgba(90,90,90,.6)' : '#d50000';
      ctx.fillRect(x - devicePixelRatio, top + h - 8 * devicePixelRatio, 2 * devicePixelRatio, 8 * devicePixelRatio);
    });
  }
  function make(title, data, series, axes, extra, id) {
    var host = A3.el('div', { class: 'chart', id: id });
    document.getElementById('charts').appendChild(host);
    if (!data[0].length) {
      host.appendChild(A3.el('p', {}, title + ': no samples.'));
      return;
    }
    var width = Math.max(320, document.getElementById('charts').clientWidth - 8);
    var opts = {
      title: title,
      width: width,
      height: 150,
      cursor: { sync: { key: 'a3' }, drag: { x: false, y: false } },
      scales: { x: { time: false } },
      legend: { show: true },
      series: [{ label: 't (s)', value: function (u, v) { return v === null || v === undefined ? '—' : v.toFixed(1) + ' s'; } }].concat(series),
      axes: [{ label: 'time (s)', labelSize: 18, size: 36 }].concat(axes),
      plugins: [overlay(extra)]
    };
    plots.push(new uPlot(opts, data, host));
  }
  function init(d) {
    var tr = d.truth, f = d.frame, ts = tr.t_s;
    var altSeries = [{ label: 'altitude (m)', stroke: '#1976d2', width: 2 }];
    var altData = [ts, tr.z];
    var band = f.gate_band_m || f.band_m;
    if (band) {
      altSeries.push({ label: 'band min', stroke: '#c62828', dash: [6, 4] }, { label: 'band max', stroke: '#c62828', dash: [6, 4] });
      altData.push(constant(ts, band[0]), constant(ts, band[1]));
    }
    make('Altitude', altData, altSeries, [{ label: 'm', labelSize: 14, size: 48 }], null, 'chart-altitude');
    make('Ground speed', [ts, tr.speed_mps], [{ label: 'speed (m/s)', stroke: '#2e7d32', width: 2 }],
      [{ label: 'm/s', labelSize: 14, size: 48 }], null, 'chart-speed');
    var batSeries = [{ label: 'battery (%)', stroke: '#6d4c41', width: 2 }], batData = [ts, tr.battery_pct];
    if (f.reserve_battery_pct !== null) { batSeries.push({ label: 'reserve', stroke: '#f9a825', dash: [6, 4] }); batData.push(constant(ts, f.reserve_battery_pct)); }
    if (f.hard_reserve_battery_pct !== null) { batSeries.push({ label: 'hard reserve', stroke: '#c62828', dash: [6, 4] }); batData.push(constant(ts, f.hard_reserve_battery_pct)); }
    make('Battery', batData, batSeries, [{ label: '%', labelSize: 14, size: 48 }], null, 'chart-battery');
    var l = d.link;
    make('Link (strip: slice, ticks: slice decisions)', [l.t_s, l.lat_ms, l.loss_pct],
      [{ label: 'latency (ms)', stroke: '#8e24aa', width: 1.5, scale: 'ms' },
       { label: 'loss (%)', stroke: '#e65100', width: 1.5, scale: '%' }],
      [{ label: 'ms', labelSize: 14, size: 48, scale: 'ms' },
       { label: '%', labelSize: 14, size: 40, scale: '%', side: 1, grid: { show: false } }], linkExtras, 'chart-link');
    if (d.breach_s.length) {
      make('Time to breach (gate prediction, coasting)', [ts, d.breach_s],
        [{ label: 'time to breach (s)', stroke: '#b71c1c', width: 2, spanGaps: false,
           value: function (u, v, si, i) { return v === null || v === undefined ? 'none in horizon' : v.toFixed(1) + ' s ' + (d.breach_id[i] || ''); } }],
        [{ label: 's', labelSize: 14, size: 48 }], null, 'chart-breach');
    } else {
      document.getElementById('charts').appendChild(A3.el('p', { id: 'chart-breach-missing' },
        'Time to breach: not computed (' + (d.breach_note || 'the scenario is not known') + ').'));
    }
  }
  function update() { plots.forEach(function (u) { u.redraw(false, false); }); }
  return { init: init, update: update };
})());
