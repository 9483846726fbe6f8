package render

// One message printed the way render prints resources, for other
// commands that write Envoy configuration (contourc bootstrap).

import (
	"errors"

	"google.golang.org/protobuf/proto"

	"github.com/contourc/contourc/render/internal/jsontext"
	"github.com/contourc/contourc/render/internal/protojson"
)

// MessageJSON prints m with proto field names, indented by two spaces and
// ending in a newline; the same message always gives the same bytes.
func MessageJSON(m proto.Message) ([]byte, error) {
	js, err := protojson.Indented("").Marshal(nil, m)
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// MessageYAML prints m as block YAML, keys in proto declaration order and
// strings quoted wherever a YAML reader could take them for something else,
// as the static bootstrap is printed. m must print as a JSON object.
func MessageYAML(m proto.Message) ([]byte, error) {
	raw, err := protojson.Compact().Marshal(nil, m)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, errors.New("render: empty message")
	}
	return jsontext.ToYAML(raw)
}
