package main

// --instance: which of the input's Contour instances a command covers, and
// the one the commands that need one configuration use. Translating them
// all is internal/instances'.

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"github.com/contourc/contourc/cmd/contourc/internal/instances"
	"github.com/contourc/contourc/loader"
	"github.com/contourc/contourc/translate"
)

// instanceFlags are --instance, and what the last run found.
type instanceFlags struct {
	name string
	// every is set by the commands that cover every instance (check,
	// diff, test, explain, render --output-dir): without --instance they
	// get every instance, not the error asking for one.
	every bool
	// runs are the instances of the last run, by name.
	runs []instances.Run
}

func (f *instanceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.name, "instance", "", "use the Contour instance `NS/NAME` (a Deployment or DaemonSet running contour serve,\n"+
		"a Gateway, or a configuration object); needed when the input has several")
}

// choose keeps the instance --instance names, or insists on one when the
// command needs one configuration; the error lists them.
func (f *instanceFlags) choose(all []translate.Instance) ([]translate.Instance, error) {
	if f.name != "" {
		i := slices.IndexFunc(all, func(in translate.Instance) bool { return in.Name == f.name })
		if i < 0 {
			return nil, fmt.Errorf("--instance %q: no such instance; the input has %s", f.name, instances.List(all))
		}
		return all[i : i+1], nil
	}
	if len(all) > 1 && !f.every {
		return nil, fmt.Errorf("the input has %d Contour instances, %s: choose one with --instance NAME", len(all), instances.List(all))
	}
	return all, nil
}

// printServing says, for -v, which Gateway each instance serves.
func printServing(w io.Writer, runs []instances.Run) {
	for _, r := range runs {
		prefix := ""
		if len(runs) > 1 {
			prefix = "instance " + r.Name + ": "
		}
		if r.Result.Gateway != nil {
			fmt.Fprintf(w, "%sserving Gateway %s\n", prefix, r.Result.Gateway)
		} else {
			fmt.Fprintf(w, "%sno Gateway to serve: Gateway API objects are ignored\n", prefix)
		}
	}
}

// instanceWorkloads are the workloads instances are found in: the input's
// and, once options() has read it, the cluster context's (a Contour the
// platform installs).
func (f *inputFlags) instanceWorkloads(loaded *loader.Result) []loader.Object {
	if len(f.cluster.Workloads) == 0 {
		return loaded.Workloads
	}
	return append(slices.Clone(loaded.Workloads), f.cluster.Workloads...)
}

// selectInstance is serve's Select: selectOne with the workloads of the
// input and of the cluster context, as check and render find instances.
func (f *inputFlags) selectInstance(loaded *loader.Result, opts translate.Options) (translate.Options, func([]translate.ObjectStatus) []translate.ObjectStatus, error) {
	return f.instances.selectOne(loaded, opts, f.instanceWorkloads(loaded))
}

// selectOne is the options of the one instance served (--instance, or the
// only one), and the NotServed rows of the objects no instance serves. The
// stand-ins were made by Prepare for every instance.
func (f *instanceFlags) selectOne(loaded *loader.Result, opts translate.Options, workloads []loader.Object) (translate.Options, func([]translate.ObjectStatus) []translate.ObjectStatus, error) {
	all, err := translate.Instances(instances.Objects(loaded, opts), workloads, opts)
	if err != nil {
		return translate.Options{}, nil, err
	}
	one := *f
	one.every = false
	chosen, err := one.choose(all)
	if err != nil {
		return translate.Options{}, nil, err
	}
	complete := func(list []translate.ObjectStatus) []translate.ObjectStatus {
		return instances.WithNotServed(list, loaded.Objects, all)
	}
	return chosen[0].Options, complete, nil
}
