package diff

import (
	"slices"
	"sort"
)

// Object is the verdict on one object's status on one side, as the caller
// judges it (contourc's verdict: valid, invalid, orphaned, NotAccepted...).
type Object struct {
	Kind      string
	Namespace string
	Name      string
	// Source is where the object is defined, "file:line".
	Source  string
	Verdict string
	OK      bool
	Reasons []string
}

func (o Object) key() string { return o.Kind + " " + o.Namespace + "/" + o.Name }

// diffStatus reports objects that became invalid (including invalid objects
// that appeared), that recovered (including invalid objects that went
// away), and invalid objects whose reasons changed. Valid objects coming
// and going show up in the resources they produce, not here.
func diffStatus(old, new []Object) []StatusChange {
	olds, news := byName(old, Object.key), byName(new, Object.key)
	var out []StatusChange
	for _, k := range unionKeys(olds, news) {
		o, inOld := olds[k]
		n, inNew := news[k]
		oldBad, newBad := inOld && !o.OK, inNew && !n.OK
		ch := StatusChange{OldVerdict: o.Verdict, NewVerdict: n.Verdict}
		switch {
		case newBad && !oldBad:
			ch.Change, ch.Reasons = BecameInvalid, n.Reasons
		case oldBad && !newBad:
			ch.Change, ch.OldReasons = Recovered, o.Reasons
		case oldBad && newBad && (o.Verdict != n.Verdict || !slices.Equal(o.Reasons, n.Reasons)):
			ch.Change, ch.Reasons, ch.OldReasons = ReasonsChanged, n.Reasons, o.Reasons
		default:
			continue
		}
		obj := n
		if !inNew {
			obj = o
		}
		ch.Kind, ch.Namespace, ch.Name, ch.Source = obj.Kind, obj.Namespace, obj.Name, obj.Source
		out = append(out, ch)
	}
	sort.SliceStable(out, func(i, j int) bool { return statusOrder[out[i].Change] < statusOrder[out[j].Change] })
	return out
}

// statusOrder puts new problems first: they are what a review must catch.
var statusOrder = map[StatusOp]int{BecameInvalid: 0, ReasonsChanged: 1, Recovered: 2}
