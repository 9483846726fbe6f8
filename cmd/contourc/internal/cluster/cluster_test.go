package cluster

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestAssumedServices checks the Services --assume-service makes: ports
// adding up across flags, and the upstream-protocol annotations.
func TestAssumedServices(t *testing.T) {
	f := Flags{assumeServices: []string{"logging/kb:5601/tls,8080", "logging/kb:9000/h2c,9001/h2", "logging/kb:8080/tcp", "a/z:80"}}
	objs, err := f.assumedObjects()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objs {
		type port struct {
			Name string `json:"name,omitempty"`
			Port int32  `json:"port"`
		}
		var ports []port
		for _, p := range o.Obj.(*corev1.Service).Spec.Ports {
			if p.Protocol != corev1.ProtocolTCP {
				t.Errorf("%s: port %d protocol %q, want TCP as the API server defaults it", o.Obj.GetName(), p.Port, p.Protocol)
			}
			ports = append(ports, port{p.Name, p.Port})
		}
		b, _ := json.Marshal(map[string]any{"annotations": o.Obj.GetAnnotations(), "spec": ports})
		got = append(got, o.Source.String()+" "+o.Obj.GetNamespace()+"/"+o.Obj.GetName()+" "+string(b))
	}
	want := []string{
		`--assume-service a/z:80 a/z {"annotations":null,"spec":[{"port":80}]}`,
		`<cluster: default/kubernetes> default/kubernetes {"annotations":null,"spec":[{"name":"https","port":443}]}`,
		`--assume-service logging/kb:5601/tls,8080 --assume-service logging/kb:9000/h2c,9001/h2 --assume-service logging/kb:8080/tcp logging/kb ` +
			`{"annotations":{"projectcontour.io/upstream-protocol.h2":"9001","projectcontour.io/upstream-protocol.h2c":"9000","projectcontour.io/upstream-protocol.tls":"5601"},` +
			`"spec":[{"name":"port-5601","port":5601},{"name":"port-8080","port":8080},{"name":"port-9000","port":9000},{"name":"port-9001","port":9001}]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("assumed objects\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Made once: the same objects again (serve's Memo tells objects apart
	// by identity).
	again, _ := f.assumedObjects()
	if &again[0] != &objs[0] {
		t.Errorf("the assumed objects were made again")
	}
	// An assumed default/kubernetes replaces the built-in one.
	f = Flags{assumeServices: []string{"default/kubernetes:443/tls"}}
	objs, _ = f.assumedObjects()
	if len(objs) != 1 || !strings.HasPrefix(objs[0].Source.File, "--assume-service") {
		t.Errorf("default/kubernetes assumed: %v", objs)
	}
}
