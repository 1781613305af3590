package cluster

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/kubelet"
)

// Defaults used by NewConfig and Complete.
const (
	DefaultBindAddress = apiserver.DefaultBindAddress
	DefaultPort        = apiserver.DefaultPort
	// DefaultReadyTimeout bounds the wait for the API server to answer.
	DefaultReadyTimeout = 30 * time.Second
	// DefaultEtcdDialTimeout bounds the wait for a connection to an
	// external etcd: kube-apiserver's (fixed) dial timeout.
	DefaultEtcdDialTimeout = 20 * time.Second
)

// Config configures a cluster. Start takes it through the steps
// kube-apiserver's command takes its options through: Complete (fill
// what was left unset), Validate (report every problem at once), then
// run.
type Config struct {
	// DataDir keeps etcd's data, logs and the kubeconfig. Empty means a
	// fresh temporary directory, removed by Close.
	DataDir string
	// BindAddress and Port are where the API server listens (Port 0: any
	// free port).
	BindAddress string
	Port        int
	// BookmarkInterval is how often idle watches get a BOOKMARK (0: the
	// API server's default).
	BookmarkInterval time.Duration
	// UnsafeNoFsync makes etcd skip fsync (tests, benchmarks).
	UnsafeNoFsync bool
	// Recorder receives the flow events of every component; nil makes
	// Start create one (Cluster.Recorder).
	Recorder *flow.Recorder
	// Scheduler starts the scheduler.
	Scheduler bool
	// ControllerManager starts the controller manager (replicaset,
	// deployment and garbage collector controllers).
	ControllerManager bool
	// Nodes are the simulated nodes, each with its kubelet.
	Nodes []kubelet.NodeSpec
	// AttachNodes gives a kubelet to every Node created through the API.
	AttachNodes bool
	// Speed divides every simulated delay (image pulls, container start,
	// back-offs); 0 means no delays at all.
	Speed float64
	// ControlPlanePods makes the first node the control-plane node of a
	// kubeadm cluster as far as kube-system shows it: its kubelet runs
	// the static pods etcd, kube-apiserver, kube-controller-manager and
	// kube-scheduler, seen as mirror pods <name>-<node> (staticpods.go).
	ControlPlanePods bool
	// ImageCatalogue names a file that changes the simulated registry's
	// catalogue (kubelet.LoadCatalogue); empty: DataDir/images.txt if it
	// exists, else the default catalogue.
	ImageCatalogue string
	// NodeLeaseDuration is the kubelets' Lease duration (the kubelet's
	// nodeLeaseDurationSeconds; renewed every quarter of it) as given, not
	// divided by Speed; 0: upstream's 40 s scaled for Speed (see
	// nodeHeartbeats). NodeMonitorGracePeriod is the node lifecycle
	// controller's --node-monitor-grace-period likewise (0: 50 s scaled).
	// Set both to upstream's (40 s, 50 s) to run many nodes at speed 0
	// with upstream's heartbeat rate: a renewal every 10 s a node.
	NodeLeaseDuration, NodeMonitorGracePeriod time.Duration
	// ReadyTimeout bounds Start's wait for the API server.
	ReadyTimeout time.Duration
	// Gate holds the components at the stage boundaries of every pod's
	// creation (step-through); nil lets everything pass.
	Gate *flow.Gate
	// MetricsServer starts the metrics server behind APIService
	// v1beta1.metrics.k8s.io (kubectl top).
	MetricsServer bool
	// AggregatorProbePeriod is how often the aggregator checks the
	// availability of remote APIServices again (0: upstream's 30 s).
	AggregatorProbePeriod time.Duration
	// EtcdServers, when set, are the client URLs (https://host:port) of
	// an etcd cluster the API server stores its objects in, instead of
	// the embedded member: kube-apiserver's --etcd-servers. EtcdCAFile
	// verifies the members; EtcdCertFile and EtcdKeyFile are the API
	// server's client certificate (--etcd-cafile, --etcd-certfile,
	// --etcd-keyfile).
	EtcdServers  []string
	EtcdCAFile   string
	EtcdCertFile string
	EtcdKeyFile  string
	// RequestTimeout ends a non-watch request the API server has not
	// answered with a 504 Status (0: kube-apiserver's --request-timeout
	// default, 60 s).
	RequestTimeout time.Duration
	// EtcdCompactionInterval is how often the API server compacts etcd's
	// history to the revision of its previous tick, keeping about one
	// interval of it (kube-apiserver's --etcd-compaction-interval,
	// NewConfig: its default, 5 minutes; 0 disables). Wall time: it is
	// not divided by Speed. Lessons about old revisions compact
	// explicitly (Cluster.CompactEtcd).
	EtcdCompactionInterval time.Duration
	// AuditLogRotation bounds logs/audit.log in the data dir
	// (kube-apiserver's --audit-log-maxsize, --audit-log-maxbackup,
	// --audit-log-maxage); NewConfig: DefaultAuditLogRotation; the zero
	// value never rotates.
	AuditLogRotation audit.Rotation
	// EtcdDialTimeout bounds Start's wait for a connection to EtcdServers
	// (0: DefaultEtcdDialTimeout, kube-apiserver's).
	EtcdDialTimeout time.Duration
	// DisableAdmissionPlugins names the API server's admission plugins
	// not to run (kube-apiserver's --disable-admission-plugins). Tests of
	// a cluster without the controller manager leave out ServiceAccount,
	// as upstream's integration tests do, since nothing makes the
	// default service accounts there.
	DisableAdmissionPlugins []string
	// StorageMediaType is the media type the API server stores the
	// built-in resources in (kube-apiserver's --storage-media-type,
	// whose default is protobuf): apiserver.StorageMediaTypeJSON,
	// NewConfig's default, so that lessons show etcd's values as they
	// are, or apiserver.StorageMediaTypeProtobuf. A data dir written
	// with one opens with the other.
	StorageMediaType string
	// PKIDir, when set, holds the cluster's CA, service account signing
	// key, tokens and client certificates instead of DataDir/pki, so that
	// several API servers loading it are one cluster: a kubeconfig or
	// service account token of one works on the others. Each keeps its
	// serving certificate (naming its BindAddress) in its own
	// DataDir/pki. Processes may load one PKIDir at the same time (see
	// pki.LockFileName). Empty: DataDir/pki holds everything, as before.
	PKIDir string
	// APIServerOnly runs the API server alone, on the etcd cluster of
	// EtcdServers (required), beside another API server of the same
	// cluster: Complete turns the scheduler, controller manager, kubelets
	// and metrics server off (APIOnly). serve --apiserver-only.
	APIServerOnly bool
	// HA, when set, makes Start form a highly available control plane in
	// this process (StartHA): an etcd cluster of its own and several API
	// servers on it, instead of the embedded member. DataDir must be set.
	HA *HAConfig
	// APIServerName, when set, names the API server in the flow events
	// it records (flow.Event.Instance), where several run: StartHA's
	// "API server 1 (127.0.0.1)".
	APIServerName string
	// podStages is shared by the API servers of an HA topology (StartHA).
	podStages *apiserver.PodStages
	// OnStartup, when set, is called with each step of Start (and of
	// RestartAPIServer) as it happens, one call at a time; it must not
	// block for long. Cluster.StartupSteps lists them afterwards.
	OnStartup func(StartupStep)
}

