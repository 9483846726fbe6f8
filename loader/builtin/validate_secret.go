package builtin

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/contourc/contourc/loader/internal/manifest"
)

// Secret and ConfigMap validation on create, as k8s.io/kubernetes
// pkg/apis/core/validation ValidateSecret and ValidateConfigMap do it: key
// syntax, total size, and the keys each Secret type requires. Secrets are
// checked after stringData is merged into data (defaults_core.go), as the
// API server does. Messages name keys, never values: a docker config that
// is not JSON is reported as "<secret contents redacted>", as upstream.

// redacted stands for a Secret value in a message.
const redacted = "<secret contents redacted>"

func ValidateSecret(obj metav1.Object) field.ErrorList {
	s := obj.(*corev1.Secret)
	dataPath := func() *field.Path { return field.NewPath("data") }
	var errs field.ErrorList
	size, plain := 0, true
	for key, value := range s.Data {
		size += len(value)
		plain = plain && configKey(key)
	}
	if !plain {
		// Sorted, for the same messages in the same order every run.
		for _, key := range slices.Sorted(maps.Keys(s.Data)) {
			errs = validateConfigKey(errs, key, func() *field.Path { return dataPath().Key(key) })
		}
	}
	if size > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(dataPath(), "", corev1.MaxSecretSize))
	}
	required := func(key string) { errs = append(errs, field.Required(dataPath().Key(key), "")) }
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg, corev1.SecretTypeDockerConfigJson:
		key := corev1.DockerConfigKey
		if s.Type == corev1.SecretTypeDockerConfigJson {
			key = corev1.DockerConfigJsonKey
		}
		value, ok := s.Data[key]
		if !ok {
			required(key)
			break
		}
		if err := json.Unmarshal(value, &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(dataPath().Key(key), redacted, err.Error()))
		}
	case corev1.SecretTypeBasicAuth:
		// Either may be empty, but one must be there.
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, password := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !password {
			required(corev1.BasicAuthUsernameKey)
			required(corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			required(corev1.SSHAuthPrivateKey)
		}
	case corev1.SecretTypeTLS:
		// The API server requires tls.crt and tls.key (perhaps empty).
		// Not refused here: test inputs for Gateway API implementations
		// (Envoy Gateway's, in the parity corpus) hold TLS Secrets without
		// a certificate to check that the listener is reported invalid,
		// and Contour reports such a Secret in the status of what uses it
		// (translate/), which is where `check` shows it.
	}
	return errs
}

func ValidateConfigMap(obj metav1.Object) field.ErrorList {
	cm := obj.(*corev1.ConfigMap)
	var errs field.ErrorList
	size, plain := 0, true
	for key, value := range cm.Data {
		_, dup := cm.BinaryData[key]
		size += len(value)
		plain = plain && configKey(key) && !dup
	}
	for key, value := range cm.BinaryData {
		size += len(value)
		plain = plain && configKey(key)
	}
	if !plain {
		// Sorted, for the same messages in the same order every run.
		for _, key := range slices.Sorted(maps.Keys(cm.Data)) {
			at := func() *field.Path { return field.NewPath("data").Key(key) }
			errs = validateConfigKey(errs, key, at)
			if _, dup := cm.BinaryData[key]; dup {
				errs = append(errs, field.Invalid(at(), key, "duplicate of key present in binaryData"))
			}
		}
		for _, key := range slices.Sorted(maps.Keys(cm.BinaryData)) {
			errs = validateConfigKey(errs, key, func() *field.Path { return field.NewPath("binaryData").Key(key) })
		}
	}
	if size > corev1.MaxSecretSize {
		// The API server's path: the whole object.
		errs = append(errs, field.TooLong(field.NewPath(""), "", corev1.MaxSecretSize))
	}
	return errs
}

// validateConfigKey is a key of a Secret's or ConfigMap's data.
func validateConfigKey(errs field.ErrorList, key string, at func() *field.Path) field.ErrorList {
	if configKey(key) {
		return errs
	}
	return manifest.AppendInvalid(errs, at(), key, validation.IsConfigMapKey(key))
}

// configKey accepts what validation.IsConfigMapKey does: [-._a-zA-Z0-9]+,
// 253 characters at most, and not ".", ".." or starting with "..".
func configKey(s string) bool {
	if s == "" || len(s) > validation.DNS1123SubdomainMaxLength || s == "." || strings.HasPrefix(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '-' && c != '.' && c != '_' && !isAlnum(c, true) {
			return false
		}
	}
	return true
}
