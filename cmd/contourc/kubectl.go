package main

// contourc as a kubectl plugin: kubectl runs `kubectl contourc ARGS` as the
// program kubectl-contourc on the PATH (a hard link `make install` makes, or
// the link krew makes to the bin of plugins/contourc.yaml). Named so, the
// help and error messages say the command a user typed.

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

const (
	kubectlPluginName    = "kubectl-contourc"
	kubectlPluginCommand = "kubectl contourc"
)

// programName is the name contourc was run by: the base of argv[0], without
// Windows' .exe (kubectl finds kubectl-contourc.exe there).
func programName(arg0 string) string {
	base := filepath.Base(arg0)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".exe") {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// asKubectlPlugin makes root's usage lines, examples and error hints say
// `kubectl contourc` when the program runs by its plugin name. Cobra's
// display-name annotation changes every command's CommandPath; the
// examples are text and are rewritten here.
func asKubectlPlugin(root *cobra.Command, name string) {
	if name != kubectlPluginName {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = kubectlPluginCommand
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = pluginExample(c.Example)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// pluginExample rewrites the contourc invocations of an example: those
// that start a line and those chained after &&.
func pluginExample(example string) string {
	if example == "" {
		return ""
	}
	lines := strings.Split(example, "\n")
	for i, line := range lines {
		rest := strings.TrimLeft(line, " ")
		if strings.HasPrefix(rest, "contourc ") {
			line = line[:len(line)-len(rest)] + "kubectl " + rest
		}
		lines[i] = strings.ReplaceAll(line, "&& contourc", "&& kubectl contourc")
	}
	return strings.Join(lines, "\n")
}
