// Command differential sends one corpus of HTTP requests to kubesim and
// to the real kube-apiserver v1.37.2 (the peer), normalizes both answers
// to each request and writes where they differ, as markdown:
//
//	go build -o /tmp/kubesim . && go run ./hack/differential -kubesim /tmp/kubesim
//
// It starts `kubesim serve` (one node, speed 0, a free loopback port)
// and the peer with ../shared/peer/start-peer (binaries in -peer-bin, see
// that folder's README.md), and stops both at the end; with
// -kubesim-kubeconfig and -peer-kubeconfig it uses servers already
// running instead. The corpus (corpus*.go) makes its objects in a
// namespace diff-<random id>, the same on both servers.
//
// What is compared (compare.go): the status code, Content-Type and
// Warning headers; for a metav1.Status its status, reason, code, message,
// details and causes; for any other body its shape (shape.go: the set of
// JSON paths with their types) and the values a request names; for a
// watch the sequence of its events. Messages and values are normalized
// first (normalize.go). expected.go says, for each difference that
// remains, why: kept on purpose (and where kubesim says so), or left (the
// issue that builds what is missing, or a defect). It is a tool to run by
// hand, not part of go test; a run takes about a minute.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
)

// options are differential's flags.
type options struct {
	kubesim, peerBin, startPeer string
	kubesimKubeconfig           string
	peerKubeconfig              string
	out                         string
	keep                        bool
}

func main() {
	var o options
	flag.StringVar(&o.kubesim, "kubesim", "", "kubesim binary to start (`kubesim serve`)")
	flag.StringVar(&o.peerBin, "peer-bin", "/tmp/k8s-peer/bin", "directory of the peer's etcd and kube-apiserver")
	flag.StringVar(&o.startPeer, "start-peer", defaultStartPeer(), "the peer's start script")
	flag.StringVar(&o.kubesimKubeconfig, "kubesim-kubeconfig", "", "use the kubesim this kubeconfig reaches instead of starting one")
	flag.StringVar(&o.peerKubeconfig, "peer-kubeconfig", "", "use the peer this kubeconfig reaches instead of starting one")
	flag.StringVar(&o.out, "out", "docs/differential.md", "the report to write")
	flag.BoolVar(&o.keep, "keep", false, "keep the servers' data and logs (a temporary directory) after the run")
	flag.Parse()
	if o.kubesim == "" && o.kubesimKubeconfig == "" {
		fmt.Fprintln(os.Stderr, "differential: -kubesim or -kubesim-kubeconfig is needed")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "differential:", err)
		os.Exit(1)
	}
}

// defaultStartPeer is ../shared/peer/start-peer beside the repository
// when it is there, else /work/shared/peer/start-peer.
func defaultStartPeer() string {
	p := filepath.Join("..", "shared", "peer", "start-peer")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "/work/shared/peer/start-peer"
}

// run starts what it must, sends the corpus and writes the report.
func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "differential-")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(dir)
	}
	k, p, stopAll, err := servers(ctx, o, dir)
	defer stopAll()
	if err != nil {
		return err
	}
	vars := runVars()
	kt, err := newTarget("kubesim", k, vars)
	if err != nil {
		return err
	}
	pt, err := newTarget("peer", p, vars)
	if err != nil {
		return err
	}
	results := sendAll(ctx, corpus(), kt, pt)
	rep := newReport(results, kt, pt, o)
	if err := os.WriteFile(o.out, []byte(rep.markdown()), 0o644); err != nil {
		return err
	}
	fmt.Printf("differential: %d requests, %d differ (%d kept on purpose); report in %s\n",
		rep.compared, len(rep.differing), len(rep.kept), o.out)
	if o.keep {
		fmt.Printf("differential: the servers' data and logs are in %s\n", dir)
	}
	return nil
}

// servers starts kubesim and the peer unless their kubeconfigs are
// given, and returns both kubeconfigs and how to stop what it started.
func servers(ctx context.Context, o options, dir string) (kubesim, peer string, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	kubesim, peer = o.kubesimKubeconfig, o.peerKubeconfig
	if kubesim == "" {
		s, err := startKubesim(ctx, o.kubesim, dir)
		if err != nil {
			return "", "", stop, err
		}
		stops = append(stops, s.Stop)
		kubesim = s.Kubeconfig()
	}
	if peer == "" {
		s, kc, err := startPeer(ctx, o.startPeer, o.peerBin, dir)
		if err != nil {
			return "", "", stop, err
		}
		stops = append(stops, s.stop)
		peer = kc
	}
	return kubesim, peer, stop, nil
}
