package graph

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// HTMLOptions change the page.
type HTMLOptions struct {
	// Title heads the page ("contourc graph" when empty).
	Title string
	// LinkBase goes before a node's file in its link (a repository's blob
	// URL, say); links are the files as given, relative to the page,
	// without it.
	LinkBase string
	// NoLinks leaves sources as text: serve's page, whose files are not
	// where a browser could open them.
	NoLinks bool
}

// WriteHTML writes g as one self-contained HTML page: the graph as SVG
// laid out here, the routes of each virtual host in Envoy's order, and an
// embedded script for searching by host or path and following a node's
// edges. Its Content-Security-Policy forbids every fetch: the page works
// offline and loads nothing, whoever opens it.
func WriteHTML(w io.Writer, g *Graph, o HTMLOptions) error {
	if o.Title == "" {
		o.Title = "contourc graph"
	}
	bw := bufio.NewWriter(w)
	p := &page{w: bw, g: g, o: o}
	p.head()
	p.svg()
	p.routeTables()
	p.printf("<script>%s</script>\n</body>\n</html>\n", pageScript)
	return bw.Flush()
}

type page struct {
	w *bufio.Writer
	g *Graph
	o HTMLOptions
}

func (p *page) printf(format string, args ...any) { fmt.Fprintf(p.w, format, args...) }

// esc escapes text and attribute values.
func esc(s string) string { return html.EscapeString(s) }

