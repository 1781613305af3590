package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/kubelet"
)

func main() {
	ctx, stop := interruptContext(context.Background(), os.Stderr, os.Exit)
	err := newRootCommand(os.Stdin, os.Stdout, os.Stderr).ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode reports err on stderr and returns the exit status: 0 for
// success, 2 for a wrong command line, 130 for an interrupted start, 1
// for anything else.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	writeError(stderr, err)
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "Run 'kubesim --help' for usage.")
		return 2
	}
	if errors.Is(err, errInterrupted) {
		return 130
	}
	return 1
}

// writeError writes err on stderr: one line, or, for an aggregate of
// several errors (every problem Validate found), one line for each.
func writeError(stderr io.Writer, err error) {
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) || len(agg.Errors()) < 2 {
		fmt.Fprintf(stderr, "kubesim: %v\n", err)
		return
	}
	fmt.Fprintf(stderr, "kubesim: %d problems with the options:\n", len(agg.Errors()))
	for _, e := range agg.Errors() {
		fmt.Fprintf(stderr, "  %v\n", e)
	}
}

// usageError marks errors caused by how the command was called (exit 2).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usageArgs makes a cobra argument check report its errors as usage
// errors (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// noArgs is cobra.NoArgs reporting a usage error.
var noArgs = usageArgs(cobra.NoArgs)

func newRootCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var o playOptions
	root := &cobra.Command{
		Use:   "kubesim",
		Short: "A small, real Kubernetes control plane in one process, to watch how a pod comes to life",
		Long: `kubesim runs embedded etcd, a Kubernetes API server, a scheduler and
simulated nodes in one process, and shows the eight stages a pod goes
through, with the evidence captured from the running system. kubectl,
client-go and curl talk to it as to any cluster.

With no command, kubesim plays the scenario "` + DefaultScenario + `" (see "kubesim play").`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          noArgs,
	}
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	o.addFlags(root)
	root.Args = argsWithWeb(0)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if _, err := webAddrArg(&o.web, cmd.Flags().Changed("web"), args, 0); err != nil {
			return err
		}
		return runPlay(cmd.Context(), DefaultScenario, o, stdin, stdout, stderr)
	}
	root.AddCommand(newPlayCommand(stdin, stdout, stderr), newScenariosCommand(stdout), newServeCommand(stdout), newEtcdCommand(stdout), newVersionCommand(stdout), newNodeCommand(stdout), newBenchCommand(stdout, stderr), newReplayCommand(stdin, stdout, stderr))
	return root
}

