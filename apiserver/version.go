package apiserver

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"k8s.io/apimachinery/pkg/version"
)

// DefaultVersion is what /version reports: the Kubernetes version whose API
// types kubesim serves (the k8s.io/api module it is built with).
func DefaultVersion() version.Info {
	gitVersion := "v1.37.2"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/api" && strings.HasPrefix(d.Version, "v0.") {
				gitVersion = "v1." + strings.TrimPrefix(d.Version, "v0.")
			}
		}
	}
	var major, minor string
	if parts := strings.SplitN(strings.TrimPrefix(gitVersion, "v"), ".", 3); len(parts) >= 2 {
		major, minor = parts[0], parts[1]
	}
	return version.Info{
		Major:        major,
		Minor:        minor,
		GitVersion:   gitVersion + "+kubesim",
		GitTreeState: "clean",
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}
