package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// fill is a status's colour, in DOT and in the page.
func fill(s Status) string {
	switch s {
	case StatusInvalid:
		return "#f8c9c4"
	case StatusWarning:
		return "#fbe6a6"
	}
	return "#d4edda"
}

// WriteDOT writes g in Graphviz's DOT language, left to right as Contour's
// /debug/dag is drawn, a node's file:line as its URL (with linkBase before
// it when not empty, e.g. a repository's blob URL) and its status as its
// colour. `dot -Tsvg` draws it.
func WriteDOT(w io.Writer, g *Graph, linkBase string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph contourc {")
	fmt.Fprintln(bw, "  rankdir=LR;")
	fmt.Fprintln(bw, `  node [shape=box, style="rounded,filled", fontname="monospace", fontsize=10];`)
	fmt.Fprintln(bw, `  edge [fontname="monospace", fontsize=9];`)
	for _, n := range g.Nodes {
		attrs := []string{
			"label=" + dotQuote(n.Label+"\n"+n.Sub),
			"fillcolor=" + dotQuote(fill(n.Status)),
		}
		tooltip := tooltipOf(n)
		if tooltip != "" {
			attrs = append(attrs, "tooltip="+dotQuote(tooltip))
		}
		if href := hrefOf(n, linkBase); href != "" {
			attrs = append(attrs, "URL="+dotQuote(href))
		}
		fmt.Fprintf(bw, "  %s [%s];\n", dotQuote(n.ID), strings.Join(attrs, ", "))
	}
	for _, e := range g.Edges {
		if e.Label != "" {
			fmt.Fprintf(bw, "  %s -> %s [label=%s];\n", dotQuote(e.From), dotQuote(e.To), dotQuote(e.Label))
		} else {
			fmt.Fprintf(bw, "  %s -> %s;\n", dotQuote(e.From), dotQuote(e.To))
		}
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// dotQuote is s as a DOT string: quotes and backslashes escaped, new lines
// as DOT's centred line break.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tooltipOf is a node's status and source, for hovering.
func tooltipOf(n *Node) string {
	var parts []string
	if n.Status != StatusValid {
		parts = append(parts, string(n.Status)+": "+n.Message)
	}
	if loc := n.Source.String(); loc != "" {
		parts = append(parts, loc)
	}
	return strings.Join(parts, "\n")
}

// hrefOf is the link to a node's source: linkBase + file + "#L" + line
// (the anchor GitHub and GitLab give a line), "" without a file.
func hrefOf(n *Node, linkBase string) string {
	if n.Source.File == "" || strings.HasPrefix(n.Source.File, "<") {
		return ""
	}
	href := linkBase + n.Source.File
	if n.Source.Line > 0 {
		href += fmt.Sprintf("#L%d", n.Source.Line)
	}
	return href
}