// DefaultAuditLogRotation bounds the audit log to 400 MB: files of
// kube-apiserver's default --audit-log-maxsize (100 MB), three backups
// (upstream keeps 100, 10 GB, too much for a laptop's simulator) and
// upstream's --audit-log-maxage of 366 days.
var DefaultAuditLogRotation = audit.Rotation{MaxSizeMB: 100, MaxBackups: 3, MaxAgeDays: 366}

// DefaultNodeCount is how many nodes a default cluster has.
const DefaultNodeCount = 3

// NewConfig returns the defaults: a throw-away data dir, the API on
// 127.0.0.1:6443, the scheduler, the controller manager, DefaultNodeCount nodes of 4 cpu and 8Gi,
// kubelets attached to Nodes created through the API, the metrics server,
// speed 1, etcd compacted every 5 minutes, the audit log rotated
// (DefaultAuditLogRotation).
func NewConfig() *Config {
	return &Config{
		BindAddress:  DefaultBindAddress,
		Port:         DefaultPort,
		ReadyTimeout: DefaultReadyTimeout,
		Scheduler:    true,
		Nodes:        kubelet.DefaultNodes(DefaultNodeCount),
		AttachNodes:  true,
		Speed:        kubelet.DefaultSpeed,

		MetricsServer:     true,
		ControllerManager: true,

		EtcdCompactionInterval: apiserver.DefaultCompactionInterval,
		AuditLogRotation:       DefaultAuditLogRotation,
		StorageMediaType:       apiserver.DefaultStorageMediaType,
	}
}

// APIOnly turns c into etcd and the API server alone: no scheduler, no
// kubelets (tests of the API, and of the components themselves).
func (c *Config) APIOnly() *Config {
	c.Scheduler, c.ControllerManager, c.Nodes, c.AttachNodes, c.MetricsServer = false, false, nil, false, false
	return c
}

