"""A self-contained HTML page: the report's Markdown rendered (``markdown-it-py``), figures
inlined as data URIs, tables sortable by a click on their header, a print style, and nothing
fetched from the network (no external script, font or stylesheet).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False}).enable("table")

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b;
       max-width: 1200px; margin: 0 auto; padding: 0 1.2em 3em; }
h1 { font-size: 1.6em; margin: 1em 0 .2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
h3 { margin-top: 1.4em; } .sub { color: #555; margin: 0 0 1em; }
nav a { margin-right: 1em; } table { border-collapse: collapse; margin: .6em 0 1.2em;
       font-size: 13px; }
th, td { border: 1px solid #d0d0d0; padding: 3px 7px; vertical-align: top; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th.sorted-asc::after { content: " \\25B2"; } th.sorted-desc::after { content: " \\25BC"; }
.verdict { font-weight: 600; white-space: nowrap; padding: 1px 6px; border-radius: 3px; }
.v-CONFIRMED { background: #d8f0d8; } .v-PARTIAL { background: #fdf0c8; }
.v-NOT-CONFIRMED { background: #f8d4d4; } .v-UNDECIDABLE { background: #e6e6e6; }
.v-FOLLOWED { background: #d8f0d8; } .v-DEVIATED { background: #fdf0c8; }
.v-NOT-RECORDED { background: #e6e6e6; } .v-NOTE { background: #e4ecf8; }
figure { display: inline-block; margin: .5em 1em 1em 0; vertical-align: top; }
figure img { max-width: 560px; border: 1px solid #e2e2e2; }
figcaption { font-size: 12px; color: #555; } details { margin: .2em 0; }
footer { margin-top: 3em; border-top: 1px solid #ccc; font-size: 12px; color: #555; }
.counts span { margin-right: 1em; }
@media print { nav, .noprint { display: none; } figure img { max-width: 100%; }
               th { cursor: auto; } h2 { page-break-after: avoid; } table, figure {
               page-break-inside: avoid; } body { max-width: none; } }
"""

# Click a header to sort its table's body rows by that column: numbers (the leading number of a
# "0.812 ± 0.010" cell) numerically, everything else as text; a second click reverses.
SCRIPT = """
document.querySelectorAll("table").forEach(function (table) {
  var head = table.tHead; if (!head) return;
  Array.prototype.forEach.call(head.rows[0].cells, function (th, col) {
    th.title = "sort by this column";
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var asc = !th.classList.contains("sorted-asc");
      Array.prototype.forEach.call(head.rows[0].cells, function (c) {
        c.classList.remove("sorted-asc", "sorted-desc"); });
      th.classList.add(asc ? "sorted-asc" : "sorted-desc");
      function key(row) {
        var text = (row.cells[col] || {textContent: ""}).textContent.trim();
        var m = text.match(/^[-+]?\\d*\\.?\\d+(e[-+]?\\d+)?/i);
        return m ? [0, parseFloat(m[0]), text] : [1, 0, text.toLowerCase()];
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b), s = asc ? 1 : -1;
        if (x[0] !== y[0]) return x[0] - y[0];
        if (x[0] === 0 && x[1] !== y[1]) return s * (x[1] - y[1]);
        return s * (x[2] < y[2] ? -1 : x[2] > y[2] ? 1 : 0);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"""


def markdown(text: str) -> str:
    """HTML of Markdown text (tables included; raw HTML in the text is escaped)."""
    return _MD.render(text)


def esc(text: object) -> str:
    return html.escape(str(text))


def figure(path: Path) -> str:
    """A figure inlined as a data URI, captioned with its file name."""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{esc(path.stem)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{esc(path.stem)}</figcaption></figure>")


def verdict(text: str) -> str:
    return f'<span class="verdict v-{esc(text.replace(" ", "-"))}">{esc(text)}</span>'


def page(title: str, subtitle: str, sections: list[tuple[str, str, str]], footer: str) -> str:
    """The whole page: ``sections`` are (anchor, heading, body HTML)."""
    nav = " ".join(f'<a href="#{esc(a)}">{esc(h)}</a>' for a, h, _ in sections)
    body = "\n".join(f'<section id="{esc(a)}"><h2>{esc(h)}</h2>\n{content}</section>'
                     for a, h, content in sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>\n"
            f"<h1>{esc(title)}</h1><p class=\"sub\">{subtitle}</p><nav>{nav}</nav>\n{body}\n"
            f"<footer>{footer}</footer><script>{SCRIPT}</script></body></html>\n")
