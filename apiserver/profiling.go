package apiserver

import (
	"net/http"
	"net/http/pprof"
)

// InstallProfiling serves Go's profiles under /debug/pprof/ as
// kube-apiserver does with --profiling (its default, true): the paths are
// non-resource URLs, so only a user authorized for them (system:masters,
// cluster-admin) reads them, e.g.
// kubectl get --raw '/debug/pprof/profile?seconds=30' > cpu.prof.
func InstallProfiling(mux *http.ServeMux, server string) {
	wrap := func(h http.Handler) http.Handler { return ServedByMux(server, h) }
	mux.Handle("/debug/pprof", wrap(http.RedirectHandler("/debug/pprof/", http.StatusFound)))
	mux.Handle("/debug/pprof/", wrap(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/profile", wrap(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/symbol", wrap(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("/debug/pprof/trace", wrap(http.HandlerFunc(pprof.Trace)))
}
