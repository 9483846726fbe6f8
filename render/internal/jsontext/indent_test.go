package jsontext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// AppendIndented lays out JSON exactly as json.Indent does, whatever
// whitespace the input has.
func TestAppendIndentedMatchesJSONIndent(t *testing.T) {
	inputs := []string{
		`{}`, `[]`, `"s"`, `1`, `null`,
		`{"a":1,"b":[1,2,{}],"c":{"d":[]},"e":[[],[{}]]}`,
		` { "a" :  [ 1 , 2 ] ,  "b" : { } , "c" : [ ] } `,
		`{"q":"a\"b","r":"a\\","s":"a\\\"b","t":"{[,:]}","u":"\\\\"}`,
		`[true,false,null,-1.5e+21,"\u2028"]`,
	}
	for _, in := range inputs {
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(in), "    ", "  "); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		// json.Indent keeps trailing space; the renderer never has any.
		wantS := string(bytes.TrimRight(want.Bytes(), " "))
		if got := string(AppendIndented(nil, []byte(in), "    ")); got != wantS {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", in, got, wantS)
		}
	}
}

// NewLine indents any depth, deeper than its run of spaces too.
func TestNewLineDepths(t *testing.T) {
	for _, depth := range []int{0, 1, 31, 32, 33, 70} {
		want := "\n>" + strings.Repeat(IndentUnit, depth)
		if got := string(NewLine(nil, ">", depth)); got != want {
			t.Errorf("depth %d: %q, want %q", depth, got, want)
		}
	}
}
