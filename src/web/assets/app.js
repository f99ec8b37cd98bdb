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

  // Live: the server says when the board changed; a page nobody is typing into reloads itself,
  // a page with a form being filled in says so and offers to reload.
  var topic = document.body.getAttribute('data-live');
  if (!topic || typeof EventSource === 'undefined') return;
  var dirty = false;
  var leaving = false;
  document.addEventListener('input', function () { dirty = true; });
  // From the change log's length when the page was rendered: what landed since then reloads it too.
  var from = document.body.getAttribute('data-live-from');
  var source = new EventSource('/events?topic=' + encodeURIComponent(topic) + (from ? '&from=' + encodeURIComponent(from) : ''));
  // A form being sent changes the board itself: its own change must not reload the page from under it.
  document.addEventListener('submit', function () { leaving = true; source.close(); });
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
    if (!dirty) { window.location.reload(); return; }
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
