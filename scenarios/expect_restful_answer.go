package scenarios

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/restfullab"
)

// RestfulAnswerExpectation: in the step's restfulHello, the server of
// Container (DefaultContainer or NewContainer) answered GET /hello with
// Status and Body (compared without the trailing newline).
type RestfulAnswerExpectation struct {
	Container string
	Status    int
	Body      string
}

var _ resultChecker = (*RestfulAnswerExpectation)(nil)

var (
	// restfulContainers are the values of container, by the names
	// restfullab gives the Containers.
	restfulContainers = map[string]string{"DefaultContainer": restfullab.DefaultContainer, "NewContainer": restfullab.NewContainer}
)

// restfulAnswerDoc is restfulAnswer as written.
type restfulAnswerDoc struct {
	Container str      `yaml:"container" load:"required"`
	Status    *integer `yaml:"status"`
	Body      *str     `yaml:"body"`
}

func (e *RestfulAnswerExpectation) Kind() string { return "restfulAnswer" }
func (e *RestfulAnswerExpectation) String() string {
	return fmt.Sprintf("restfulAnswer from %s: %d %q", e.Container, e.Status, e.Body)
}

// parseRestfulAnswer reads {container, status, body}: status 200 unless
// given.
func parseRestfulAnswer(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[restfulAnswerDoc](n)
	if err != nil {
		return nil, err
	}
	e := &RestfulAnswerExpectation{Container: string(d.Container), Status: 200, Body: d.Body.or("")}
	if err := oneOf(valueOf(n, "container"), e.Container, []string{"DefaultContainer", "NewContainer"}); err != nil {
		return nil, err
	}
	if d.Status != nil {
		e.Status = int(*d.Status)
	}
	return e, nil
}

// checkResult finds the Container's answer.
func (e *RestfulAnswerExpectation) checkResult(res *StepResult) (string, bool) {
	ev, _ := res.Evidence.(*restfulEvidence)
	if ev == nil || len(ev.Answers) == 0 {
		return "no restfulHello answers in this step", false
	}
	name := restfulContainers[e.Container]
	for _, a := range ev.Answers {
		if a.Container != name {
			continue
		}
		got := fmt.Sprintf("%s answered %d %q", e.Container, a.Status, a.Body)
		body := strings.TrimSuffix(a.Body, "\n")
		return got, a.Status == e.Status && (e.Body == "" || body == strings.TrimSuffix(e.Body, "\n"))
	}
	return fmt.Sprintf("no answer from %s", e.Container), false
}
