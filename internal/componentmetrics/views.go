package componentmetrics

import (
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// View decides which series of the process's registry a component
// serves: family is the metric's name, m one of its series.
type View func(family string, m *dto.Metric) bool

// The leases the scheduler and the controller manager campaign for, as
// leader_election_master_status names them.
const (
	schedulerLease         = "kube-scheduler"
	controllerManagerLease = "kube-controller-manager"
)

// processPrefixes are the families of the process itself, which every
// upstream component serves: Go's runtime, the process, component-base's
// meta metrics and build information.
var processPrefixes = []string{"go_", "process_", "registered_metrics_total", "disabled_metrics_total",
	"hidden_metrics_total", "cardinality_enforcement_unexpected_categorizations_total", "kubernetes_build_info",
	"kubernetes_feature_enabled"}

// APIServerFamilies are the API server's families kubesim records
// (package apiserver's metrics.go and its storage): upstream's request
// metrics, in-flight and long-running gauges, stored objects and etcd
// requests. Upstream's packages kubesim links register more
// apiserver_* families (audit, CEL, TLS handshakes, the estimated
// size of each resource, ...), which kubesim does not keep up to date:
// those no view serves, rather than a zero that would not be true.
var APIServerFamilies = map[string]bool{
	"apiserver_request_total":             true,
	"apiserver_request_duration_seconds":  true,
	"apiserver_response_sizes":            true,
	"apiserver_longrunning_requests":      true,
	"apiserver_current_inflight_requests": true,
	"apiserver_resource_objects":          true,
	"etcd_request_duration_seconds":       true,
	"etcd_requests_total":                 true,
	"etcd_request_errors_total":           true,
	// MonitorRequest keeps it as upstream's does (a series per
	// fieldValidation value, never observed).
	"field_validation_request_duration_seconds": true,
}

// apiServerPrefixes are the families only an API server registers
// (k8s.io/apiserver's endpoints, storage, etcd3, authentication and
// authorization metrics, kube-aggregator's and apiextensions').
var apiServerPrefixes = []string{"apiserver_", "etcd_", "aggregator_", "apiextensions_", "authentication_",
	"authenticated_user_requests", "authorization_", "watch_cache_", "field_validation_request_duration_seconds"}

// APIServerQueues are the names of the workqueues kubesim's API server
// runs (package aggregator's controllers and the apiextensions server's):
// their workqueue_* series are the API server's, every other queue's the
// controller manager's. A queue added to the API server adds its name
// here.
var APIServerQueues = map[string]bool{
	"APIServiceRegistrationController": true,
	"autoregister":                     true,
	"crd_autoregistration_controller":  true,
	"RemoteAvailabilityController":     true,
	"LocalAvailabilityController":      true,
	"apiextensions":                    true,
}

// APIServer is kube-apiserver's view: APIServerFamilies, the workqueues
// of APIServerQueues and the process's.
func APIServer(family string, m *dto.Metric) bool {
	switch {
	case hasPrefix(family, processPrefixes), APIServerFamilies[family]:
		return true
	case strings.HasPrefix(family, "workqueue_"):
		return APIServerQueues[label(m, "name")]
	}
	return false
}

// SchedulerFamilies are the scheduler_* families kubesim's scheduler
// records (package scheduler's metrics.go). Upstream's registers more,
// which kubesim does not keep: no view serves them.
var SchedulerFamilies = map[string]bool{
	"scheduler_schedule_attempts_total":               true,
	"scheduler_scheduling_attempt_duration_seconds":   true,
	"scheduler_scheduling_algorithm_duration_seconds": true,
	"scheduler_pod_scheduling_attempts":               true,
	"scheduler_pending_pods":                          true,
}

// Scheduler is kube-scheduler's view: SchedulerFamilies, its leader
// election and the process's.
func Scheduler(family string, m *dto.Metric) bool {
	switch {
	case hasPrefix(family, processPrefixes), SchedulerFamilies[family]:
		return true
	case strings.HasPrefix(family, "leader_election_"):
		return label(m, "name") == schedulerLease
	}
	return false
}

// ControllerManager is kube-controller-manager's view: what neither the
// API server nor the scheduler registers (the workqueues of the
// controllers, upstream's controllers' own families), its leader
// election and the process's.
func ControllerManager(family string, m *dto.Metric) bool {
	switch {
	case hasPrefix(family, processPrefixes):
		return true
	case strings.HasPrefix(family, "leader_election_"):
		return label(m, "name") == controllerManagerLease
	case strings.HasPrefix(family, "workqueue_"):
		return !APIServerQueues[label(m, "name")]
	case hasPrefix(family, apiServerPrefixes), strings.HasPrefix(family, "scheduler_"):
		return false
	}
	return true
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// label is the value of m's label name ("" if it has none).
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
