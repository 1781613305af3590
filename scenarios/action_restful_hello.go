package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/restfullab"
)

// RestfulHelloAction runs the seed article's example of two go-restful
// Containers on two ports inside kubesim: GET /hello registered with
// restful.Add on restful.DefaultContainer and with Add on a
// restful.NewContainer(), each served on a loopback port of its own, then
// called over HTTP. The servers stop when the action ends.
type RestfulHelloAction struct{}

var _ actionRunner = (*RestfulHelloAction)(nil)

func (a *RestfulHelloAction) Kind() string { return "restfulHello" }
func (a *RestfulHelloAction) String() string {
	return "restfulHello: GET /hello on two Containers, two ports"
}

// parseRestfulHello reads true, the only value.
func parseRestfulHello(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	on, err := decodeAs[boolean](n)
	if err != nil {
		return nil, err
	}
	if !on {
		return nil, errAt(n, "the only value is true")
	}
	return &RestfulHelloAction{}, nil
}

// run starts the two Containers' servers, calls each, writes the
// exchange to the transcript and stops the servers.
func (a *RestfulHelloAction) run(ctx context.Context, _ *player, _ string) (res StepResult, err error) {
	h, err := restfullab.StartHello()
	if err != nil {
		return res, err
	}
	defer func() {
		if cerr := h.Close(); err == nil {
			err = cerr
		}
	}()
	answers, err := h.Call(ctx)
	res.Evidence = &restfulEvidence{Answers: answers}
	lab := labLines{res: &res}
	lab.add("restful.Add(ws): the WebService (root /) goes to restful.DefaultContainer,", "restful.Add(ws)：这个 WebService（根路径 /）加进 restful.DefaultContainer，")
	lab.add("  whose dispatch is registered on http.DefaultServeMux at \"/\"", "  它的 dispatch 注册在 http.DefaultServeMux 的 \"/\" 上")
	lab.add("container2 := restful.NewContainer(); container2.Add(ws2): its own ServeMux", "container2 := restful.NewContainer(); container2.Add(ws2)：它有自己的 ServeMux")
	for _, ans := range answers {
		lab.add("> GET %s", "> GET %s", ans.URL)
		lab.add("< %d %q", "< %d %q", ans.Status, ans.Body)
		roots := strings.Join(ans.WebServices, " ")
		muxZh := " " + ans.ServeMux
		if ans.ServeMux != "http.DefaultServeMux" {
			muxZh = "它自己的 http.ServeMux"
		}
		lab.add("  answered by %s (WebServices: %s)", "  由 %s 作答（WebService：%s）", ans.Container, roots)
		lab.addText(flow.Text{En: "  via " + ans.ServeMux, Zh: "  经由" + muxZh})
	}
	if err != nil {
		return res, fmt.Errorf("restfulHello: %w", err)
	}
	summary := make([]string, len(answers))
	for i, ans := range answers {
		summary[i] = fmt.Sprintf("%s: %d %q", ans.Container, ans.Status, ans.Body)
	}
	res.Message = strings.Join(summary, "; ") // the one line the TUI shows
	return res, nil
}
