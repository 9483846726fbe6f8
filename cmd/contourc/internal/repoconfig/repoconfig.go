package repoconfig

// The file's keys (the commands' flags), finding and parsing the file, and
// setting the flags it gives.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/contourc/contourc/loader"
)

// Name is the file's name, looked for in the directory of the
// first PATH and above it up to the Git top-level.
const Name = ".contourc.yaml"

// notConfigFlags are the flags that are no key of the file: the file's own
// --config, --help, --output (a file every run would overwrite), the
// root's flags of one run (--verbose, --cpu-profile), and serve's
// --allow-stand-ins: an edge box serves a made-up certificate only when
// its command line says so, never by a file's say-so; check's --lint, whose
// name is the lint: section's, and --now, the clock of one run.
var notConfigFlags = map[string]bool{"help": true, "config": true, "output": true, "verbose": true, "cpu-profile": true, "allow-stand-ins": true, "lint": true, "now": true}

// repoPathFlags are the flags whose values are paths, resolved against the
// repository root, beside those that say so themselves (`FILE`, `PATH` or
// `DIR` in their usage, or cobra's filename annotation; see isPathFlag).
var repoPathFlags = map[string]bool{"config-path": true, "substitute-from": true, "cluster-context": true}

// SectionKeys are the keys of the sections that name flags otherwise
// than by their camelCase (assume: secrets is --assume-secret), by
// section, with their flags: assume: (objects the cluster has), flux: and
// argocd: (which sources and repositories are this one).
var SectionKeys = map[string]map[string]string{
	"assume": {"secrets": "assume-secret", "services": "assume-service"},
	"flux":   {"sources": "flux-source"},
	"argocd": {"repos": "argocd-repo"},
}

// helmKeys are the keys of the config file's helm: section and their
// flags.
var helmKeys = map[string]string{
	"releaseName": "release-name",
	"values":      "values",
	"set":         "set",
	"setString":   "set-string",
	"kubeVersion": "kube-version",
}

// lintKeys are the keys of the lint: section (cmd/contourc/lint.go) and their flags.
var lintKeys = map[string]string{"disable": "disable", "certExpiryDays": "cert-expiry-days"}

// Value is the --config flag. It also keeps the file once it is
// read, for the command's RunE (the paths key).
type Value struct {
	file   string
	Loaded *Config
}

func (v *Value) String() string     { return v.file }
func (v *Value) Set(s string) error { v.file = s; return nil }
func (v *Value) Type() string       { return "string" }

func Register(fs *pflag.FlagSet, v *Value) {
	fs.Var(v, "config", "read the repository config `FILE` (default: "+Name+" in the first PATH's directory or above it, up to the Git top-level)")
}

// Config is a read config file.
type Config struct {
	file string // as messages name it
	Root string // the repository root: the file's directory
	// Paths are the paths key's, resolved, for check and render without PATH.
	Paths    []string
	settings []repoSetting
	// instances are the instances key's (internal/repoconfig/instances.go).
	instances []configInstance
}

// repoSetting is one key of the file that sets a flag.
type repoSetting struct {
	key    string // as written, with its section: contour.gateway
	line   int
	flag   string   // the flag's long name
	values []string // one for a scalar flag, the items of a list flag
	// merge is set for a mapping (substitute: {NAME: VALUE}): its NAME=VALUE
	// items come before the command line's, which win per name.
	merge bool
}

// Flag is what the file knows of a flag of some command.
type Flag struct {
	Name  string
	Usage string
	Type  string // the flag's value type: bool, int, stringArray...
	Bool  bool
	Slice bool
	Path  bool
	// pairs is set for flags of NAME=VALUE items, which a mapping may give.
	Pairs bool
	// negate is set for the key of a --no- flag, which sets it the other
	// way round: standIns: false is --no-stand-ins.
	Negate bool
	// commands take the flag, for the schema's descriptions.
	Commands []string
}

