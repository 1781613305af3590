package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
)

// StopAPIServerAction stops one of the API servers of a cluster of
// topology ha (2, 3, ...: the first is the cluster's own), as a
// graceful shutdown of its process does (stopAPIServer) or as SIGKILL
// does (killAPIServer).
type StopAPIServerAction struct {
	// Verb is "stopAPIServer" or "killAPIServer".
	Verb   string
	Server int
}

var _ actionRunner = (*StopAPIServerAction)(nil)

func (a *StopAPIServerAction) Kind() string   { return a.Verb }
func (a *StopAPIServerAction) String() string { return fmt.Sprintf("%s %d", a.Verb, a.Server) }

// parseStopAPIServer reads the number of the API server to stop or kill.
func parseStopAPIServer(_ *loader, key string, n *yaml.Node) (actionRunner, error) {
	i, err := decodeAs[integer](n)
	if err != nil {
		return nil, err
	}
	if i < 2 || i > integer(cluster.DefaultHAConfig.APIServers) {
		return nil, errAt(n, "%d: the API servers that can stop are 2 to %d (1 is the cluster's own)", i, cluster.DefaultHAConfig.APIServers)
	}
	return &StopAPIServerAction{Verb: key, Server: int(i)}, nil
}

// run stops or kills the API server; the result's message names its URL.
func (a *StopAPIServerAction) run(_ context.Context, p *player, _ string) (StepResult, error) {
	ha := cluster.HAOf(p.cluster)
	if ha == nil {
		return StepResult{}, fmt.Errorf("%s: the scenario's cluster has one API server (cluster: topology: ha has more)", a.Verb)
	}
	url := ha.APIServerURLs()[a.Server-1]
	halt, verb := ha.StopAPIServer, "stopped"
	if a.Verb == "killAPIServer" {
		halt, verb = ha.KillAPIServer, "killed"
	}
	if err := halt(a.Server); err != nil {
		return StepResult{}, err
	}
	return StepResult{Message: fmt.Sprintf("%s API server %d at %s", verb, a.Server, url)}, nil
}
