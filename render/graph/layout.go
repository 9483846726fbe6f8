package graph

import (
	"math"
	"sort"
	"unicode/utf8"
)

// The layout: a column per layer, left to right (the objects' columns by
// include depth, then listeners, virtual hosts, routes, clusters,
// Services), each column's nodes stacked from the top in the order of
// their first predecessor, so that a virtual host's routes stay together
// and in Envoy's order. Every edge goes from a column to one further
// right. Everything is worked out from the nodes' keys: no randomness, no
// map order.

// Sizes of the drawing, in SVG user units (pixels).
const (
	nodeHeight = 38
	rowGap     = 10
	columnGap  = 90
	margin     = 20
	charWidth  = 8 // of the 12px monospace font (7.2), with room to spare
	minWidth   = 120
	maxChars   = 48 // longer labels are cut, the whole in the tooltip
)

// Box is where a node is drawn.
type Box struct{ X, Y, W, H int }

// finish orders the nodes and edges and lays the graph out.
func (g *Graph) finish() {
	g.assignLayers()
	byLayer := map[int][]*Node{}
	last := 0
	for _, n := range g.Nodes {
		byLayer[n.layer] = append(byLayer[n.layer], n)
		last = max(last, n.layer)
	}
	preds := map[string][]string{}
	for _, e := range g.Edges {
		preds[e.To] = append(preds[e.To], e.From)
	}
	g.boxes = map[string]Box{}
	x := margin
	var ordered []*Node
	for layer := 0; layer <= last; layer++ {
		col := byLayer[layer]
		if len(col) == 0 {
			continue
		}
		// The first predecessor already placed decides; ties by key.
		anchor := func(n *Node) int {
			best := math.MaxInt
			for _, p := range preds[n.ID] {
				if b, ok := g.boxes[p]; ok && b.Y < best {
					best = b.Y
				}
			}
			return best
		}
		anchors := make(map[string]int, len(col))
		for _, n := range col {
			anchors[n.ID] = anchor(n)
		}
		sort.SliceStable(col, func(i, j int) bool {
			if ai, aj := anchors[col[i].ID], anchors[col[j].ID]; ai != aj {
				return ai < aj
			}
			return col[i].key < col[j].key
		})
		w := minWidth
		for _, n := range col {
			w = max(w, textWidth(n.Label), textWidth(n.Sub))
		}
		for i, n := range col {
			g.boxes[n.ID] = Box{X: x, Y: margin + i*(nodeHeight+rowGap), W: w, H: nodeHeight}
			g.Height = max(g.Height, margin+(i+1)*(nodeHeight+rowGap)+margin)
		}
		x += w + columnGap
		ordered = append(ordered, col...)
	}
	g.Width = max(x-columnGap+margin, 2*margin)
	g.Height = max(g.Height, 2*margin)
	g.Nodes = ordered
	position := make(map[string]int, len(ordered))
	for i, n := range ordered {
		position[n.ID] = i
	}
	sort.SliceStable(g.Edges, func(i, j int) bool {
		a, b := g.Edges[i], g.Edges[j]
		if position[a.From] != position[b.From] {
			return position[a.From] < position[b.From]
		}
		if position[a.To] != position[b.To] {
			return position[a.To] < position[b.To]
		}
		return a.Label < b.Label
	})
	sort.SliceStable(g.VirtualHosts, func(i, j int) bool {
		return g.VirtualHosts[i].VirtualHost.key < g.VirtualHosts[j].VirtualHost.key
	})
}

// Box is where node id is drawn.
func (g *Graph) Box(id string) Box { return g.boxes[id] }

// assignLayers puts each object at its depth among the objects (a Gateway
// before its routes, an HTTPProxy after the one including it), and the
// other kinds in their fixed order after the deepest object.
func (g *Graph) assignLayers() {
	depth := map[string]int{}
	var objectEdges []Edge
	for _, e := range g.Edges {
		if g.byID[e.From].Kind == KindObject && g.byID[e.To].Kind == KindObject {
			objectEdges = append(objectEdges, e)
		}
	}
	objects := 0
	for _, n := range g.Nodes {
		if n.Kind == KindObject {
			objects++
		}
	}
	// Longest paths by relaxation; an include cycle stops growing at the
	// number of objects.
	for round := 0; round < objects; round++ {
		changed := false
		for _, e := range objectEdges {
			if d := depth[e.From] + 1; d > depth[e.To] && d < objects {
				depth[e.To] = d
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	base := 0
	for _, n := range g.Nodes {
		if n.Kind == KindObject {
			n.layer = depth[n.ID]
			base = max(base, n.layer+1)
		}
	}
	for _, n := range g.Nodes {
		switch n.Kind {
		case KindListener:
			n.layer = base
		case KindVirtualHost:
			n.layer = base + 1
		case KindRoute:
			n.layer = base + 2
		case KindCluster:
			n.layer = base + 3
		case KindService:
			n.layer = base + 4
		}
	}
}

// textWidth is the width a line needs, cut at maxChars, with padding.
func textWidth(s string) int {
	return min(utf8.RuneCountInString(s), maxChars)*charWidth + 20
}

// cut shortens s to maxChars runes, with an ellipsis.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxChars {
		return s
	}
	r := []rune(s)
	return string(r[:maxChars-1]) + "…"
}