func newServeCommand(stdout io.Writer) *cobra.Command {
	cfg := cluster.NewConfig()
	var trace bool
	var webAddr string
	nodes := cluster.DefaultNodeCount
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run etcd and the API server until Ctrl-C",
		Long: `serve runs embedded etcd and the API server on 127.0.0.1 and writes a
kubeconfig for them. Without --data-dir, all state lives in a temporary
directory removed on exit; with it, objects and resourceVersions survive
restarts. With --etcd-servers the API server stores its objects in that
etcd cluster (see "kubesim etcd") instead of the embedded one; if no
read of it succeeds within 20 s, serve exits with the reason.

Several API servers (kube-apiserver's high availability): run one
serve with the components, then others with --apiserver-only, all on the
same --etcd-servers and the same --pki-dir (one CA, one service account
key, one token file: a kubeconfig of one works on the others once its
server URL is changed). Each keeps a key in etcd
(/registry/masterleases/<ip>, renewed every 10 s, gone 15 s after its
last renewal), from which the kubernetes Endpoints list every live API
server, with one port; on one machine give each server its own loopback
address and the same port (--address 127.0.0.1, 127.0.0.2, ...,
--port 6443). Each also holds a Lease in kube-system (kubectl get leases
-n kube-system -l apiserver.kubernetes.io/identity=kube-apiserver).`,
		Args: argsWithWeb(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := webAddrArg(&webAddr, cmd.Flags().Changed("web"), args, 0); err != nil {
				return err
			}
			if cfg.APIServerOnly && cmd.Flags().Changed("nodes") {
				return usageError{errors.New("--nodes is not used with --apiserver-only: that server runs no kubelets")}
			}
			if err := validateServe(cfg, nodes); err != nil {
				return err
			}
			cfg.Nodes = kubelet.DefaultNodes(nodes)
			return runServe(cmd.Context(), cfg, serveOptions{trace: trace, web: webAddr}, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.DataDir, "data-dir", "", "keep etcd data, logs and the kubeconfig in `DIR` across restarts (default: a temporary directory removed on exit)")
	f.StringVar(&cfg.BindAddress, "address", cfg.BindAddress, "IP `address` the API server listens on")
	f.IntVar(&cfg.Port, "port", cfg.Port, "`port` the API server listens on (0 picks a free one)")
	f.StringVar(&webAddr, "web", "", webFlagUsage)
	f.Lookup("web").NoOptDefVal = defaultWebAddr
	f.BoolVar(&trace, "trace", false, "print the startup sequence (Complete, Validate, then Run with its post-start hooks), then the step-by-step trace of every API request")
	f.IntVar(&nodes, "nodes", nodes, "how many simulated nodes (node-1..node-N, 4 cpu, 8Gi, 110 pods each) to start")
	f.BoolVar(&cfg.ControlPlanePods, "control-plane-pods", true, "the first node's kubelet runs the control plane's static pods (etcd, kube-apiserver, kube-controller-manager, kube-scheduler), seen in kube-system as mirror pods, as on a kubeadm node")
	f.StringVar(&cfg.ImageCatalogue, "image-catalogue", "", "`FILE` of images the simulated registry has, changing the default catalogue (default: DATA/images.txt if it exists; the format is in docs/images.md)")
	f.Float64Var(&cfg.Speed, "speed", cfg.Speed, "speed of simulated time: 2 halves image pulls, container starts and back-offs; 0 removes them")
	f.DurationVar(&cfg.NodeLeaseDuration, "node-lease-duration", 0, "the kubelets' node Lease duration, renewed every quarter of it (the kubelet's nodeLeaseDurationSeconds, 40s upstream), not scaled by --speed, with upstream's node status periods (checked every 10s, reported unchanged every 5m) (default: 40s scaled by --speed; 8s for the hollow nodes past the hundredth at speed 0)")
	f.DurationVar(&cfg.NodeMonitorGracePeriod, "node-monitor-grace-period", 0, "how long a node's Lease may go unrenewed before the node lifecycle controller calls it Unknown (kube-controller-manager's flag, 50s upstream), not scaled by --speed (default: 50s scaled by --speed, at least 10s); many nodes at --speed 0: --node-lease-duration 40s --node-monitor-grace-period 50s")
	f.DurationVar(&cfg.RequestTimeout, "request-timeout", apiserver.DefaultRequestTimeout, "how long the API server works on a request before it answers 504 Timeout (watches excepted)")
	f.DurationVar(&cfg.EtcdCompactionInterval, "etcd-compaction-interval", cfg.EtcdCompactionInterval, "how often the API server compacts etcd's history to the revision of its previous compaction, keeping about one interval of it (0 disables; wall time, not scaled by --speed)")
	f.IntVar(&cfg.AuditLogRotation.MaxSizeMB, "audit-log-maxsize", cfg.AuditLogRotation.MaxSizeMB, "size in `megabytes` at which the audit log (DATA/logs/audit.log) is renamed to audit-<UTC time>.log and a new one started (0 never rotates)")
	f.IntVar(&cfg.AuditLogRotation.MaxBackups, "audit-log-maxbackup", cfg.AuditLogRotation.MaxBackups, "how many rotated audit logs to keep, the newest (0 keeps all)")
	f.IntVar(&cfg.AuditLogRotation.MaxAgeDays, "audit-log-maxage", cfg.AuditLogRotation.MaxAgeDays, "remove rotated audit logs older than this many `days`, by the time in their name (0: no age limit)")
	f.StringSliceVar(&cfg.EtcdServers, "etcd-servers", nil, "client `URLs` of an etcd cluster to store objects in, comma-separated (https://host:port); default: the embedded etcd")
	f.StringVar(&cfg.EtcdCAFile, "etcd-cafile", "", "CA `file` verifying the etcd members (kubesim etcd certs: <pki-dir>/ca.crt)")
	f.StringVar(&cfg.EtcdCertFile, "etcd-certfile", "", "the API server's client certificate `file` for etcd")
	f.StringVar(&cfg.EtcdKeyFile, "etcd-keyfile", "", "the API server's client key `file` for etcd")
	f.BoolVar(&cfg.APIServerOnly, "apiserver-only", false, "run the API server alone (no scheduler, controller manager, kubelets, metrics server) as a second or third API server of the cluster on --etcd-servers (required); share --pki-dir, and on one machine give each its own loopback --address with the same --port: the kubernetes Endpoints have one port")
	f.StringVar(&cfg.PKIDir, "pki-dir", "", "`DIR` holding the cluster's CA, service account key, tokens and client certificates, shared by every API server of the cluster (made on first use; default: DATA/pki); each server's serving certificate stays in DATA/pki")
	f.StringVar(&cfg.StorageMediaType, "storage-media-type", cfg.StorageMediaType, "media `type` objects are stored in etcd as: application/json (readable with etcdctl) or application/vnd.kubernetes.protobuf (kube-apiserver's default, values start with k8s\\x00); either is read, custom resources are always JSON")
	return cmd
}

// validateServe checks serve's options before anything starts, as
// kube-apiserver's command validates its completed options: every problem
// at once, a usage error (exit 2) listing them all. cluster.Start
// completes and validates cfg again, for its startup trace; here a copy
// is completed, so that the trace shows what Complete fills.
func validateServe(cfg *cluster.Config, nodes int) error {
	if err := cluster.ValidateServe(*cfg, nodes); err != nil {
		return usageError{err}
	}
	return nil
}

// flatten lists the errors of an aggregate, or err alone.
func flatten(err error) []error {
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		return agg.Errors()
	}
	return []error{err}
}

