// book/search.js - the HTML book's search box, offline: the words of every
// section are in search-index.js (book/split.mjs writes it at build time),
// loaded by a <script> element the first time the box is used, which works
// from a web server and from files opened directly (file://), where fetch()
// of a JSON file would be refused. Without scripts the box stays hidden and
// the pages read the same.
(function () {
  'use strict';
  var form = document.querySelector('form.search');
  var box = document.getElementById('search-box');
  var list = document.getElementById('search-results');
  if (!form || !box || !list) return;
  form.hidden = false;
  form.addEventListener('submit', function (event) {  // Enter opens the first result
    event.preventDefault();
    var first = list.querySelector('a');
    if (first) window.location.href = first.href;
  });

  var loading = false, pending = null;  // what to do once the index is there
  function load(then) {
    if (window.BOOK_SEARCH_INDEX) { then(); return; }
    pending = then;
    if (loading) return;
    loading = true;
    var script = document.createElement('script');
    script.src = 'search-index.js';
    script.onload = function () { pending(); };
    document.head.appendChild(script);
  }

  function item(entry, words) {
    var li = document.createElement('li');
    var a = document.createElement('a');
    a.href = entry.u;
    a.textContent = entry.t === entry.c ? entry.t : entry.c + ' › ' + entry.t;
    li.appendChild(a);
    var text = entry.x, at = text.toLowerCase().indexOf(words[0]);
    if (at >= 0) {  // the first word in its sentence
      var snippet = document.createElement('span');
      snippet.textContent = (at > 40 ? '…' : '') + text.slice(Math.max(0, at - 40), at + 80) + '…';
      li.appendChild(snippet);
    }
    return li;
  }

  // every word of the query in a section's heading or text; headings first,
  // then the sections that hold the words most often
  function search() {
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.textContent = '';
    if (words.length === 0) return;
    var found = [];
    window.BOOK_SEARCH_INDEX.forEach(function (entry) {
      var title = entry.t.toLowerCase(), text = entry.x.toLowerCase(), score = 0;
      for (var k = 0; k < words.length; k++) {
        var inTitle = title.indexOf(words[k]) >= 0, times = text.split(words[k]).length - 1;
        if (!inTitle && times === 0) return;
        score += (inTitle ? 100 : 0) + times;
      }
      found.push({ entry: entry, score: score });
    });
    found.sort(function (a, b) { return b.score - a.score; });
    found.slice(0, 12).forEach(function (hit) { list.appendChild(item(hit.entry, words)); });
    if (found.length === 0) {
      var none = document.createElement('li');
      none.className = 'none';
      none.textContent = 'Nothing found';
      list.appendChild(none);
    }
  }

  box.addEventListener('focus', function () { load(function () {}); });
  box.addEventListener('input', function () { load(search); });
})();
