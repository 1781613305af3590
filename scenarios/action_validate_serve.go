package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/cluster"
)

// ValidateServeAction checks options of `kubesim serve` as the command
// does before it starts anything (cluster.ValidateServe: Complete, then
// Validate, every problem at once), and starts nothing. Its result's
// message lists the problems, one a line.
type ValidateServeAction struct {
	Nodes   int
	Speed   float64
	Port    int
	Address string
}

var _ actionRunner = (*ValidateServeAction)(nil)

// validateServeDoc is validateServe as written.
type validateServeDoc struct {
	Nodes   *integer `yaml:"nodes"`
	Speed   *number  `yaml:"speed"`
	Port    *integer `yaml:"port"`
	Address *str     `yaml:"address"`
}

func (a *ValidateServeAction) Kind() string   { return "validateServe" }
func (a *ValidateServeAction) String() string { return "kubesim serve " + strings.Join(a.flags(), " ") }

// flags are the action's options as serve's flags.
func (a *ValidateServeAction) flags() []string {
	f := []string{fmt.Sprintf("--nodes %d", a.Nodes), fmt.Sprintf("--speed %g", a.Speed), fmt.Sprintf("--port %d", a.Port)}
	if a.Address != "" {
		f = append(f, "--address "+a.Address)
	}
	return f
}

// parseValidateServe reads {nodes, speed, port, address}; what is left
// out has serve's default (3 nodes, speed 1, port 6443, the address
// Complete fills in).
func parseValidateServe(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d validateServeDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &ValidateServeAction{Nodes: cluster.DefaultNodeCount, Speed: 1, Port: cluster.DefaultPort, Address: d.Address.or("")}
	if d.Nodes != nil {
		a.Nodes = int(*d.Nodes)
	}
	if d.Speed != nil {
		a.Speed = float64(*d.Speed)
	}
	if d.Port != nil {
		a.Port = int(*d.Port)
	}
	return a, nil
}

// run validates the options; the problems are the step's result, not a
// failure of the run.
func (a *ValidateServeAction) run(_ context.Context, _ *player, _ string) (StepResult, error) {
	cfg := cluster.Config{Port: a.Port, Speed: a.Speed, BindAddress: a.Address}
	var res StepResult
	for _, filled := range cfg.Complete() {
		addTranscript(&res, "Complete: filled %s", filled)
	}
	err := cluster.ValidateServe(cfg, a.Nodes)
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		addTranscript(&res, "Validate: ok")
		res.Message = "the options are valid"
		return res, nil
	}
	addTranscript(&res, "Validate: %d problems, all reported at once (exit 2):", len(agg.Errors()))
	lines := make([]string, len(agg.Errors()))
	for i, e := range agg.Errors() {
		lines[i] = e.Error()
		addTranscript(&res, "  %s", e.Error())
	}
	res.Message = strings.Join(lines, "\n")
	return res, nil
}
