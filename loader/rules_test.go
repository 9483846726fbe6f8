package loader

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestRulesNameRealFields guards the defaults and validation tables
// against typos: every rule must name a JSON field of its Go type.
func TestRulesNameRealFields(t *testing.T) {
	for k := range fieldRules() {
		found := false
		for i := 0; i < k.owner.NumField(); i++ {
			if name, _ := jsonName(k.owner.Field(i)); name == k.name {
				found = true
			}
		}
		if !found {
			t.Errorf("rule for %s.%s: no such JSON field", k.owner, k.name)
		}
	}
}

// TestDefaultsDecode checks that every default decodes into its field.
func TestDefaultsDecode(t *testing.T) {
	for k, r := range fieldRules() {
		if r.def == nil {
			continue
		}
		v := reflect.New(k.owner).Elem()
		si := planFor(k.owner).fields
		f := si.byName[k.name]
		d := &decoder{}
		d.decode(r.def, fieldValue(v, f.index))
		if len(d.errs) > 0 {
			t.Errorf("default of %s.%s: %v", k.owner, k.name, d.errs)
		}
	}
}

// TestKindsTable checks the kind table's consistency: the internal
// version is served, and New makes an object of the kind.
func TestKindsTable(t *testing.T) {
	seen := map[groupKind]bool{}
	for _, k := range Kinds() {
		gk := groupKind{k.Group, k.Kind}
		if seen[gk] {
			t.Errorf("%s listed twice", k.Kind)
		}
		seen[gk] = true
		if k.Served[0] != k.Version {
			t.Errorf("%s: internal version %s is not the first served", k.Kind, k.Version)
		}
		obj := k.New()
		if _, ok := obj.(runtime.Object); !ok {
			t.Errorf("%s: %T is not a runtime.Object", k.Kind, obj)
		}
		if name := reflect.TypeOf(obj).Elem().Name(); name != k.Kind {
			t.Errorf("%s: New makes a %s", k.Kind, name)
		}
	}
}

// TestDefaultsFilledAsDecoded: every default, filled into two absent
// fields (the second time from the decoded copy scalarDefault keeps),
// equals the default decoded from its YAML, and the two fields share no
// pointer.
func TestDefaultsFilledAsDecoded(t *testing.T) {
	copied := 0
	for k, r := range fieldRules() {
		if r.def == nil {
			continue
		}
		si := planFor(k.owner).fields
		f := si.byName[k.name]
		want := reflect.New(k.owner).Elem()
		d := &decoder{}
		d.decode(r.def, fieldValue(want, f.index))
		var filled [2]reflect.Value
		for i := range filled {
			filled[i] = reflect.New(k.owner).Elem()
			d := &decoder{}
			d.fillAbsent(r.def, filled[i], &structInfo{ruled: []*fieldInfo{f}}, make([]bool, len(si.list)))
			if !reflect.DeepEqual(filled[i].Interface(), want.Interface()) {
				t.Errorf("%s.%s filled as %#v, want %#v", k.owner, k.name, fieldValue(filled[i], f.index).Interface(), fieldValue(want, f.index).Interface())
			}
		}
		a, b := fieldValue(filled[0], f.index), fieldValue(filled[1], f.index)
		if a.Kind() == reflect.Pointer && !a.IsNil() && a.Pointer() == b.Pointer() {
			t.Errorf("%s.%s: two fields share one default pointer", k.owner, k.name)
		}
		if _, ok := f.scalarDefault(a.Type()); ok {
			copied++
		}
	}
	if copied == 0 {
		t.Error("no default is copied: the test checks too little")
	}
}
