package cluster_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/apiserver/kubeapiserver"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/kubelet"
)

// TestStartupSequence: Start reports Complete, Validate and the steps of
// Run in the order they happen: etcd, the listener, the caches, serving,
// each post-start hook started then finished, all hooks finished, /readyz
// passing, then the components; Cluster.StartupSteps lists the same.
func TestStartupSequence(t *testing.T) {
	cfg := clustertest.Config(t)
	cfg.Scheduler, cfg.Nodes = true, kubelet.DefaultNodes(1)
	cfg.BindAddress = "" // for Complete to fill
	var mu sync.Mutex
	var seen []cluster.StartupStep
	cfg.OnStartup = func(s cluster.StartupStep) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s)
	}
	c := clustertest.StartWith(t, cfg)
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, s := range seen {
		got = append(got, strings.Join(strings.Fields(s.Phase+" "+s.Name+" "+s.Hook+" "+s.Outcome+" "+s.Server), " "))
	}
	index := func(step string) int {
		i := slices.Index(got, step)
		if i < 0 {
			t.Fatalf("no step %q in %q", step, got)
		}
		return i
	}
	// The servers of the chain are built as CreateServerChain builds them:
	// apiextensions-apiserver, then kube-apiserver on it, then the
	// aggregator on kube-apiserver.
	order := []string{
		"Complete options ok", "Validate options ok", "Run etcd started", "Run listener bound",
		"Run serverchain built apiextensions-apiserver", "Run serverchain built kube-apiserver", "Run serverchain built kube-aggregator",
		"Run caches ok", "Run serving ok", "Run poststarthooks finished", "Run readyz ok", "Run components started",
	}
	for i := 1; i < len(order); i++ {
		if index(order[i-1]) > index(order[i]) {
			t.Errorf("step %q came after %q: %q", order[i-1], order[i], got)
		}
	}
	for _, hook := range []string{kubeapiserver.HookSystemNamespaces, kubeapiserver.HookBootstrapRoles} {
		started, finished := index("Run poststarthook "+hook+" started"), index("Run poststarthook "+hook+" finished")
		if !(index("Run serving ok") < started && started < finished && finished < index("Run poststarthooks finished")) {
			t.Errorf("hook %s: started at %d, finished at %d, want between serving and all hooks finished: %q", hook, started, finished, got)
		}
	}
	for server, want := range map[string]string{
		"apiextensions-apiserver": "apiextensions-apiserver, delegate the not-found handler: go-restful WebServices /apis/apiextensions.k8s.io/v1 (",
		"kube-apiserver":          "kube-apiserver, delegate apiextensions-apiserver: the core (legacy) group at /api/v1: WebService /api/v1 (",
		"kube-aggregator":         "kube-aggregator, delegate kube-apiserver: go-restful WebServices /apis/apiregistration.k8s.io/v1 (",
	} {
		if d := seen[index("Run serverchain built "+server)].Detail; !strings.HasPrefix(d, want) {
			t.Errorf("%s's step = %q, want it to start %q", server, d, want)
		}
	}
	if d := seen[0].Detail; !strings.Contains(d, "defaults filled: address 127.0.0.1") {
		t.Errorf("Complete's detail = %q, want it to name the address it filled", d)
	}
	if d := seen[index("Run components started")].Detail; d != "scheduler; controller manager; kubelets node-1; a kubelet for each Node created; metrics server (APIService v1beta1.metrics.k8s.io)" {
		t.Errorf("components' detail = %q", d)
	}
	if listed := c.StartupSteps(); !slices.Equal(listed, seen) {
		t.Errorf("StartupSteps() = %v, want what OnStartup saw: %v", listed, seen)
	}
}

// TestValidateListsEveryProblem: Validate reports every bad option at once,
// as an aggregate of *OptionError in the order of the options.
func TestValidateListsEveryProblem(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*cluster.Config)
		want   []string
	}{
		{"defaults", func(*cluster.Config) {}, nil},
		{"one", func(c *cluster.Config) { c.Port = 70000 }, []string{"--port must be between 0 and 65535, got 70000"}},
		{"all", func(c *cluster.Config) {
			c.BindAddress, c.Port, c.Speed, c.ReadyTimeout = "localhost", -1, -2, -1
			c.Nodes = append(kubelet.DefaultNodes(2), kubelet.DefaultNodeSpec("node-1"))
		}, []string{
			`--address must be an IP address, got "localhost"`,
			"--port must be between 0 and 65535, got -1",
			"--speed must not be negative, got -2",
			"--ready-timeout must be positive, got -1ns",
			`--nodes names a node twice, got "node-1"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := cluster.NewConfig()
			tt.mutate(cfg)
			err := cfg.Validate()
			var got []string
			var agg utilerrors.Aggregate
			if errors.As(err, &agg) {
				for _, e := range agg.Errors() {
					var oe *cluster.OptionError
					if !errors.As(e, &oe) {
						t.Errorf("item %v is a %T, want *cluster.OptionError", e, e)
					}
					got = append(got, e.Error())
				}
			} else if err != nil {
				t.Fatalf("Validate() = %v (%T), want an aggregate", err, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Validate() errors = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCompleteFillsDefaults: Complete fills what was left unset, says
// what, and leaves what was set.
func TestCompleteFillsDefaults(t *testing.T) {
	var cfg cluster.Config
	if got, want := strings.Join(cfg.Complete(), ", "), "address 127.0.0.1, ready-timeout 30s"; got != want {
		t.Errorf("Complete() = %q, want %q", got, want)
	}
	if filled := cfg.Complete(); len(filled) != 0 {
		t.Errorf("second Complete() = %q, want nothing filled", filled)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() after Complete = %v, want nil", err)
	}
}
