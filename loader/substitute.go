package loader

import "github.com/contourc/contourc/loader/substitute"

// Flux's post-build substitution is done by loader/substitute; these names
// are the loader's API for it.

// Substitution is a set of variables for Flux's post-build substitution.
type Substitution = substitute.Substitution

// NewSubstitution checks the names of vars as Flux does and returns the
// substitution of their values (substitute.New).
func NewSubstitution(vars map[string]string, strict bool) (*Substitution, error) {
	return substitute.New(vars, strict)
}

// ReadSubstituteFrom reads the variables of one --substitute-from file
// (substitute.ReadFrom).
func ReadSubstituteFrom(path string) (map[string]string, error) {
	return substitute.ReadFrom(path)
}
