package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/contourc/contourc/cmd/contourc/internal/initconfig"
	"github.com/contourc/contourc/cmd/contourc/internal/repoconfig"
	"github.com/contourc/contourc/internal/survey"
)

type initOptions struct {
	force bool
}

func newInitCmd(s IOStreams) *cobra.Command {
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init [flags] [PATH]",
		Short: "Write a " + repoconfig.Name + " for the repository at PATH from what it holds",
		Long: "Look at the repository at PATH (default: the current directory): its kustomizations,\n" +
			"Flux and Argo CD objects, the Secrets and Services its routing objects refer to that it\n" +
			"does not hold, its Contour instances; and write PATH/" + repoconfig.Name + " with the keys that\n" +
			"make `contourc check` with no PATH right there, a comment on each choice made.\n" +
			"An existing file is kept unless --force.",
		Example: "  contourc init\n  contourc init ./gitops-repo && contourc check",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return o.run(dir, s)
		},
	}
	cmd.Flags().BoolVar(&o.force, "force", false, "replace an existing "+repoconfig.Name)
	return cmd
}

func (o *initOptions) run(dir string, s IOStreams) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is not a directory", dir)
		}
		return failure(err)
	}
	file := filepath.Join(dir, repoconfig.Name)
	if _, err := os.Lstat(file); err == nil && !o.force {
		return failure(fmt.Errorf("%s exists already: contourc init does not replace it without --force", file))
	}
	sv, err := survey.Repository(dir)
	if err != nil {
		return failure(err)
	}
	text := initconfig.Write(sv, repoconfig.Keys(newRootCmd(IOStreams{})))
	if err := writeFileAtomicFrom(file, 0o644, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		return failure(err)
	}
	if _, err := fmt.Fprintf(s.Out, "wrote %s\n", file); err != nil {
		return failure(err)
	}
	return nil
}
