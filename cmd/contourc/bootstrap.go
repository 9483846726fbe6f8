package main

import (
	"fmt"
	"path/filepath"
	"strings"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	"github.com/spf13/cobra"

	"github.com/contourc/contourc/render"
	"github.com/contourc/contourc/serve"
)

type bootstrapOptions struct {
	format                 string
	xdsAddress             string
	xdsPort                uint32
	adminAddress           string
	adminPort              uint32
	dnsLookupFamily        string
	caFile, certFile, keyF string
	overloadMaxHeap        uint64
	nodeID, nodeCluster    string
}

func newBootstrapCmd(s IOStreams) *cobra.Command {
	o := &bootstrapOptions{}
	cmd := &cobra.Command{
		Use:   "bootstrap [flags] FILE",
		Short: "Write the Envoy bootstrap for an Envoy configured by contourc serve",
		Long: "Write an Envoy bootstrap that gets its configuration from contourc serve over one ADS\n" +
			"stream, as contour bootstrap does for Contour. FILE is replaced atomically; - writes to\n" +
			"stdout. The format follows FILE's extension (.yaml, .yml, .json) unless -o says otherwise.",
		Example: "  contourc bootstrap /etc/envoy/envoy.yaml && envoy -c /etc/envoy/envoy.yaml\n" +
			"  contourc bootstrap --xds-address contourc.internal --envoy-cafile ca.crt \\\n" +
			"      --envoy-cert-file envoy.crt --envoy-key-file envoy.key envoy.json",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("bootstrap needs one FILE (- for stdout), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			return o.run(args[0], s)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.format, "output-format", "o", "", "yaml or json (default: from FILE's extension; yaml for -)")
	fs.StringVar(&o.xdsAddress, "xds-address", "127.0.0.1", "contourc serve's address: an IP (STATIC cluster) or a DNS name (STRICT_DNS)")
	fs.Uint32Var(&o.xdsPort, "xds-port", 8001, "contourc serve's xDS port")
	fs.StringVar(&o.adminAddress, "admin-address", "127.0.0.1", "IP address Envoy's admin interface listens on")
	fs.Uint32Var(&o.adminPort, "admin-port", 9001, "port Envoy's admin interface listens on")
	fs.StringVar(&o.dnsLookupFamily, "dns-lookup-family", "auto", "how Envoy resolves --xds-address when it is a name: auto, v4, v6 or all")
	fs.StringVar(&o.caFile, "envoy-cafile", "", "CA `FILE` for checking contourc serve's certificate (mTLS; SAN \"contour\")")
	fs.StringVar(&o.certFile, "envoy-cert-file", "", "Envoy's client certificate `FILE` (mTLS)")
	fs.StringVar(&o.keyF, "envoy-key-file", "", "Envoy's client private key `FILE` (mTLS)")
	fs.Uint64Var(&o.overloadMaxHeap, "overload-max-heap", 0, "heap size in bytes at which Envoy shrinks its heap (95%) and stops accepting requests (98%); 0: no limit")
	fs.StringVar(&o.nodeID, "node-id", "contourc", "Envoy's node id")
	fs.StringVar(&o.nodeCluster, "node-cluster", "contourc", "Envoy's node cluster")
	_ = cmd.RegisterFlagCompletionFunc("output-format", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("dns-lookup-family", cobra.FixedCompletions([]string{"auto", "v4", "v6", "all"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (o *bootstrapOptions) run(path string, s IOStreams) error {
	format, err := bootstrapFormat(path, o.format)
	if err != nil {
		return err
	}
	// Ports beyond 65535 fit the flags' uint32 but only fail Envoy's
	// validation, as a protobuf dump: they are flag errors instead. Port 0
	// is refused for the xDS server, which Envoy must connect to; for the
	// admin interface it lets the kernel choose, as Envoy allows.
	for _, p := range []struct {
		flag     string
		port     uint32
		zeroOK   bool
		rangeMsg string
	}{
		{"xds-port", o.xdsPort, false, "must be between 1 and 65535, inclusive"},
		{"admin-port", o.adminPort, true, "must be between 0 and 65535, inclusive"},
	} {
		if p.port > 65535 || (p.port == 0 && !p.zeroOK) {
			return fmt.Errorf("invalid argument \"%d\" for \"--%s\" flag: %s", p.port, p.flag, p.rangeMsg)
		}
	}
	opts := serve.BootstrapOptions{
		NodeID: o.nodeID, NodeCluster: o.nodeCluster,
		XDSAddress: o.xdsAddress, XDSPort: o.xdsPort,
		AdminAddress: o.adminAddress, AdminPort: o.adminPort,
		DNSLookupFamily: o.dnsLookupFamily,
		OverloadMaxHeap: o.overloadMaxHeap,
	}
	if o.caFile != "" || o.certFile != "" || o.keyF != "" {
		if o.caFile == "" || o.certFile == "" || o.keyF == "" {
			return fmt.Errorf("--envoy-cafile, --envoy-cert-file and --envoy-key-file go together: give all three or none")
		}
		opts.TLS = &serve.TLSFiles{CAFile: o.caFile, CertFile: o.certFile, KeyFile: o.keyF}
	}
	b, err := serve.Bootstrap(opts)
	if err != nil {
		return failure(err)
	}
	out, err := marshalBootstrap(b, format)
	if err != nil {
		return failure(err)
	}
	if path == "-" {
		if _, err := s.Out.Write(out); err != nil {
			return failure(err)
		}
		return nil
	}
	if err := writeFileAtomic(path, out, publicPerm); err != nil {
		return failure(err)
	}
	return nil
}

// bootstrapFormat is -o when given, else what Envoy will take FILE for:
// Envoy picks the parser by extension.
func bootstrapFormat(path, flag string) (string, error) {
	switch flag {
	case "yaml", "json":
		return flag, nil
	case "":
	default:
		return "", fmt.Errorf("invalid --output-format %q: want yaml or json", flag)
	}
	if path == "-" {
		return "yaml", nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return "yaml", nil
	case ".json":
		return "json", nil
	}
	return "", fmt.Errorf("cannot tell the format of %s from its extension, nor can Envoy: name it .yaml or .json, or give -o", path)
}

// marshalBootstrap prints b as render prints Envoy configuration: proto
// field names, declaration order, the same bytes on every run.
func marshalBootstrap(b *bootstrapv3.Bootstrap, format string) ([]byte, error) {
	if format == "json" {
		return render.MessageJSON(b)
	}
	y, err := render.MessageYAML(b)
	if err != nil {
		return nil, err
	}
	return append([]byte("# Generated by contourc bootstrap: an Envoy bootstrap for contourc serve.\n"), y...), nil
}
