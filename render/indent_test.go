package render

import (
	"bytes"
	"encoding/json"
	"testing"
)

// appendIndented lays out JSON exactly as json.Indent does, whatever
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
		if got := string(appendIndented(nil, []byte(in), "    ")); got != wantS {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", in, got, wantS)
		}
	}
}
