// Package repoconfig reads the repository config file, .contourc.yaml: the
// flags a repository's runs always need, kept beside its manifests. Every
// key is a flag by the camelCase of its long name, found by walking the
// commands' flag sets (Keys), so a flag added to a command is a key of the
// file without a change here; the instances: key adds Contours whose install
// is not in the repository. Apply sets, before a command runs, the flags its
// command line did not.
package repoconfig
