// workboard web: live updates (server-sent events) and repeatable rows. Every page works without it.
(function () {
  'use strict';

  // Repeatable rows: "Add a row" clones the last row in place instead of posting the form.
  document.addEventListener('click', function (e) {
    var btn = e.target instanceof Element ? e.target.closest('button.add-row') : null;
    if (!btn) return;
    var group = btn.closest('[data-repeat]');
    var rows = group && group.querySelector('.rows');
    var last = rows && rows.lastElementChild;
    if (!last) return;
    e.preventDefault();
    var n = rows.children.length;
    var copy = last.cloneNode(true);
    copy.querySelectorAll('input, select, textarea, label').forEach(function (el) {
      if (el.id) el.id = el.id.replace(/\d+$/, String(n));
      if (el.htmlFor) el.htmlFor = el.htmlFor.replace(/\d+$/, String(n));
      if (el.tagName === 'LABEL') el.textContent = el.textContent.replace(/\d+$/, String(n + 1));
      else if (el.type === 'radio' || el.type === 'checkbox') el.checked = false;
      else el.value = '';
    });
    rows.appendChild(copy);
    var first = copy.querySelector('input, select, textarea');
    if (first) first.focus();
  });

  // Times: the page says them in the board's zone, as its emails and the CLI do; a viewer in another zone
  // is also told their own time on hover.
  var exact = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  var mine = exact.resolvedOptions().timeZone;
  document.querySelectorAll('time[data-exact]').forEach(function (t) {
    var d = new Date(t.getAttribute('datetime'));
    if (!isNaN(d.getTime()) && t.getAttribute('data-zone') !== mine) t.title = t.title + ' (' + exact.format(d) + ' where you are)';
  });

  // A full-size map: zoom buttons resize the drawing; the current step stays in view.
  var map = document.querySelector('[data-map]');
  var tools = document.querySelector('[data-map-tools]');
  if (map && tools) {
    var svg = map.querySelector('svg');
    var w = Number(svg.getAttribute('data-width'));
    var h = Number(svg.getAttribute('data-height'));
    var scale = 1;
    var here = document.getElementById('here');
    // The ring scrolled into view with the least sideways scroll, so the lane names at the map's left stay in view
    // whenever the ring fits beside them (centring it hid them); up and down it is centred in the box.
    var show = function () {
      if (!here) return;
      var box = map.getBoundingClientRect();
      var r = here.getBoundingClientRect();
      if (r.right > box.right) map.scrollLeft += r.right - box.right + 16;
      else if (r.left < box.left) map.scrollLeft -= box.left - r.left + 16;
      map.scrollTop += (r.top + r.bottom) / 2 - (box.top + box.bottom) / 2;
    };
    var zoom = function (to) {
      scale = Math.min(3, Math.max(0.1, to));
      svg.setAttribute('width', String(Math.round(w * scale)));
      svg.setAttribute('height', String(Math.round(h * scale)));
      show();
    };
    tools.hidden = false;
    tools.addEventListener('click', function (e) {
      var b = e.target instanceof Element ? e.target.closest('button[data-zoom]') : null;
      if (!b) return;
      var how = b.getAttribute('data-zoom');
      zoom(how === 'in' ? scale * 1.25 : how === 'out' ? scale / 1.25 : how === 'fit' ? map.clientWidth / w : 1);
    });
    show();
  }

  // Live: the server says when the board changed; a page nobody is typing into reloads itself,
  // a page with a form being filled in says so and offers to reload.
  var topic = document.body.getAttribute('data-live');
  if (!topic || typeof EventSource === 'undefined') return;
  var dirty = false;
  var leaving = false;
  document.addEventListener('input', function () {
    dirty = true;
  });
  // From the change log's length when the page was rendered: what landed since then reloads it too.
  var from = document.body.getAttribute('data-live-from');
  var source = new EventSource('/events?topic=' + encodeURIComponent(topic) + (from ? '&from=' + encodeURIComponent(from) : ''));
  // A form being sent changes the board itself: its own change must not reload the page from under it.
  document.addEventListener('submit', function () {
    leaving = true;
    source.close();
  });
  // Too many live pages open: the server closed this, the oldest, stream. Say so rather than reconnect.
  source.addEventListener('closed', function () {
    source.close();
    var box = document.getElementById('live');
    if (!box || !box.hidden) return;
    box.textContent = 'Live updates stopped here: too many pages of this site are open. Reload to resume.';
    box.hidden = false;
  });
  source.addEventListener('changed', function () {
    if (leaving) return;
    if (!dirty) {
      window.location.reload();
      return;
    }
    var box = document.getElementById('live');
    if (!box || !box.hidden) return;
    box.textContent = 'This page changed since you opened it. ';
    var a = document.createElement('a');
    a.href = window.location.href;
    a.textContent = 'Reload to see the changes';
    box.appendChild(a);
    box.hidden = false;
  });
})();
