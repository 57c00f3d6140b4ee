// Search over the names and descriptions in search-index.js (loaded before
// this script as window.GSD_SEARCH_INDEX). No request, works from file://.
(function () {
  'use strict';
  var index = window.GSD_SEARCH_INDEX || [];
  var root = document.body.getAttribute('data-root') || '';
  var input = document.getElementById('search');
  var results = document.getElementById('search-results');
  if (!input || !results) return;

  // "/gsd-plan-phase", "$gsd-plan-phase" and "/skill:gsd-plan-phase" all find plan-phase.
  function words(query) {
    return query.toLowerCase().replace(/^\s*(\/skill:|\/|\$)?(gsd[-:])?/, '').split(/\s+/).filter(Boolean);
  }

  function search(query) {
    var terms = words(query);
    if (terms.length === 0) return [];
    var found = [];
    index.forEach(function (entry, position) {
      var name = entry.t.toLowerCase();
      var text = name + ' ' + entry.k + ' ' + entry.d.toLowerCase();
      if (!terms.every(function (term) { return text.indexOf(term) !== -1; })) return;
      var inName = terms.every(function (term) { return name.indexOf(term) !== -1; });
      var rank = name === terms.join(' ') ? 0 : inName && name.indexOf(terms[0]) === 0 ? 1 : inName ? 2 : 3;
      found.push({ rank: rank, position: position, entry: entry });
    });
    found.sort(function (a, b) { return a.rank - b.rank || a.position - b.position; });
    return found.slice(0, 20).map(function (item) { return item.entry; });
  }

  function show() {
    var found = search(input.value);
    while (results.firstChild) results.removeChild(results.firstChild);
    found.forEach(function (entry) {
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = root + entry.u;
      var title = document.createElement('strong');
      title.textContent = entry.t;
      var kind = document.createElement('span');
      kind.className = 'kind';
      kind.textContent = entry.k;
      var description = document.createElement('span');
      description.className = 'description';
      description.textContent = entry.d;
      link.appendChild(title);
      link.appendChild(kind);
      link.appendChild(description);
      item.appendChild(link);
      results.appendChild(item);
    });
    if (found.length === 0 && input.value.trim() !== '') {
      var none = document.createElement('li');
      none.className = 'none';
      none.textContent = 'Nothing matches.';
      results.appendChild(none);
    }
    results.hidden = input.value.trim() === '';
  }

  input.addEventListener('input', show);
  input.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') {
      var first = results.querySelector('a');
      if (first) window.location.href = first.href;
    } else if (event.key === 'Escape') {
      input.value = '';
      show();
    }
  });
})();
