package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/restfullab"
)

// resultsObserver keeps every step's result.
type resultsObserver struct{ results []StepResult }

func (o *resultsObserver) StepStarted(StepInfo)                  {}
func (o *resultsObserver) StepFinished(_ StepInfo, r StepResult) { o.results = append(o.results, r) }

// TestRestfulDispatchOnKubeAPIServer sends each request of a table to
// the running API server and then runs restfulDispatch on it: the route
// in the request's trace (what kube-apiserver's Container really
// dispatched to) must be CurlyRouter's choice in the lab, a request
// without a route must have the status of the lab's error, and the lab's
// recomputation must agree with go-restful for both routers.
func TestRestfulDispatchOnKubeAPIServer(t *testing.T) {
	tests := []struct {
		method, path, query, contentType, body string
	}{
		{"GET", "/api/v1/namespaces/default/pods/x", "", "", ""},
		{"GET", "/api/v1/namespaces/default/pods", "", "", ""},
		{"GET", "/api/v1/pods", "", "", ""},
		{"POST", "/api/v1/namespaces/default/pods", "", "application/json", "{}"},
		{"GET", "/api/v1/watch/namespaces/default/pods/x", "?timeoutSeconds=1", "", ""},
		{"GET", "/api/v1/namespaces/kube-system", "", "", ""},
		{"GET", "/api/v1/no-such-resource", "", "", ""},
		{"PUT", "/api/v1/namespaces/default/pods", "", "application/json", "{}"},
		{"DELETE", "/api/v1/nodes", "", "", ""},
		{"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin", "", "", ""},
		{"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "", "", ""},
		{"GET", "/api", "", "", ""},
		{"GET", "/version", "", "", ""},
	}
	var b strings.Builder
	b.WriteString("name: lab\ntitle: {en: Lab, zh: 实验}\nsummary: {en: The lab, zh: 实验}\ncluster: {nodes: 1}\nsteps:\n")
	for _, tt := range tests {
		fmt.Fprintf(&b, "  - narration: {en: send, zh: 发送}\n    http: {method: %s, path: %q, contentType: %q, body: %q}\n", tt.method, tt.path+tt.query, tt.contentType, tt.body)
		fmt.Fprintf(&b, "  - narration: {en: ask, zh: 询问}\n    restfulDispatch: {method: %s, path: %q, contentType: %q, router: both}\n", tt.method, tt.path, tt.contentType)
	}
	s, err := Parse("lab.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, b.String())
	}
	obs := playLab(t, s)
	for i, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			sent, asked := obs.results[2*i], obs.results[2*i+1]
			ev, _ := asked.Evidence.(*restfulEvidence)
			if ev == nil || len(ev.Dispatches) != 2 || len(sent.Requests) != 1 {
				t.Fatalf("evidence %+v, %d request traces; want 2 dispatches, 1 trace", ev, len(sent.Requests))
			}
			for _, d := range ev.Dispatches {
				if !d.Agrees {
					t.Errorf("%s: recomputed %s, go-restful chose %s", d.Router, describeRecomputed(d), describeChoice(d))
				}
			}
			curly, trace := ev.Dispatches[0], sent.Requests[0]
			switch {
			case trace.Route == "" && trace.Code < 400:
				// The discovery routes (/api, /version...) do not record
				// their route in the trace.
				t.Logf("the trace of %s names no route (status %d)", tt.path, trace.Code)
			case curly.Route != nil && trace.Route != curly.Route.String():
				t.Errorf("the server dispatched to %q, the lab's CurlyRouter chose %s", trace.Route, curly.Route)
			case curly.Route == nil && (trace.Route != "" || curly.Err == nil || trace.Code != curly.Err.Code):
				t.Errorf("the server dispatched to %q with status %d, the lab's CurlyRouter chose no route: %+v", trace.Route, trace.Code, curly.Err)
			}
			checkLabWidth(t, asked)
		})
	}
}

