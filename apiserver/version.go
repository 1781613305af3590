package apiserver

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
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
		Major: major,
		Minor: minor,
		// Upstream's effective version: it emulates its own version and is
		// compatible with the one before (component-base's
		// DefaultKubeEffectiveVersion: minimum compatibility = binary - 1).
		EmulationMajor:        major,
		EmulationMinor:        minor,
		MinCompatibilityMajor: major,
		MinCompatibilityMinor: previousMinor(minor),
		GitVersion:            gitVersion + "+kubesim",
		GitTreeState:          "clean",
		GoVersion:             runtime.Version(),
		Compiler:              runtime.Compiler,
		Platform:              fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}

// previousMinor is the minor version before minor ("36" for "37"; ""
// if minor is no number above 0).
func previousMinor(minor string) string {
	n, err := strconv.Atoi(minor)
	if err != nil || n < 1 {
		return ""
	}
	return strconv.Itoa(n - 1)
}
