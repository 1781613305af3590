package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// ServerChainBuildAction shows how the scenario's own API server built
// its delegation chain, from the steps package serverchain reported as it
// built each server (cluster.StartupStep "serverchain"): which server, in
// which order, on which delegate, and what each serves. Its result's
// message has one line per server, "<n>. <server>, delegate <delegate>",
// then each server's detail.
type ServerChainBuildAction struct{}

var _ actionRunner = (*ServerChainBuildAction)(nil)

func (a *ServerChainBuildAction) Kind() string   { return "serverChainBuild" }
func (a *ServerChainBuildAction) String() string { return "serverChainBuild" }

// parseServerChainBuild reads `true`, its only value.
func parseServerChainBuild(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	if err := mustBeTrue(n); err != nil {
		return nil, err
	}
	return &ServerChainBuildAction{}, nil
}

func init() {
	registerTranscriptZh(map[string]string{
		"serverchain.New, as CreateServerChain, built %d servers, in this order:": "serverchain.New 和 CreateServerChain 一样，按这个顺序构建了 %d 个服务端：",
	})
}

// run reads the serverchain steps of the cluster's (latest) start.
func (a *ServerChainBuildAction) run(_ context.Context, p *player, _ string) (StepResult, error) {
	var built []cluster.StartupStep
	for _, s := range p.cluster.StartupSteps() {
		if s.Name != "serverchain" {
			continue
		}
		if s.Server == built0(built) {
			built = nil // a restart of the API server built the chain again
		}
		built = append(built, s)
	}
	var res StepResult
	if len(built) == 0 {
		return res, fmt.Errorf("serverChainBuild: the cluster recorded no server of the chain built")
	}
	addTranscript(&res, "serverchain.New, as CreateServerChain, built %d servers, in this order:", len(built))
	var lines, order []string
	for i, s := range built {
		delegate := strings.TrimPrefix(s.Detail, s.Server+", delegate ")
		delegate, detail, _ := strings.Cut(delegate, ": ")
		addTranscriptText(&res, flow.Text{
			En: fmt.Sprintf("%d. %s, delegate %s (+%s)", i+1, s.Server, delegate, fmtAt(s)),
			Zh: fmt.Sprintf("%d. %s，委托给（delegate）%s（+%s）", i+1, s.Server, serverDescriptionZh.Replace(delegate), fmtAt(s)),
		})
		addTranscriptText(&res, flow.Text{En: "   " + detail, Zh: "   " + serverDescriptionZh.Replace(detail)})
		lines = append(lines, fmt.Sprintf("%d. %s, delegate %s", i+1, s.Server, delegate))
		order = append([]string{s.Server}, order...)
	}
	chain := strings.Join(order, " → ") + " → the not-found handler"
	addTranscriptText(&res, flow.Text{En: "a request goes the other way: the filters, " + chain,
		Zh: "请求的方向正好相反：先经过过滤器，然后 " + serverDescriptionZh.Replace(chain)})
	for _, s := range built {
		lines = append(lines, s.Detail)
	}
	res.Message = strings.Join(lines, "\n")
	return res, nil
}

// built0 is the name of the first server in built, or "" if none.
func built0(built []cluster.StartupStep) string {
	if len(built) == 0 {
		return ""
	}
	return built[0].Server
}

// fmtAt is when s happened since the cluster's start, as the startup
// trace prints it.
func fmtAt(s cluster.StartupStep) string {
	return strings.TrimPrefix(strings.Fields(s.String())[0], "+")
}
