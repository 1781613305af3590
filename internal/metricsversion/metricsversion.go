package metricsversion

import (
	"runtime/debug"
	"strings"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
	compbasemetrics "k8s.io/component-base/metrics"
)

// fallback is the version when the build information names no k8s.io/api.
const fallback = "v1.37.2"

func init() {
	v := Version()
	compbasemetrics.BuildVersion = func() apimachineryversion.Info { return v }
}

// Version is the Kubernetes version component-base's registries are told:
// v1.<minor>.<patch> from the k8s.io/api module v0.<minor>.<patch>.
func Version() apimachineryversion.Info {
	git := fallback
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/api" && strings.HasPrefix(d.Version, "v0.") {
				git = "v1." + strings.TrimPrefix(d.Version, "v0.")
			}
		}
	}
	major, minor, _ := strings.Cut(strings.TrimPrefix(git, "v"), ".")
	minor, _, _ = strings.Cut(minor, ".")
	return apimachineryversion.Info{Major: major, Minor: minor, GitVersion: git}
}