// errInterrupted is returned when Ctrl-C (or SIGTERM) ends kubesim before
// its cluster was up; it exits 130, as a shell reports an interrupted
// command.
var errInterrupted = errors.New("interrupted before the cluster was up")

// startCluster starts the cluster, reporting an interrupted start as
// errInterrupted rather than as the error of the phase it cut short.
func startCluster(ctx context.Context, cfg *cluster.Config) (*cluster.Cluster, error) {
	c, err := cluster.Start(ctx, cfg)
	if err != nil && ctx.Err() != nil {
		return nil, errInterrupted
	}
	return c, err
}

// serveOptions are serve's flags that are not the cluster's.
type serveOptions struct {
	trace bool
	web   string // the web view's address; "" for none
}

// runServe runs the control plane until ctx is done; with trace, it
// prints the trace of every request as it completes; with web, it serves
// the web view of whatever happens on the cluster.
//
// With trace, it first prints the startup sequence as it happens, in the
// layout of a request trace: the header, then one line per step
// (cluster.StartupStep).
func runServe(ctx context.Context, cfg *cluster.Config, o serveOptions, out io.Writer) error {
	trace := o.trace
	if o.web != "" && cfg.Gate == nil {
		// The web view's controls hold pods as a lesson's gate does;
		// until the teacher picks a mode, nothing is held.
		if cfg.Recorder == nil {
			cfg.Recorder = flow.NewRecorder()
		}
		cfg.Gate = flow.NewGate(flow.ModeOff, 0, cfg.Recorder)
	}
	if trace {
		fmt.Fprintln(out, "startup  kubesim serve, as kube-apiserver's command: Complete → Validate → Run")
		cfg.OnStartup = func(s cluster.StartupStep) { fmt.Fprintf(out, "  %s\n", s) }
	}
	c, err := startCluster(ctx, cfg)
	if err != nil {
		return err
	}
	ca := filepath.Join(c.Authority.Dir(), pki.CACertFile)
	fmt.Fprintf(out, "kubesim: API server at %s (HTTP/2 and HTTP/1.1), data in %s (logs in %s)\n", c.URL, c.DataDir, filepath.Join(c.DataDir, "logs"))
	fmt.Fprintf(out, "export KUBECONFIG=%s\n", c.Kubeconfig)
	fmt.Fprintf(out, "as the student: kubectl --kubeconfig %s get pods\n", c.StudentKubeconfig)
	fmt.Fprintf(out, "with curl:      curl --cacert %s -H \"Authorization: Bearer $(awk -F, '$2==\"admin\"{print $1}' %s)\" %s/api/v1/namespaces/default/pods\n",
		ca, c.Authority.TokenFile(), c.URL)
	if s, cm := c.SchedulerMetricsURL(), c.ControllerManagerMetricsURL(); s != "" || cm != "" {
		fmt.Fprintf(out, "metrics:        kubectl get --raw /metrics   kube-scheduler: %s/metrics   kube-controller-manager: %s/metrics\n", s, cm)
	}
	if !cfg.APIServerOnly { // it runs no nodes
		fmt.Fprintln(out, nodeHint(cfg.DataDir))
	}
	stopWeb, err := serveWebView(ctx, c, o.web, out)
	if err != nil {
		_ = c.Close()
		return err
	}
	fmt.Fprintln(out, "Press Ctrl-C to stop.")
	var wg sync.WaitGroup
	if trace {
		sub := c.Recorder.Subscribe(0)
		defer wg.Wait()
		defer sub.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range sub.Events() {
				if ev.Request != nil {
					_ = flow.WriteTrace(out, ev.Request)
				}
			}
		}()
	}
	<-ctx.Done()
	fmt.Fprintln(out, "kubesim: stopping (Ctrl-C again exits at once)")
	stopWeb()
	err = c.Close()
	fmt.Fprintln(out, "kubesim: stopped")
	return err
}

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the Kubernetes version whose API kubesim serves",
		Args:  noArgs,
		Run: func(*cobra.Command, []string) {
			fmt.Fprintln(stdout, versionLine())
		},
	}
}

// versionLine is what `kubesim version` and `kubesim --version` print.
func versionLine() string {
	v := apiserver.DefaultVersion()
	return fmt.Sprintf("kubesim serving the Kubernetes API %s (%s, %s)", v.GitVersion, v.GoVersion, v.Platform)
}