// Keys are the keys of the file, by their path (gateway,
// contour.gateway, assume.secrets), and the flags they set: each flag of a
// command that reads the file, by the camelCase of its long name, at the
// top or in the contour: section; the key of a boolean --no-x flag is x;
// the sections of SectionKeys hold their flags by their own keys
// (assume.secrets is --assume-secret, argocd.repos --argocd-repo), helm:
// holds helm template's flags (helmKeys). paths and instances are the
// keys that set no flag.
func Keys(root *cobra.Command) map[string]Flag {
	flags := map[string]Flag{}
	for _, c := range root.Commands() {
		if _, ok := Lookup(c); !ok {
			continue
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || notConfigFlags[f.Name] {
				return
			}
			cf, ok := flags[f.Name]
			if !ok {
				_, slice := f.Value.(pflag.SliceValue)
				varname, usage := pflag.UnquoteUsage(f)
				cf = Flag{Name: f.Name, Usage: usage, Type: f.Value.Type(), Bool: f.Value.Type() == "bool",
					Slice: slice, Path: isPathFlag(f), Pairs: isPairs(varname)}
			}
			cf.Commands = append(cf.Commands, c.Name())
			flags[f.Name] = cf
		})
	}
	keys := map[string]Flag{}
	for name, f := range flags {
		key := camelCase(name)
		if rest, ok := strings.CutPrefix(name, "no-"); ok && f.Bool {
			if _, positive := flags[rest]; !positive {
				key, f.Negate = camelCase(rest), true
			}
		}
		keys[key] = f
		keys["contour."+key] = f
	}
	for section, subs := range SectionKeys {
		for sub, name := range subs {
			if f, ok := flags[name]; ok {
				keys[section+"."+sub] = f
			}
		}
	}
	for sub, name := range helmKeys {
		if f, ok := flags[name]; ok {
			keys["helm."+sub] = f
		}
	}
	for sub, name := range lintKeys {
		if f, ok := flags[name]; ok {
			keys["lint."+sub] = f
		}
	}
	return keys
}

// Lookup reports whether c reads the repository config file.
func Lookup(c *cobra.Command) (*Value, bool) {
	f := c.Flags().Lookup("config")
	if f == nil {
		return nil, false
	}
	v, ok := f.Value.(*Value)
	return v, ok
}

// isPairs says whether a flag's values are NAME=VALUE items (its
// varname says so), which a mapping may give; an optional =PART
// (--flux-source's [=DIR]) makes no pair.
func isPairs(varname string) bool {
	return strings.Contains(varname, "=") && !strings.Contains(varname, "[=")
}

func isPathFlag(f *pflag.Flag) bool {
	if repoPathFlags[f.Name] || f.Annotations[cobra.BashCompFilenameExt] != nil || f.Annotations[cobra.BashCompSubdirsInDir] != nil {
		return true
	}
	name, _ := pflag.UnquoteUsage(f)
	return name == "FILE" || name == "PATH" || name == "DIR"
}

