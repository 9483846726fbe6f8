package status

// The conditions of Gateway API objects' status (Gateway, listeners,
// routes, BackendTLSPolicy). Conditions are kept in the order they were
// first set; setting a condition type again replaces it and appends its
// message to the old one, as Contour's status accessors do.

// Condition is a Kubernetes condition as status shows it.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason"`
	Message            string `json:"message"`
	ObservedGeneration int64  `json:"observedGeneration"`
}

// Conditions is an ordered set of conditions keyed by type.
type Conditions []Condition

// Set adds or replaces the condition of type typ; a replaced condition's
// message is kept in front of the new one.
func (cl *Conditions) Set(generation int64, typ, status, reason, message string) {
	for i, c := range *cl {
		if c.Type == typ {
			(*cl)[i] = Condition{Type: typ, Status: status, Reason: reason, Message: c.Message + ", " + message, ObservedGeneration: generation}
			return
		}
	}
	*cl = append(*cl, Condition{Type: typ, Status: status, Reason: reason, Message: message, ObservedGeneration: generation})
}

func (cl Conditions) Has(typ string) bool {
	for _, c := range cl {
		if c.Type == typ {
			return true
		}
	}
	return false
}
