package builtin

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// FinishService applies the Service defaults that depend on other fields.
func FinishService(obj metav1.Object) {
	svc := obj.(*corev1.Service)
	if svc.Spec.Type == "" {
		svc.Spec.Type = corev1.ServiceTypeClusterIP
	}
	if svc.Spec.SessionAffinity == "" {
		svc.Spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		// A port without targetPort (or with 0 or "") sends traffic to the
		// same port number.
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
}

// FinishSecret does what the API server does with a Secret on create:
// stringData is a write-only convenience merged into data (winning over
// data for the same key), and the type defaults to Opaque.
func FinishSecret(obj metav1.Object) {
	s := obj.(*corev1.Secret)
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
		s.StringData = nil
	}
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
}

// FinishNamespace adds the kubernetes.io/metadata.name label the API server
// sets on every Namespace (Gateway listeners select namespaces by it).
func FinishNamespace(obj metav1.Object) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[corev1.LabelMetadataName] = obj.GetName()
	obj.SetLabels(labels)
}