// playLab plays s on a cluster of its own and returns every step's
// result.
func playLab(t *testing.T, s *Scenario) *resultsObserver {
	t.Helper()
	c := clustertest.Start(t, s.Configure, func(cfg *cluster.Config) { cfg.Speed = 0 })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	obs := &resultsObserver{}
	if err := Play(ctx, c, s, Options{Lang: "en", Speed: 0, Observer: obs}); err != nil {
		t.Fatalf("Play: %v", err)
	}
	if len(obs.results) != len(s.Steps) {
		t.Fatalf("%d results for %d steps", len(obs.results), len(s.Steps))
	}
	return obs
}

// checkLabWidth fails t for a transcript line of the lab, in either
// language, wider than the TUI's 80 columns once the plain printer has
// indented it by two.
func checkLabWidth(t *testing.T, res StepResult) {
	t.Helper()
	for _, line := range res.Transcript {
		for _, s := range []string{line.En, line.Zh} {
			if w := displayWidth(s); w > 78 {
				t.Errorf("transcript line %d columns wide (over 78): %q", w, s)
			}
		}
	}
}

// displayWidth counts a Han character or full-width punctuation as two
// columns, anything else as one.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF65) {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// TestRestfulHello plays restfulHello twice in one process (the default
// Container is registered once) and checks which Container answered.
func TestRestfulHello(t *testing.T) {
	s, err := Parse("hello.yaml", []byte(`name: hello
title: {en: Hello, zh: 你好}
summary: {en: Two Containers, zh: 两个 Container}
cluster: {nodes: 1}
steps:
  - narration: {en: once, zh: 一次}
    restfulHello: true
    expect:
      - restfulAnswer: {container: DefaultContainer, body: default world}
      - restfulAnswer: {container: NewContainer, body: "second world\n"}
  - narration: {en: twice, zh: 两次}
    restfulHello: true
    expect:
      - restfulAnswer: {container: DefaultContainer, status: 200, body: default world}
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	obs := playLab(t, s)
	for i, res := range obs.results {
		ev, _ := res.Evidence.(*restfulEvidence)
		if ev == nil || len(ev.Answers) != 2 {
			t.Fatalf("step %d: evidence %+v, want 2 answers", i+1, ev)
		}
		if ev.Answers[0].URL == ev.Answers[1].URL {
			t.Errorf("step %d: both Containers answered at %s", i+1, ev.Answers[0].URL)
		}
		checkLabWidth(t, res)
	}
}

// TestRestfulExpectations checks the lab's expectations against one
// dispatch's evidence: each holds or fails as it should, and says what it
// saw.
func TestRestfulExpectations(t *testing.T) {
	d := &restfullab.Dispatch{Router: restfullab.CurlyRouter, WebService: "/api/v1", Agrees: true,
		WebServices: []restfullab.WebServiceScore{{RootPath: "/api/v1", Matches: true, Score: 30}, {RootPath: "/api", Matches: true, Score: 10}, {RootPath: "/apis"}},
		Candidates: []restfullab.RouteScore{
			{RouteRef: restfullab.RouteRef{Method: "GET", Path: "/api/v1/namespaces/{namespace}/pods/{name}"}, Static: 4, Params: 2, Outcome: restfullab.OutcomeChosen},
			{RouteRef: restfullab.RouteRef{Method: "PUT", Path: "/api/v1/namespaces/{namespace}/pods/{name}"}, Static: 4, Params: 2, Outcome: restfullab.OutcomeMethod}},
		Route:  &restfullab.RouteRef{Method: "GET", Path: "/api/v1/namespaces/{namespace}/pods/{name}"},
		Params: map[string]string{"namespace": "default", "name": "x"},
	}
	d.Recomputed = d.Route
	res := &StepResult{Evidence: &restfulEvidence{Dispatches: []*restfullab.Dispatch{d}}}
	tests := []struct {
		yaml string
		want bool
	}{
		{`restfulRoute: {route: "GET /api/v1/namespaces/{namespace}/pods/{name}", params: {namespace: default, name: x}}`, true},
		{`restfulRoute: {router: CurlyRouter, webService: /api/v1, route: "GET /api/v1/namespaces/{namespace}/pods/{name}"}`, true},
		{`restfulRoute: {route: "GET /api/v1/namespaces/{namespace}/pods/{name}", params: {namespace: default}}`, false},
		{`restfulRoute: {webService: /api, route: "GET /api/v1/namespaces/{namespace}/pods/{name}"}`, false},
		{`restfulRoute: {code: 404}`, false},
		{`restfulRoute: {router: RouterJSR311, code: 404}`, false},
		{`restfulScore: {webService: /api/v1, score: 30}`, true},
		{`restfulScore: {webService: /api, score: 30}`, false},
		{`restfulScore: {webService: /apis, score: 0}`, false},
		{`restfulScore: {route: "PUT /api/v1/namespaces/{namespace}/pods/{name}", static: 4, vars: 2, rank: 2}`, true},
		{`restfulScore: {route: "PUT /api/v1/namespaces/{namespace}/pods/{name}", rank: 1}`, false},
		{`restfulScore: {route: "POST /api/v1/namespaces/{namespace}/pods", static: 3}`, false},
		{`restfulAnswer: {container: NewContainer}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.yaml, func(t *testing.T) {
			e := mustParseExpectation(t, tt.yaml)
			got, ok := e.(resultChecker).checkResult(res)
			if ok != tt.want {
				t.Errorf("%s: holds = %v (saw %q), want %v", e, ok, got, tt.want)
			}
			if !ok && got == "" {
				t.Errorf("%s: failed without saying what it saw", e)
			}
		})
	}
}

