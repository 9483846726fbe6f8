package main

import (
	"strings"
	"testing"

	"github.com/contourc/contourc/cmd/contourc/internal/verdict"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// The warm-up manifest is valid and goes all the way: every object valid,
// clusters, route tables and listeners built, and both formats rendered.
func TestWarmManifest(t *testing.T) {
	loaded, err := loader.Load([]string{"-"}, loader.Options{Stdin: strings.NewReader(warmManifest)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := translate.Translate(loaded.Objects, translate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Status {
		if v := verdict.OfStatus(st.Status); !v.OK {
			t.Errorf("%s %s/%s: %v", st.Kind, st.Namespace, st.Name, v)
		}
	}
	if len(res.Notices) > 0 {
		t.Errorf("notices: %v", res.Notices)
	}
	r := res.Resources
	if len(r.Clusters) == 0 || len(r.RouteConfigs) == 0 || len(r.Listeners) == 0 || len(r.Endpoints) == 0 {
		t.Errorf("resources: %d clusters, %d route tables, %d listeners, %d load assignments",
			len(r.Clusters), len(r.RouteConfigs), len(r.Listeners), len(r.Endpoints))
	}
	for _, format := range []string{"yaml", "json"} {
		if err := warm(format); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}
