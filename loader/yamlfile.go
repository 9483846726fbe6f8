package loader

import (
	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// ReadYAMLDocument reads a file that holds one YAML document (a
// configuration file rather than a manifest stream) and returns its name
// as errors give it and its root node, nil when the file is empty. It has
// the bounds and the text checks of manifests (no NUL bytes, UTF-8, alias
// and depth limits), and its nodes carry the lines of the file.
func ReadYAMLDocument(path string) (string, *yaml.Node, error) {
	return readYAMLDocument(path, Options{})
}

func readYAMLDocument(path string, opts Options) (string, *yaml.Node, error) {
	name, data, err := readInput(path, true, opts)
	if err != nil {
		return name, nil, err
	}
	if data, err = manifest.NormalizeText(name, data); err != nil {
		return name, nil, err
	}
	docs, err := manifest.ParseYAMLChunk(name, manifest.Chunk{Text: data, Line: 1}, opts.limits(), nil)
	if err != nil {
		return name, nil, err
	}
	switch len(docs) {
	case 0:
		return name, nil, nil
	case 1:
		return name, docs[0].Root, nil
	}
	return name, nil, &Error{Source: Source{File: name, Line: docs[1].Root.Line}, Msg: "a configuration file holds one YAML document"}
}

// DescribeNode says what a node is, for "expected X, got Y" messages about
// files read with ReadYAMLDocument, worded as the loader's own.
func DescribeNode(n *yaml.Node) string { return manifest.DescribeNode(n) }
