package componentmetrics

import (
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	compbasemetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	// Tell component-base the Kubernetes version before legacyregistry
	// is made (see its doc).
	_ "github.com/kubesim/kubesim/internal/metricsversion"
)

// Gatherer gathers the process's registry (legacyregistry) through v:
// each family keeps the series v accepts, and is left out if none is
// left. Before gathering it runs refresh, if not nil (a component that
// sets gauges on demand).
func Gatherer(v View, refresh func()) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		if refresh != nil {
			refresh()
		}
		mfs, err := legacyregistry.DefaultGatherer.Gather()
		out := mfs[:0]
		for _, mf := range mfs {
			kept := mf.Metric[:0]
			for _, m := range mf.Metric {
				if v(mf.GetName(), m) {
					kept = append(kept, m)
				}
			}
			if len(kept) > 0 {
				mf.Metric = kept
				out = append(out, mf)
			}
		}
		return out, err
	})
}

// Handler serves v of the process's registry in Prometheus' text format,
// as component-base's HandlerWithReset serves a component's registry
// (what kube-apiserver and the others install with profiling on, their
// default): DELETE resets the registry's metrics ("metrics reset"); as
// there is one registry, that resets every component's.
func Handler(v View, refresh func()) http.Handler {
	h := compbasemetrics.HandlerFor(Gatherer(v, refresh), compbasemetrics.HandlerOpts{ProcessStartTime: legacyregistry.GetProcessStart()})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			legacyregistry.Reset()
			_, _ = io.WriteString(w, "metrics reset\n")
			return
		}
		h.ServeHTTP(w, r)
	})
}
