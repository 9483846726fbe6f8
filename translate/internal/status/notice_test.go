package status

import (
	"testing"

	"github.com/contourc/contourc/loader"
)

// TestNoticeString checks how a notice reads: the place, then the object
// (or the kind alone, for the configuration), then the message.
func TestNoticeString(t *testing.T) {
	src := loader.Source{File: "app.yaml", Line: 3}
	for _, tt := range []struct {
		n    Notice
		want string
	}{
		{Notice{Source: src, Kind: "Service", Name: "default/kuard", Msg: "no endpoints"}, "app.yaml:3: Service default/kuard: no endpoints"},
		{Notice{Kind: "ContourConfiguration", Msg: "ignored"}, "ContourConfiguration: ignored"},
		{Notice{Msg: "plain"}, "plain"},
	} {
		if got := tt.n.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
