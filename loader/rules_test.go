package loader

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// TestRulesNameRealFields guards the defaults and validation tables
// against typos: every rule must name a JSON field of its Go type.
func TestRulesNameRealFields(t *testing.T) {
	for k := range manifest.FieldRules() {
		found := false
		for i := 0; i < k.Owner.NumField(); i++ {
			if name, _ := manifest.JSONName(k.Owner.Field(i)); name == k.Name {
				found = true
			}
		}
		if !found {
			t.Errorf("rule for %s.%s: no such JSON field", k.Owner, k.Name)
		}
	}
}

// TestDefaultsDecode checks that every default decodes into its field.
func TestDefaultsDecode(t *testing.T) {
	for k, r := range manifest.FieldRules() {
		if r.Def == nil {
			continue
		}
		v := reflect.New(k.Owner).Elem()
		si := manifest.PlanFor(k.Owner).Fields
		f := si.ByName[k.Name]
		d := &manifest.Decoder{}
		d.Decode(r.Def, manifest.FieldValue(v, f.Index))
		if len(d.Errs) > 0 {
			t.Errorf("default of %s.%s: %v", k.Owner, k.Name, d.Errs)
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
	for k, r := range manifest.FieldRules() {
		if r.Def == nil {
			continue
		}
		si := manifest.PlanFor(k.Owner).Fields
		f := si.ByName[k.Name]
		want := reflect.New(k.Owner).Elem()
		d := &manifest.Decoder{}
		d.Decode(r.Def, manifest.FieldValue(want, f.Index))
		var filled [2]reflect.Value
		for i := range filled {
			filled[i] = reflect.New(k.Owner).Elem()
			d := &manifest.Decoder{}
			d.FillAbsent(r.Def, filled[i], &manifest.StructInfo{Ruled: []*manifest.FieldInfo{f}}, make([]bool, len(si.List)))
			if !reflect.DeepEqual(filled[i].Interface(), want.Interface()) {
				t.Errorf("%s.%s filled as %#v, want %#v", k.Owner, k.Name, manifest.FieldValue(filled[i], f.Index).Interface(), manifest.FieldValue(want, f.Index).Interface())
			}
		}
		a, b := manifest.FieldValue(filled[0], f.Index), manifest.FieldValue(filled[1], f.Index)
		if a.Kind() == reflect.Pointer && !a.IsNil() && a.Pointer() == b.Pointer() {
			t.Errorf("%s.%s: two fields share one default pointer", k.Owner, k.Name)
		}
		if _, ok := f.ScalarDefault(a.Type()); ok {
			copied++
		}
	}
	if copied == 0 {
		t.Error("no default is copied: the test checks too little")
	}
}