// Complete fills the options left at their zero value that have a
// default (the address, the ready timeout), as kube-apiserver's
// options.Complete does before validation, turns the components off for
// APIServerOnly, and returns what it filled ("address 127.0.0.1"), in
// order. It does not touch the disk: the
// temporary data dir of an empty DataDir is made by Start.
func (c *Config) Complete() (filled []string) {
	if c.BindAddress == "" {
		c.BindAddress = DefaultBindAddress
		filled = append(filled, "address "+c.BindAddress)
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = DefaultReadyTimeout
		filled = append(filled, "ready-timeout "+c.ReadyTimeout.String())
	}
	if c.APIServerOnly && (c.Scheduler || c.ControllerManager || len(c.Nodes) > 0 || c.AttachNodes || c.MetricsServer) {
		c.APIOnly()
		filled = append(filled, "apiserver-only: no scheduler, controller manager, kubelets or metrics server")
	}
	if len(c.EtcdServers) > 0 && c.EtcdDialTimeout == 0 {
		c.EtcdDialTimeout = DefaultEtcdDialTimeout
		filled = append(filled, "etcd dial timeout "+c.EtcdDialTimeout.String())
	}
	return filled
}

// Validate reports every problem with c at once, as kube-apiserver's
// options.Validate does: nil, or a utilerrors.Aggregate whose Errors()
// are *OptionError, in the order the options are listed here (address,
// port, speed, ready-timeout, nodes, then the etcd options). It reads
// nothing but c.
func (c *Config) Validate() error {
	var errs []error
	add := func(option string, value any, reason string) {
		errs = append(errs, &OptionError{Option: option, Value: value, Reason: reason})
	}
	if net.ParseIP(c.BindAddress) == nil {
		add("address", c.BindAddress, "must be an IP address")
	}
	if c.Port < 0 || c.Port > 65535 {
		add("port", c.Port, "must be between 0 and 65535")
	}
	switch {
	case math.IsNaN(c.Speed) || math.IsInf(c.Speed, 0):
		add("speed", c.Speed, "must be a number")
	case c.Speed < 0:
		add("speed", c.Speed, "must not be negative")
	}
	if c.ReadyTimeout <= 0 {
		add("ready-timeout", c.ReadyTimeout, "must be positive")
	}
	seen := map[string]bool{}
	for _, n := range c.Nodes {
		switch {
		case n.Name == "":
			add("nodes", n.Name, "each node needs a name")
		case seen[n.Name]:
			add("nodes", n.Name, "names a node twice")
		}
		seen[n.Name] = true
	}
	errs = append(errs, c.validateHeartbeats()...)
	if c.RequestTimeout < 0 {
		add("request-timeout", c.RequestTimeout, "must not be negative")
	}
	for _, o := range []struct {
		option string
		value  int
	}{{"audit-log-maxsize", c.AuditLogRotation.MaxSizeMB}, {"audit-log-maxbackup", c.AuditLogRotation.MaxBackups}, {"audit-log-maxage", c.AuditLogRotation.MaxAgeDays}} {
		if o.value < 0 {
			add(o.option, o.value, "must not be negative")
		}
	}
	if c.EtcdCompactionInterval < 0 {
		add("etcd-compaction-interval", c.EtcdCompactionInterval, "must not be negative (0 disables compaction)")
	}
	if err := apiserver.ValidateStorageMediaType(c.StorageMediaType); err != nil {
		add("storage-media-type", c.StorageMediaType, fmt.Sprintf("must be %s or %s", apiserver.StorageMediaTypeJSON, apiserver.StorageMediaTypeProtobuf))
	}
	errs = append(errs, c.validateEtcd()...)
	return utilerrors.NewAggregate(errs)
}

// ValidateNodeCount checks a count of nodes (serve's --nodes), which
// Config holds as the nodes themselves: nil, or an *OptionError.
func ValidateNodeCount(n int) error {
	if n < 0 {
		return &OptionError{Option: "nodes", Value: n, Reason: "must not be negative"}
	}
	return nil
}

// OptionError is one problem with one option.
type OptionError struct {
	// Option is the option's name as serve's flag spells it ("port").
	Option string
	// Value is the value rejected.
	Value any
	// Reason says what a valid value is ("must not be negative").
	Reason string
}

// Error reads "--port must be between 0 and 65535, got 70000".
func (e *OptionError) Error() string {
	v := fmt.Sprint(e.Value)
	switch e.Value.(type) {
	case string:
		v = fmt.Sprintf("%q", e.Value)
	case float64:
		v = strings.TrimSuffix(fmt.Sprintf("%g", e.Value), ".0")
	}
	return fmt.Sprintf("--%s %s, got %s", e.Option, e.Reason, v)
}

// ValidateServe checks the options of kubesim serve as its command does
// before anything starts, kube-apiserver's way: a copy of cfg is
// completed (Complete) and validated (Validate), and nodes, the count of
// --nodes, is checked too. It returns nil, or a utilerrors.Aggregate of
// every *OptionError found, Validate's first. It starts nothing.
func ValidateServe(cfg Config, nodes int) error {
	cfg.Complete()
	var errs []error
	if err := cfg.Validate(); err != nil {
		var agg utilerrors.Aggregate
		if errors.As(err, &agg) {
			errs = append(errs, agg.Errors()...)
		} else {
			errs = append(errs, err)
		}
	}
	if err := ValidateNodeCount(nodes); err != nil {
		errs = append(errs, err)
	}
	return utilerrors.NewAggregate(errs)
}
