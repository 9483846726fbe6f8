package graph

import (
	"encoding/json"

	"github.com/contourc/contourc/translate"
)

// Status is a node's colour: how Contour would judge what it comes from.
type Status string

const (
	StatusValid   Status = "valid"
	StatusWarning Status = "warning"
	StatusInvalid Status = "invalid"
)

// worse is the worse of two statuses ("" counting as valid).
func worse(a, b Status) Status {
	if severity(b) > severity(a) {
		return b
	}
	if a == "" {
		return StatusValid
	}
	return a
}

func severity(s Status) int {
	switch s {
	case StatusWarning:
		return 1
	case StatusInvalid:
		return 2
	}
	return 0
}

// judged is an object's status and the message that explains it.
type judged struct {
	status  Status
	message string
}

// condition is the part of a Kubernetes condition (HTTPProxy conditions
// with Contour's errors and warnings included) the judgement reads.
type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Errors  []struct {
		Message string `json:"message"`
	} `json:"errors"`
	Warnings []struct {
		Message string `json:"message"`
	} `json:"warnings"`
}

// statusFields are the fields of the statuses Contour writes that say
// whether an object is served as written: HTTPProxy's currentStatus and
// conditions, a Gateway's conditions, a route's per-parent conditions.
type statusFields struct {
	CurrentStatus string      `json:"currentStatus"`
	Description   string      `json:"description"`
	Conditions    []condition `json:"conditions"`
	Parents       []struct {
		Conditions []condition `json:"conditions"`
	} `json:"parents"`
}

// judge reads each object's status: invalid when Contour refuses it (an
// HTTPProxy not valid, a Gateway API condition such as Accepted false),
// warning when it is served with a warning, orphaned, or an Ingress has
// findings; valid otherwise.
func judge(list []translate.ObjectStatus) map[objectKey]judged {
	out := make(map[objectKey]judged, len(list))
	for _, st := range list {
		key := objectKey{st.Kind, st.Namespace, st.Name}
		j := judged{status: StatusValid}
		if len(st.Findings) > 0 {
			j = judged{StatusWarning, st.Findings[0]}
		}
		if st.Status != nil {
			j = judgeFields(st.Status)
		}
		out[key] = j
	}
	return out
}

func judgeFields(status any) judged {
	b, err := json.Marshal(status)
	var f statusFields
	if err != nil || json.Unmarshal(b, &f) != nil {
		return judged{status: StatusValid}
	}
	switch f.CurrentStatus {
	case "invalid":
		// The description only says "see Errors": the first error is
		// what a reviewer needs.
		for _, c := range f.Conditions {
			if len(c.Errors) > 0 {
				return judged{StatusInvalid, c.Errors[0].Message}
			}
		}
		return judged{StatusInvalid, f.Description}
	case "orphaned":
		return judged{StatusWarning, f.Description}
	}
	conds := f.Conditions
	for _, p := range f.Parents {
		conds = append(conds, p.Conditions...)
	}
	j := judged{status: StatusValid, message: f.Description}
	for _, c := range conds {
		switch {
		case c.Status == "False" && (c.Type == "Valid" || c.Type == "Accepted"):
			return judged{StatusInvalid, c.Message}
		case c.Status == "False" && j.status == StatusValid:
			j = judged{StatusWarning, c.Type + ": " + c.Message}
		case len(c.Warnings) > 0 && j.status == StatusValid:
			j = judged{StatusWarning, c.Warnings[0].Message}
		}
	}
	return j
}
