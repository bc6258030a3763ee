// The episode's α3 pillars, each with its weight, value and what drove it.
A3.views.push((function () {
  var WEIGHTS = { TO: 0.30, SP: 0.20, TC: 0.20, IQ: 0.15, NR: 0.10, CC: 0.05 };
  function init(d) {
    var host = document.getElementById('pillars');
    if (!d.pillars.length) { host.appendChild(A3.el('p', {}, 'Not scored: ' + (d.pillars_note || 'no score'))); return; }
    var table = A3.el('table', { class: 'pillars' });
    d.pillars.forEach(function (p) {
      var tr = A3.el('tr', { 'data-pillar': p.name });
      tr.appendChild(A3.el('td', {}, p.name + ' ×' + WEIGHTS[p.name]));
      var v = A3.el('td');
      var bar = A3.el('span', { class: 'bar' });
      var fill = A3.el('i');
      fill.style.width = (100 * (p.value || 0)).toFixed(0) + '%';
      bar.appendChild(fill);
      v.appendChild(bar);
      v.appendChild(document.createTextNode(' ' + (p.value === null ? '—' : p.value.toFixed(3))));
      tr.appendChild(v);
      tr.appendChild(A3.el('td', {}, p.why));
      table.appendChild(tr);
    });
    host.appendChild(table);
    if (d.alpha3 !== null) host.appendChild(A3.el('p', {}, 'α3(e) = Σ weight × pillar = ' + d.alpha3.toFixed(3)));
  }
  return { init: init, update: function () {} };
})());