// mustParseExpectation parses one expectation as a step's expect list
// holds it.
func mustParseExpectation(t *testing.T, item string) Expectation {
	t.Helper()
	s, err := Parse("e.yaml", []byte("name: e\ntitle: {en: E, zh: E}\nsummary: {en: E, zh: E}\ncluster: {nodes: 1}\nsteps:\n  - narration: {en: e, zh: e}\n    expect:\n      - "+item+"\n"))
	if err != nil {
		t.Fatalf("Parse %s: %v", item, err)
	}
	return s.Steps[0].Expect[0]
}

// TestRestfulParseErrors checks the messages of bad restful actions and
// expectations.
func TestRestfulParseErrors(t *testing.T) {
	tests := []struct{ step, want string }{
		{`restfulDispatch: {method: GET}`, `restfulDispatch: missing field "path"`},
		{`restfulDispatch: {path: "/api?x=1"}`, `must be a URL path`},
		{`restfulDispatch: {path: /api, router: Gorilla}`, `restfulDispatch.router: "Gorilla" is not one of CurlyRouter, RouterJSR311, both`},
		{`restfulHello: false`, `restfulHello: the only value is true`},
		{"expect:\n      - restfulRoute: {webService: /api}", `restfulRoute: give exactly one of route and code`},
		{"expect:\n      - restfulRoute: {code: 200}", `restfulRoute.code: 200 is not an HTTP error status`},
		{"expect:\n      - restfulScore: {webService: /api}", `restfulScore: give at least one of`},
		{"expect:\n      - restfulScore: {webService: /api, static: 2}", `restfulScore.static: not a key of a WebService`},
		{"expect:\n      - restfulScore: {route: GET /api, score: 2}", `restfulScore.score: not a key of a route`},
		{"expect:\n      - restfulAnswer: {container: Other}", `restfulAnswer.container: "Other" is not one of DefaultContainer, NewContainer`},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte("name: bad\ntitle: {en: B, zh: B}\nsummary: {en: B, zh: B}\ncluster: {nodes: 1}\nsteps:\n  - narration: {en: b, zh: b}\n    "+tt.step+"\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
