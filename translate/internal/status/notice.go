package status

import "github.com/contourc/contourc/loader"

// Notice is an informational message tied to an object.
type Notice struct {
	Source loader.Source
	Kind   string
	Name   string // namespace/name
	Msg    string
}

// String is the notice as the commands print it: the place, the object,
// the message.
func (n Notice) String() string {
	s := n.Source.String()
	if s != "" {
		s += ": "
	}
	switch {
	case n.Kind != "" && n.Name != "":
		s += n.Kind + " " + n.Name + ": "
	case n.Kind != "":
		s += n.Kind + ": " // the configuration, say
	}
	return s + n.Msg
}
