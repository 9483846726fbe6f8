// Package substitute does Flux's post-build substitution: ${VAR} and the
// other bash forms replaced in the text of a file's documents before they
// are parsed, keeping every line where it is (variables.go), or in the
// objects of a kustomize build one by one (built.go), with the variables
// of --substitute and --substitute-from files (from.go).
package substitute
