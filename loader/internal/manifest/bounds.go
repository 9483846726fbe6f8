package manifest

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Defaults for the limits in Options.
const (
	// DefaultMaxAliasNodes bounds how many nodes YAML aliases may add to
	// one document when expanded. Real manifests rarely use aliases at all;
	// a "billion laughs" document needs billions.
	DefaultMaxAliasNodes = 1_000_000
	// DefaultMaxDepth bounds how deeply one document may nest. Kubernetes
	// objects nest a few dozen levels; CRD schemas (which the loader only
	// skips) a hundred or so.
	DefaultMaxDepth = 512
)

// Limits are the resolved bounds for one Load.
type Limits struct {
	aliasNodes int64
	depth      int
}

// NewLimits are the bounds given, the defaults for those not set.
func NewLimits(aliasNodes int64, depth int) Limits {
	l := Limits{aliasNodes: aliasNodes, depth: depth}
	if l.aliasNodes <= 0 {
		l.aliasNodes = DefaultMaxAliasNodes
	}
	if l.depth <= 0 {
		l.depth = DefaultMaxDepth
	}
	return l
}

// boundsError is a bounds violation at a line.
type boundsError struct {
	line int
	Msg  string
}

func (e *boundsError) Error() string { return e.Msg }

// CheckBounds refuses documents whose alias expansion or nesting would make
// decoding them expensive, before anything expands them. It walks the tree
// once, remembering the expanded size of each anchored node, so a document
// of nested aliases costs time proportional to its text, not to its
// expansion.
func CheckBounds(root *yaml.Node, lim Limits) *boundsError {
	w := boundsWalker{lim: lim, sizes: map[*yaml.Node]int64{}}
	if _, err := w.size(root, 1); err != nil {
		return err.(*boundsError)
	}
	return nil
}

type boundsWalker struct {
	lim        Limits
	sizes      map[*yaml.Node]int64 // expanded size of anchored nodes
	aliasNodes int64                // nodes added by expanding aliases so far
}

// inProgress marks an anchored node whose size is being computed, to catch
// an alias to one of its own ancestors.
const inProgress = -1

// size is the number of nodes n stands for once aliases are expanded,
// saturating just above the alias budget.
func (w *boundsWalker) size(n *yaml.Node, depth int) (int64, error) {
	if depth > w.lim.depth {
		return 0, &boundsError{n.Line, fmt.Sprintf("nested more than %d levels deep", w.lim.depth)}
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 0, &boundsError{n.Line, "alias to an unknown anchor"}
		}
		s, err := w.size(n.Alias, depth)
		if err != nil {
			return 0, err
		}
		w.aliasNodes += s
		if w.aliasNodes > w.lim.aliasNodes {
			return 0, &boundsError{n.Line, fmt.Sprintf("YAML aliases expand to more than %d nodes (a \"billion laughs\" document?)", w.lim.aliasNodes)}
		}
		return s, nil
	}
	if n.Anchor != "" {
		switch s, ok := w.sizes[n]; {
		case ok && s == inProgress:
			return 0, &boundsError{n.Line, fmt.Sprintf("anchor %q contains an alias to itself", n.Anchor)}
		case ok:
			return s, nil
		}
		w.sizes[n] = inProgress
	}
	total := int64(1)
	for _, c := range n.Content {
		s, err := w.size(c, depth+1)
		if err != nil {
			return 0, err
		}
		total += s
		if total > w.lim.aliasNodes {
			total = w.lim.aliasNodes + 1
		}
	}
	if n.Anchor != "" {
		w.sizes[n] = total
	}
	return total, nil
}
