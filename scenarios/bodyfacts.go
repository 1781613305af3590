package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxFact bounds a body fact shown whole.
const maxFact = 400

// bodyFacts picks out of a JSON response body what its transcript line,
// cut short, would hide and a narration points at: a Status's message,
// reason and code, and the status of a review (SelfSubjectAccessReview:
// "allowed": false). Other bodies give none.
func bodyFacts(body []byte) []string {
	var obj struct {
		Kind    string          `json:"kind"`
		Message string          `json:"message"`
		Reason  string          `json:"reason"`
		Code    int             `json:"code"`
		Status  json.RawMessage `json:"status"`
	}
	if json.Unmarshal(body, &obj) != nil {
		return nil
	}
	switch {
	case obj.Kind == "Status":
		out := []string{fmt.Sprintf("code %d, reason %s", obj.Code, obj.Reason)}
		if obj.Message != "" {
			out = append(out, "message: "+truncate(obj.Message, maxFact))
		}
		return out
	case strings.HasSuffix(obj.Kind, "Review") && len(obj.Status) > 0:
		return []string{"status: " + truncate(string(obj.Status), maxFact)}
	}
	return nil
}
