// The shared time cursor: every view registers { init(data), update(t) } and is told the
// time when the slider moves, a chart or the map is clicked, or a dialogue row is chosen.
'use strict';
var A3 = {
  views: [],
  t: 0,
  data: null,
  setTime: function (t) {
    var end = A3.data.meta.end_s;
    A3.t = Math.max(0, Math.min(end, Number(t) || 0));
    var slider = document.getElementById('slider');
    if (Number(slider.value) !== A3.t) slider.value = String(A3.t);
    document.getElementById('clock').textContent = 't = ' + A3.t.toFixed(1) + ' s';
    A3.views.forEach(function (v) { v.update(A3.t); });
  },
  // Index of the last sample at or before t in the sorted array ts (-1 when none).
  indexAt: function (ts, t) {
    var lo = 0, hi = ts.length - 1, found = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (ts[mid] <= t) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return found;
  },
  // Linear interpolation of (xs, ys) sampled at ts, at time t.
  interp: function (ts, xs, ys, t) {
    if (!ts.length) return null;
    var i = A3.indexAt(ts, t);
    if (i < 0) return [xs[0], ys[0]];
    if (i >= ts.length - 1) return [xs[ts.length - 1], ys[ts.length - 1]];
    var f = (t - ts[i]) / ((ts[i + 1] - ts[i]) || 1);
    return [xs[i] + f * (xs[i + 1] - xs[i]), ys[i] + f * (ys[i + 1] - ys[i])];
  },
  el: function (tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  },
  svg: function (tag, attrs) {
    var e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
};
