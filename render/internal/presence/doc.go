// Package presence reads generated Envoy message structs without
// protoreflect's per-field cost: for each message type a plan, worked out
// once from the struct's protobuf tags, says whether each field is set and
// reads its value with a memory read, and which fields can lead to the
// message types a walk looks for (Targets). The JSON encoder
// (render/internal/protojson) and the walks (render/internal/protowalk)
// read every message through it.
package presence
