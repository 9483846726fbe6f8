package admission

import (
	"bytes"
	"encoding/json"
)

// unmarshalJSON decodes as the API server's unstructured decoder does:
// integers are int64, other numbers float64.
func unmarshalJSON(b []byte, out *map[string]any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		return err
	}
	*out = numbers(v).(map[string]any)
	return nil
}

func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = numbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbers(x)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return v
}
