/**
 * The Traces view's one script, served at `/ui/assets/view.js` (CSP `script-src 'self'`: no
 * inline script anywhere). It folds the waterfall: a row's fold button hides or shows every row
 * below it (rows are a flat list in tree order, each with `data-depth`); and in a big trace,
 * whose page leaves the attributes out, it fetches a span's attributes (HTML the gateway rendered
 * and escaped) when the span is opened. The pages work without it: folded levels show with
 * `?levels=all`, a span's attributes with `?span=`.
 */
export const VIEW_JS = `'use strict';
document.addEventListener('click', function (event) {
  var button = event.target instanceof Element ? event.target.closest('button.fold') : null;
  if (!button) return;
  event.preventDefault();
  event.stopPropagation();
  var row = button.closest('details');
  var depth = Number(row.dataset.depth);
  var open = button.getAttribute('aria-expanded') !== 'true';
  button.setAttribute('aria-expanded', String(open));
  button.firstChild.textContent = open ? '\\u25be' : '\\u25b8';
  var more = button.querySelector('.more');
  if (more) more.hidden = open;
  for (var next = row.nextElementSibling; next && Number(next.dataset.depth) > depth; next = next.nextElementSibling) {
    next.hidden = !open;
    var inner = next.querySelector('button.fold');
    if (inner) {
      inner.setAttribute('aria-expanded', String(open));
      inner.firstChild.textContent = open ? '\\u25be' : '\\u25b8';
      var innerMore = inner.querySelector('.more');
      if (innerMore) innerMore.hidden = open;
    }
  }
});
document.addEventListener('toggle', function (event) {
  var row = event.target;
  if (!(row instanceof HTMLDetailsElement) || !row.open) return;
  var body = row.querySelector(':scope > .attrs[data-load]');
  if (!body) return;
  var url = location.pathname + '/attributes?span=' + encodeURIComponent(row.dataset.spanId);
  body.removeAttribute('data-load');
  fetch(url, { credentials: 'same-origin' }).then(function (res) {
    if (!res.ok) throw new Error(String(res.status));
    return res.text();
  }).then(function (fragment) {
    body.innerHTML = fragment;
  }, function () {
    body.setAttribute('data-load', '');
  });
}, true);
`;
