// Reads the embedded episode, fills the header, starts every view and wires the slider.
(function () {
  var data = JSON.parse(document.getElementById('a3-data').textContent);
  A3.data = data;
  var m = data.meta;
  var meta = document.getElementById('meta');
  function item(label, value, cls) {
    var s = A3.el('span', cls ? { class: cls } : {}, label + ': ' + value);
    meta.appendChild(s);
  }
  item('policy', m.policy + (m.model ? ' (' + m.model + ')' : ''));
  item('scenario', m.scenario + (m.policy === 'tlog' ? '' : ' · seed ' + m.seed));
  item('end', (m.termination || 'no termination line') + ' at ' + m.end_s.toFixed(1) + ' s',
    m.success ? 'ok' : 'bad');
  if (data.alpha3 !== null) item('α3', data.alpha3.toFixed(3));
  if (m.metric_version) item('metric', m.metric_version);
  item('truth samples', data.truth.t_s.length);
  item('frame', m.frame_source);
  if (m.torn_tail) item('note', 'torn last line dropped', 'bad');
  (data.notes || []).forEach(function (n) { item('note', n); });
  var slider = document.getElementById('slider');
  slider.max = String(m.end_s);
  slider.addEventListener('input', function () { A3.setTime(Number(slider.value)); });
  A3.views.forEach(function (v) { v.init(data); });
  A3.setTime(m.end_s);
  // Milliseconds from navigation start to every view drawn (read by measurements, not shown).
  document.documentElement.setAttribute('data-render-ms', String(Math.round(performance.now())));
  document.documentElement.setAttribute('data-rendered', '1');
})();
