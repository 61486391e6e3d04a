/**
 * The Traces view's one script, served at `/ui/assets/view.js` (CSP `script-src 'self'`: no
 * inline script anywhere). It only folds the waterfall: a row's fold button hides or shows every
 * row below it (rows are a flat list in tree order, each with `data-depth`). The pages work
 * without it; folded levels can then be shown with `?levels=all`.
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
`;