// camelCase is the key of a flag: ingress-class-name is ingressClassName.
func camelCase(flag string) string {
	parts := strings.Split(flag, "-")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// findRepoConfig looks for the file in start's directory and each one
// above it up to the Git top-level (the directory holding .git). Outside a
// Git repository it looks in start's directory only: a file found higher
// up (in a home directory) would belong to no repository.
func findRepoConfig(start string) (string, bool) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	inGit := gitTopLevel(dir) != ""
	for {
		candidate := filepath.Join(dir, Name)
		if fi, err := os.Stat(candidate); err == nil && fi.Mode().IsRegular() {
			return candidate, true
		}
		if !inGit || exists(filepath.Join(dir, ".git")) {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// gitTopLevel is the directory at or above dir that holds .git (a
// directory, or a file in a worktree), or "" outside a repository.
func gitTopLevel(dir string) string {
	for {
		if exists(filepath.Join(dir, ".git")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// defaultRepoRoot is the repository root of a run without a config file: the Git
// top-level of path, else path itself.
func defaultRepoRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if top := gitTopLevel(abs); top != "" {
		return top
	}
	return abs
}

// Apply reads the config file of cmd's run (--config, or the
// one found from the first PATH or the current directory) and sets the
// flags the command line did not. Keys of flags cmd does not have are
// left out; -v says which.
func Apply(cmd *cobra.Command, args []string, verbose bool, errOut io.Writer) error {
	v, ok := Lookup(cmd)
	if !ok {
		return nil
	}
	file := v.file
	if file == "" {
		start := "."
		if len(args) > 0 && args[0] != "-" {
			start = args[0]
		}
		if file, ok = findRepoConfig(start); !ok {
			return nil
		}
		if rel, err := filepath.Rel(mustGetwd(), file); err == nil {
			file = rel
		}
	}
	cfg, err := Read(file, Keys(cmd.Root()))
	if err != nil {
		return err
	}
	v.Loaded = cfg
	if verbose {
		fmt.Fprintf(errOut, "using config %s\n", cfg.file)
	}
	return cfg.apply(cmd.Flags(), verbose, errOut)
}

func mustGetwd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}

// Read reads file, whose keys may set the flags of known.
func Read(file string, known map[string]Flag) (*Config, error) {
	name, root, err := loader.ReadYAMLDocument(file)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	p := &configParser{cfg: &Config{file: name, Root: dir}, known: known, seen: map[string]bool{}}
	if root != nil {
		p.top(follow(root))
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return p.cfg, nil
}

// configParser walks the file's nodes, collecting settings and errors.
type configParser struct {
	cfg   *Config
	known map[string]Flag
	seen  map[string]bool // flags set already, for keys that set one twice
	errs  []error
}

func (p *configParser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &loader.Error{Source: loader.Source{File: p.cfg.file, Line: line}, Msg: fmt.Sprintf(format, args...)})
}

func (p *configParser) top(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "expected an object, got %s", loader.DescribeNode(n))
		return
	}
	p.eachKey(n, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "paths":
			p.cfg.Paths = p.resolve(p.items(key, v, false), true)
		case "instances":
			p.instances(v)
		case "helm", "contour", "lint":
			p.section(key, v, func(sub string, k, v *yaml.Node) { p.flagKey(key+"."+sub, k, v) })
		default:
			if SectionKeys[key] != nil {
				p.section(key, v, func(sub string, k, v *yaml.Node) { p.flagKey(key+"."+sub, k, v) })
				return
			}
			p.flagKey(key, k, v)
		}
	})
}

// eachKey calls fn on each key of mapping n with a string key; prefix
// names the mapping in errors.
func (p *configParser) eachKey(n *yaml.Node, prefix string, fn func(key string, k, v *yaml.Node)) {
	keys := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := follow(n.Content[i]), follow(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.errorf(k.Line, "%sa field name must be a string", prefix)
			continue
		}
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if keys[k.Value] {
			p.errorf(k.Line, "duplicate field %q", path)
			continue
		}
		keys[k.Value] = true
		fn(k.Value, k, v)
	}
}

func (p *configParser) section(key string, v *yaml.Node, fn func(sub string, k, v *yaml.Node)) {
	if isNullNode(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		p.errorf(v.Line, "%s: expected an object, got %s", key, loader.DescribeNode(v))
		return
	}
	p.eachKey(v, key, fn)
}

// flagKey reads the key that sets a flag (see Keys).
func (p *configParser) flagKey(key string, k, v *yaml.Node) {
	f, ok := p.known[key]
	if !ok {
		p.errorf(k.Line, "unknown field %q", key)
		return
	}
	if isNullNode(v) {
		return // absent, as in a manifest
	}
	if p.seen[f.Name] {
		p.errorf(k.Line, "duplicate field %q: --%s is set by another key already", key, f.Name)
		return
	}
	p.seen[f.Name] = true
	s := repoSetting{key: key, line: k.Line, flag: f.Name}
	switch {
	case f.Bool:
		b, err := strconv.ParseBool(v.Value)
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" || err != nil {
			p.errorf(v.Line, "%s: expected a boolean, got %s", key, loader.DescribeNode(v))
			return
		}
		s.values = []string{strconv.FormatBool(b != f.Negate)}
	case f.Slice:
		s.merge = v.Kind == yaml.MappingNode
		s.values = p.resolve(p.items(key, v, f.Pairs), f.Path)
	default:
		if v.Kind != yaml.ScalarNode {
			p.errorf(v.Line, "%s: expected a string, got %s", key, loader.DescribeNode(v))
			return
		}
		s.values = p.resolve([]string{v.Value}, f.Path)
	}
	p.cfg.settings = append(p.cfg.settings, s)
}

