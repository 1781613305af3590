package scenarios

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxFact bounds a body fact shown whole.
const maxFact = 400

// podProgress reads a Pod body's phase and the sum of its containers'
// restart counts: what a poll sees change from one answer to the next.
func podProgress(body []byte) (phase string, restarts int32, ok bool) {
	var pod struct {
		Kind   string `json:"kind"`
		Status struct {
			Phase             string `json:"phase"`
			ContainerStatuses []struct {
				RestartCount int32 `json:"restartCount"`
			} `json:"containerStatuses"`
		} `json:"status"`
	}
	if json.Unmarshal(body, &pod) != nil || pod.Kind != "Pod" {
		return "", 0, false
	}
	for _, c := range pod.Status.ContainerStatuses {
		restarts += c.RestartCount
	}
	return pod.Status.Phase, restarts, true
}

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
