// Package manifest is the bottom of the loader: the text of one input made
// into YAML documents and their nodes, and a node decoded strictly into a
// Go type, every error placed at its file and line.
//
// It holds what every other part of the loader uses: Source (where an
// object was read from) and Error (a problem there, worded as the API
// server words it); text.go (BOM, line ends, binary input refused),
// yaml.go (with internal/fastyaml) and json.go (text to yaml.Node
// documents, with bounds.go refusing alias bombs and deep nesting);
// decode.go with fields.go, scalar.go and rules.go (strict typed decoding
// as the API server's, with coded defaults), unstructured.go (a node as
// the map admission reads) and fieldline.go (field errors placed at their
// lines). It knows no kinds: which type a document decodes into is the
// loader's choice.
package manifest
