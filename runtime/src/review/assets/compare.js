// Moves both episodes' time cursors with the shared slider, follows a cursor moved inside
// either frame, and copies the frames' error and rendered state onto this page's <html>.
(function () {
  var frames = [document.getElementById('frame-a'), document.getElementById('frame-b')];
  var slider = document.getElementById('slider');
  var clock = document.getElementById('clock');
  var root = document.documentElement;
  function a3(f) { return f.contentWindow && f.contentWindow.A3; }
  function setAll(t, except) {
    slider.value = String(t);
    clock.textContent = 't = ' + Number(t).toFixed(1) + ' s';
    frames.forEach(function (f) {
      var api = a3(f);
      if (f !== except && api && api.data && Math.abs(api.t - t) > 1e-6) api.setTime(t);
    });
  }
  slider.addEventListener('input', function () { setAll(Number(slider.value), null); });
  var loaded = 0;
  frames.forEach(function (f) {
    f.addEventListener('load', function () {
      var doc = f.contentDocument, api = a3(f);
      var errors = doc.documentElement.getAttribute('data-errors') || '';
      if (errors) root.setAttribute('data-errors', (root.getAttribute('data-errors') + ' ' + f.id + ': ' + errors).trim());
      if (api) {
        var inner = api.setTime;
        api.setTime = function (t) { inner(t); setAll(api.t, f); };
      }
      loaded += doc.documentElement.getAttribute('data-rendered') === '1' ? 1 : 0;
      if (loaded === frames.length) root.setAttribute('data-rendered', '1');
    });
  });
})();
