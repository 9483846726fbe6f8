package protowalk

// Envoy's validation rules on a message and on every message packed in an
// Any inside it.

import (
	"google.golang.org/protobuf/proto"
)

// ValidateDeep runs m's ValidateAll and that of every message packed in an
// Any inside m. ValidateAll already recurses into plain sub-messages, so only
// Any contents need a call of their own.
func ValidateDeep(m proto.Message) error { return ValidateDeepSeen(m, nil) }

// ValidateDeepSeen is ValidateDeep skipping the Anys in seen, and adding
// those it checks.
func ValidateDeepSeen(m proto.Message, seen map[string]bool) error {
	if err := ValidateSpread(m); err != nil {
		return err
	}
	w := &Walker{Unpacked: ValidateOne, Seen: seen}
	_, err := w.Walk(m.ProtoReflect())
	return err
}

type validatorAll interface{ ValidateAll() error }

// ValidateOne runs m's generated validation; a type without rules (none in
// go-control-plane, but Anys may hold anything) is valid.
func ValidateOne(m proto.Message) error {
	if v, ok := m.(validatorAll); ok {
		return v.ValidateAll()
	}
	return nil
}
