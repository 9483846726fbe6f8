// Package protowalk walks an Envoy message depth first, into the messages
// packed in its google.protobuf.Any values, where Envoy keeps most of its
// configuration: the walk render's inlining, reference checks and
// validation (ValidateDeep) are made of, the contents of Anys it decoded
// (Decoded), kept for the passes after it, and the identity of a packed
// message (AnyKey) by which repeated ones are walked and printed once.
package protowalk
