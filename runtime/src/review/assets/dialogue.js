// The dialogue in record order: operator and agent turns, generations (tokens, latency), each
// action's verdict with its finding ids and reasons, observations, watchdog and violations.
// Rows after the cursor time are dimmed; the latest one is highlighted and scrolled to.
A3.views.push((function () {
  var rows = [], current = -1;
  var LABEL = { operator: 'operator', agent: 'agent', generation: 'generation', verdict: 'verdict',
    observation: 'observation', watchdog: 'watchdog', airspace: 'airspace changed', violation: 'VIOLATION', unheard: 'unheard', end: 'end' };
  function init(d) {
    var host = document.getElementById('dialogue');
    d.dialogue.forEach(function (e) {
      var cls = 'row ' + e.kind + (e.kind === 'verdict' ? ' ' + e.tag : '');
      var r = A3.el('div', { class: cls, 'data-t': e.t_s });
      r.appendChild(A3.el('span', { class: 't' }, e.t_s.toFixed(1) + ' s'));
      var head = LABEL[e.kind] || e.kind;
      if (e.turn !== null) head += ' T' + e.turn;
      if (e.action !== null) head += (e.kind === 'generation' ? ' attempt ' : ' #') + e.action;
      if (e.tag) head += ' · ' + e.tag;
      r.appendChild(A3.el('span', { class: 'k' }, head));
      if (e.tokens !== null) r.appendChild(A3.el('span', { class: 'k' }, e.tokens + ' tok · ' + e.latency_ms.toFixed(0) + ' ms'));
      if (e.text) r.appendChild(A3.el('div', {}, e.text));
      e.findings.forEach(function (f) {
        r.appendChild(A3.el('span', { class: 'finding' }, f.id + ' (' + f.severity + '): ' + f.reason +
          ' — limit ' + Number(f.limit).toPrecision(4) + ', measured ' + Number(f.measured).toPrecision(4)));
      });
      r.addEventListener('click', function () { A3.setTime(e.t_s); });
      host.appendChild(r);
      rows.push({ el: r, t: e.t_s, cls: cls });
    });
  }
  function update(t) {
    var last = -1;
    rows.forEach(function (r, i) {
      var future = r.t > t;
      if (!future) last = i;
      r.el.className = r.cls + (future ? ' future' : '');
    });
    if (last >= 0) {
      rows[last].el.className += ' current';
      if (last !== current) {
        var host = document.getElementById('dialogue');
        host.scrollTop = Math.max(0, rows[last].el.offsetTop - host.offsetTop - host.clientHeight / 2);
      }
    }
    current = last;
  }
  return { init: init, update: update };
})());