// items are the values of a list key: a scalar, a list of scalars or, when
// pairs, a mapping of scalars as NAME=VALUE items.
func (p *configParser) items(key string, v *yaml.Node, pairs bool) []string {
	switch v.Kind {
	case yaml.ScalarNode:
		if isNullNode(v) {
			return nil
		}
		return []string{v.Value}
	case yaml.SequenceNode:
		out := make([]string, 0, len(v.Content))
		for i, it := range v.Content {
			it = follow(it)
			if it.Kind != yaml.ScalarNode || isNullNode(it) {
				p.errorf(it.Line, "%s[%d]: expected a string, got %s", key, i, loader.DescribeNode(it))
				continue
			}
			out = append(out, it.Value)
		}
		return out
	case yaml.MappingNode:
		if pairs {
			var out []string
			p.eachKey(v, key, func(name string, _, val *yaml.Node) {
				if val.Kind != yaml.ScalarNode {
					p.errorf(val.Line, "%s.%s: expected a string, got %s", key, name, loader.DescribeNode(val))
					return
				}
				out = append(out, name+"="+val.Value)
			})
			return out
		}
	}
	p.errorf(v.Line, "%s: expected a list, got %s", key, loader.DescribeNode(v))
	return nil
}

// resolve makes the relative paths of a path key relative to the
// repository root, and names them from the current directory as a person
// there would type them.
func (p *configParser) resolve(values []string, path bool) []string {
	if !path {
		return values
	}
	wd := mustGetwd()
	out := make([]string, len(values))
	for i, v := range values {
		abs := v
		if !filepath.IsAbs(v) {
			abs = filepath.Join(p.cfg.Root, v)
		}
		if rel, err := filepath.Rel(wd, abs); err == nil {
			abs = rel
		}
		out[i] = abs
	}
	return out
}

// apply sets the flags of fs the command line did not set. A mapping's
// items go before the command line's, which then win per name.
func (c *Config) apply(fs *pflag.FlagSet, verbose bool, errOut io.Writer) error {
	var errs []error
	var ignored []string
	for _, s := range c.settings {
		f := fs.Lookup(s.flag)
		if f == nil {
			ignored = append(ignored, s.key)
			continue
		}
		if f.Changed && !s.merge {
			continue // the command line wins
		}
		if err := setFromConfig(f, s); err != nil {
			errs = append(errs, &loader.Error{Source: loader.Source{File: c.file, Line: s.line}, Msg: fmt.Sprintf("%s: %v", s.key, err)})
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if verbose && len(ignored) > 0 {
		sort.Strings(ignored)
		fmt.Fprintf(errOut, "config keys not used by this command: %s\n", strings.Join(ignored, ", "))
	}
	return nil
}

func setFromConfig(f *pflag.Flag, s repoSetting) error {
	sv, ok := f.Value.(pflag.SliceValue)
	if !ok {
		if err := f.Value.Set(s.values[0]); err != nil {
			return fmt.Errorf("invalid value %q: %v", s.values[0], err)
		}
		f.Changed = true
		return nil
	}
	values := s.values
	if f.Changed {
		values = append(slices.Clone(values), sv.GetSlice()...)
	}
	if err := sv.Replace(values); err != nil {
		return fmt.Errorf("invalid value %q: %v", strings.Join(s.values, ","), err)
	}
	f.Changed = true
	return nil
}

func follow(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNullNode(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// NonEmpty trims list items and drops empty ones, so "a, b," means [a b].
func NonEmpty(items []string) []string {
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}
