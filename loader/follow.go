package loader

import (
	"github.com/contourc/contourc/loader/follow"
	"github.com/contourc/contourc/loader/internal/manifest"
	"github.com/contourc/contourc/loader/kustomize"
)

// follow.go: the load's side of following GitOps entry points. The
// engine is loader/follow; what it builds is decoded here, as the walk's
// files and kustomizations are, through entryDecoder, which the engine is
// handed as its follow.Load. The engine's types are the loader's API
// under these names, which loader/flux, loader/argocd and cmd/contourc
// use.
type (
	// Follow tells Load to follow GitOps entry points.
	Follow = follow.Follow
	// A Follower finds one GitOps tool's entry points.
	Follower = follow.Follower
	// FollowInput is what a Follower may read besides the entry points.
	FollowInput = follow.FollowInput
	// Entry is one entry point.
	Entry = follow.Entry
	// Built is what an entry built: a kustomize build, files, or both.
	Built = follow.Built
	// BuiltFile is a manifest an entry built, read as a file of that name.
	BuiltFile = follow.BuiltFile
	// EntryReport is what became of one entry point, for -v and check.
	EntryReport = follow.EntryReport
)

// entryDecoder decodes what entries built with the load's options, and
// keeps the parts to merge with the walk's.
type entryDecoder struct {
	opts  Options
	parts []partResult
	// skipped are the files entries read as walked that are not
	// manifests.
	skipped []SkippedFile
}

// IsGitOps is the package's IsGitOps, for the engine.
func (d *entryDecoder) IsGitOps(o Object) bool { return IsGitOps(o) }

// Decode decodes one entry's build, each object and error of it given
// origin as its entry.
func (d *entryDecoder) Decode(b *Built, origin *EntryOrigin) []Object {
	p := d.decode(b)
	for i := range p.objs {
		p.objs[i].Source.Via, p.objs[i].Source.Entry = "", origin
	}
	for _, err := range p.errs {
		if e, ok := err.(*Error); ok && e.Source.Entry == nil {
			e.Source.Via, e.Source.Entry = "", origin
		}
	}
	p.sorted = nil // the objects' sources changed
	d.parts = append(d.parts, p)
	return p.objs
}

// decode decodes what an entry built: in the entry's namespace (objects
// that name another keep theirs) and with its variables, afresh each load.
func (d *entryDecoder) decode(b *Built) partResult {
	o := d.opts
	o.Cache, o.Namespace, o.Substitute, o.keepOwnNamespace = nil, b.Namespace, b.Substitute, true
	var parts []partResult
	if r := b.Kustomize; r != nil {
		switch {
		case r.Err != nil && !kustomize.IsNotBuilt(r.Err):
			parts = append(parts, partResult{errs: []error{&Error{Source: Source{File: r.Dir}, Msg: "kustomize build failed: " + kustomize.Message(r.Err.Error())}}})
		case r.Err == nil:
			parts = append(parts, (&builtDecoder{opts: o}).decode(*r))
		}
		for _, w := range buildWarnings(*r, r.Dir) {
			parts = append(parts, partResult{errs: nil, warnings: []Warning{w}})
		}
	}
	for _, f := range b.Files {
		p := partResult{skipped: map[string]int{}}
		text, err := manifest.NormalizeText(f.Name, f.Data)
		if err != nil {
			p.errs = []error{err}
		} else if text, err = o.Substitute.Apply(f.Name, text); err != nil {
			p.errs = []error{err}
		} else {
			p.objs, p.errs = loadFileText(f.Name, text, o, p.skipped)
		}
		if f.AsWalked {
			if p = skipNotManifest(f.Name, text, p); p.file != nil {
				d.skipped = append(d.skipped, *p.file)
			}
		}
		parts = append(parts, p)
	}
	for _, more := range b.Also {
		parts = append(parts, d.decode(more))
	}
	p := partResult{skipped: map[string]int{}, warnings: b.Warnings}
	p.objs, p.errs = mergeParts(parts, p.skipped)
	for _, q := range parts {
		p.warnings = append(p.warnings, q.warnings...)
	}
	return p
}