func (p *page) head() {
	p.printf(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>%s</style>
</head>
<body>
<header>
<h1>%s</h1>
<input id="search" type="search" placeholder="search a host or a path" autocomplete="off" aria-label="search a host or a path">
<span id="count" aria-live="polite"></span>
<span class="legend"><span class="valid">valid</span> <span class="warning">warning</span> <span class="invalid">invalid</span></span>
<span class="totals">%d nodes, %d edges, %d virtual hosts</span>
</header>
`, esc(p.o.Title), pageStyle, esc(p.o.Title), len(p.g.Nodes), len(p.g.Edges), len(p.g.VirtualHosts))
}

func (p *page) svg() {
	g := p.g
	p.printf("<main>\n<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", g.Width, g.Height, g.Width, g.Height)
	p.printf("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0L10,5L0,10z\"/></marker></defs>\n")
	p.printf("<g class=\"edges\">\n")
	for _, e := range g.Edges {
		a, b := g.Box(e.From), g.Box(e.To)
		x1, y1 := a.X+a.W, a.Y+a.H/2
		x2, y2 := b.X, b.Y+b.H/2
		bend := columnGap / 2
		p.printf("<path class=\"edge\" data-from=\"%s\" data-to=\"%s\" d=\"M%d,%d C%d,%d %d,%d %d,%d\" marker-end=\"url(#arrow)\"/>\n",
			esc(e.From), esc(e.To), x1, y1, x1+bend, y1, x2-bend, y2, x2, y2)
		if e.Label != "" {
			p.printf("<text class=\"edge-label\" x=\"%d\" y=\"%d\">%s</text>\n", (x1+x2)/2, (y1+y2)/2-3, esc(cut(e.Label)))
		}
	}
	p.printf("</g>\n<g class=\"nodes\">\n")
	for _, n := range g.Nodes {
		p.node(n)
	}
	p.printf("</g>\n</svg>\n</main>\n")
}

// searchText is what search matches a node by: its lines and its host.
func searchText(n *Node) string {
	return strings.ToLower(n.Label + " " + n.Sub + " " + n.Host + " " + n.Source.String())
}

func (p *page) node(n *Node) {
	b := p.g.Box(n.ID)
	p.printf("<g class=\"node %s %s\" id=\"%s\" data-kind=\"%s\" data-status=\"%s\" data-host=\"%s\" data-search=\"%s\" tabindex=\"0\">",
		esc(string(n.Kind)), esc(string(n.Status)), esc(n.ID), esc(string(n.Kind)), esc(string(n.Status)), esc(n.Host), esc(searchText(n)))
	p.printf("<title>%s</title>", esc(strings.TrimSpace(n.Label+"\n"+n.Sub+"\n"+tooltipOf(n))))
	p.printf("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"5\"/>", b.X, b.Y, b.W, b.H)
	p.printf("<text x=\"%d\" y=\"%d\" class=\"label\">%s</text>", b.X+8, b.Y+16, esc(cut(n.Label)))
	sub := cut(n.Sub)
	if href := hrefOf(n, p.o.LinkBase); href != "" && !p.o.NoLinks {
		p.printf("<a href=\"%s\" class=\"source\"><text x=\"%d\" y=\"%d\" class=\"sub\">%s</text></a>", esc(href), b.X+8, b.Y+31, esc(sub))
	} else {
		p.printf("<text x=\"%d\" y=\"%d\" class=\"sub\">%s</text>", b.X+8, b.Y+31, esc(sub))
	}
	p.printf("</g>\n")
}

// routeTables lists each virtual host's routes in Envoy's order: the first
// that matches a request wins.
func (p *page) routeTables() {
	p.printf("<section id=\"routes\">\n<h2>Routes of each virtual host, in Envoy's order (the first match wins)</h2>\n")
	for _, vh := range p.g.VirtualHosts {
		v := vh.VirtualHost
		p.printf("<details class=\"vhost %s\" data-node=\"%s\" data-search=\"%s\">\n<summary>%s <small>%s · %d route(s)</small></summary>\n<ol>\n",
			esc(string(v.Status)), esc(v.ID), esc(searchText(v)), esc(v.Label), esc(v.Sub), len(vh.Routes))
		for _, r := range vh.Routes {
			// value: the number stays the route's index when search
			// hides the rows before it.
			p.printf("<li value=\"%d\" class=\"%s\" data-node=\"%s\" data-search=\"%s\"><code>%s</code> %s", r.Order, esc(string(r.Status)), esc(r.ID), esc(searchText(r)),
				esc(strings.TrimPrefix(r.Label, fmt.Sprintf("#%d ", r.Order))), esc(r.Sub))
			if loc := r.Source.String(); loc != "" {
				if href := hrefOf(r, p.o.LinkBase); href != "" && !p.o.NoLinks {
					p.printf(" <a href=\"%s\">%s</a>", esc(href), esc(loc))
				} else {
					p.printf(" <span class=\"loc\">%s</span>", esc(loc))
				}
			}
			if r.Status != StatusValid {
				p.printf(" <em>%s: %s</em>", esc(string(r.Status)), esc(r.Message))
			}
			p.printf("</li>\n")
		}
		p.printf("</ol>\n</details>\n")
	}
	p.printf("</section>\n")
}

const pageStyle = `
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#222}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:8px 16px;display:flex;gap:16px;align-items:center;flex-wrap:wrap;z-index:1}
h1{font-size:16px;margin:0}
#search{width:22em;padding:4px 6px}
.legend span{padding:1px 6px;border-radius:3px;border:1px solid #999}
.valid{background:#d4edda}.warning{background:#fbe6a6}.invalid{background:#f8c9c4}
main{overflow:auto;border-bottom:1px solid #ccc;max-height:75vh}
svg{font:12px monospace}
.node rect{stroke:#555;stroke-width:1}
.node.valid rect{fill:#d4edda}.node.warning rect{fill:#fbe6a6}.node.invalid rect{fill:#f8c9c4}
.node.listener rect{stroke-width:2}
.node .sub{fill:#555;font-size:11px}
.node a .sub{fill:#0645ad;text-decoration:underline}
.edge{fill:none;stroke:#888;stroke-width:1}
marker path{fill:#888}
.edge-label{font-size:10px;fill:#666;text-anchor:middle}
.dim{opacity:.2}
.node.hit rect{stroke:#0645ad;stroke-width:3}
.edge.focus{stroke:#0645ad;stroke-width:2}
.node.focus rect{stroke:#0645ad;stroke-width:2}
#routes{padding:8px 16px}
#routes h2{font-size:14px}
#routes li.warning,#routes li.invalid{padding:0 4px}
#routes .hidden{display:none}
details small{color:#666}
`

// pageScript searches and follows edges. It uses the DOM alone: the nodes
// carry what it needs in data- attributes.
const pageScript = `
(function () {
  "use strict";
  var nodes = Array.prototype.slice.call(document.querySelectorAll("g.node"));
  var edges = Array.prototype.slice.call(document.querySelectorAll("path.edge"));
  var labels = Array.prototype.slice.call(document.querySelectorAll("text.edge-label"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("#routes [data-search]"));
  var search = document.getElementById("search");
  var count = document.getElementById("count");
  function clear() {
    nodes.concat(edges, labels).forEach(function (el) { el.classList.remove("hit", "dim", "focus"); });
    rows.forEach(function (el) { el.classList.remove("hidden"); });
  }
  function find() {
    clear();
    var q = search.value.trim().toLowerCase();
    if (q === "") { count.textContent = ""; return; }
    var hits = 0;
    nodes.forEach(function (n) {
      var hit = n.getAttribute("data-search").indexOf(q) >= 0;
      n.classList.add(hit ? "hit" : "dim");
      if (hit) { hits++; }
    });
    edges.concat(labels).forEach(function (e) { e.classList.add("dim"); });
    rows.forEach(function (r) {
      if (r.tagName === "DETAILS") {
        var any = r.getAttribute("data-search").indexOf(q) >= 0 ||
          r.querySelector("li[data-search*=\"" + q.replace(/["\\]/g, "\\$&") + "\"]") !== null;
        r.classList.toggle("hidden", !any);
        if (any) { r.open = true; }
      } else {
        r.classList.toggle("hidden", r.getAttribute("data-search").indexOf(q) < 0 &&
          r.parentNode.parentNode.getAttribute("data-search").indexOf(q) < 0);
      }
    });
    count.textContent = hits + (hits === 1 ? " match" : " matches");
    var first = nodes.filter(function (n) { return n.classList.contains("hit"); })[0];
    if (first && first.scrollIntoView) { first.scrollIntoView({block: "nearest", inline: "nearest"}); }
  }
  function focus(id) {
    clear();
    var near = {};
    near[id] = true;
    edges.forEach(function (e) {
      var from = e.getAttribute("data-from"), to = e.getAttribute("data-to");
      if (from === id || to === id) {
        e.classList.add("focus");
        near[from] = near[to] = true;
      }
    });
    nodes.forEach(function (n) { n.classList.add(near[n.id] ? "focus" : "dim"); });
  }
  search.addEventListener("input", find);
  nodes.forEach(function (n) {
    n.addEventListener("click", function (ev) {
      if (ev.target.closest && ev.target.closest("a")) { return; }
      focus(n.id);
    });
  });
  rows.forEach(function (r) {
    if (r.tagName !== "LI") { return; }
    r.addEventListener("click", function () {
      var id = r.getAttribute("data-node"), n = document.getElementById(id);
      if (n) { focus(id); n.scrollIntoView({block: "center", inline: "center"}); }
    });
  });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { search.value = q; find(); }
}());
`
