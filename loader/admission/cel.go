package admission

import (
	"context"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// celWalk evaluates the rules of each place of a value that has some, in
// the order the API server's CEL validator visits them, with its cost
// budget for the whole object.
type celWalk struct {
	path   []segment
	keyed  []bool // the segment is a map key (additionalProperties), not a field
	budget int64
	errs   field.ErrorList
	enc    encoder
}

func (w *celWalk) walk(n *node, v any) {
	if v == nil || !n.hasRules() || w.budget < 0 {
		return
	}
	if cv := n.celValidator(); cv != nil {
		w.evaluate(n, v)
	}
	switch v := v.(type) {
	case map[string]any:
		n.children()
		// In map order, as the API server's CEL validator goes.
		for k, x := range v {
			c, keyed := n.fields[k], false
			if c == nil {
				c, keyed = n.additional, true
			}
			if c == nil {
				continue
			}
			w.push(segment{name: k, index: -1}, keyed)
			w.walk(c, x)
			w.pop()
		}
	case []any:
		n.children()
		if n.items == nil {
			return
		}
		for i, x := range v {
			w.push(segment{index: i}, false)
			w.walk(n.items, x)
			w.pop()
		}
	}
}

func (w *celWalk) push(s segment, keyed bool) {
	w.path = append(w.path, s)
	w.keyed = append(w.keyed, keyed)
}

func (w *celWalk) pop() {
	w.path = w.path[:len(w.path)-1]
	w.keyed = w.keyed[:len(w.keyed)-1]
}

// evaluate runs n's rules on v, or takes their outcome from an earlier
// evaluation of the same value at the same place.
func (w *celWalk) evaluate(n *node, v any) {
	w.enc.reset()
	w.enc.observed(v, n.observation)
	h := hashBytes(w.enc.buf)
	if cost, ok := n.celPassed.Load(h); ok && cost.(int64) <= w.budget {
		w.budget -= cost.(int64)
		return
	}
	errs, remaining := n.celValidator().Validate(context.Background(), w.fieldPath(), nil, v, nil, w.budget)
	cost := w.budget - remaining
	w.budget = remaining
	if len(errs) > 0 {
		w.errs = append(w.errs, errs...)
		return
	}
	if celRemembered.Add(1) <= maxRemembered {
		n.celPassed.Store(h, cost)
	}
}

// fieldPath is the walk's path as the CEL validator builds it.
func (w *celWalk) fieldPath() *field.Path {
	var p *field.Path
	for i, s := range w.path {
		switch {
		case s.index >= 0:
			p = p.Index(s.index)
		case w.keyed[i]:
			p = p.Key(s.name)
		case p == nil:
			p = field.NewPath(s.name)
		default:
			p = p.Child(s.name)
		}
	}
	return p
}

// hasRules says whether n or a place below it has rules.
func (n *node) hasRules() bool {
	n.rulesOnce.Do(func() { n.rules = subtreeHas(n.st, hasRules) })
	return n.rules
}

func hasRules(s *structuralschema.Structural) bool { return len(s.XValidations) > 0 }

// subtreeHas says whether s or a place below it is one keep wants.
func subtreeHas(s *structuralschema.Structural, keep func(*structuralschema.Structural) bool) bool {
	if s == nil {
		return false
	}
	if keep(s) || subtreeHas(s.Items, keep) {
		return true
	}
	for k := range s.Properties {
		p := s.Properties[k]
		if subtreeHas(&p, keep) {
			return true
		}
	}
	return s.AdditionalProperties != nil && subtreeHas(s.AdditionalProperties.Structural, keep)
}
