package metricsversion_test

import (
	"strconv"
	"strings"
	"testing"

	compbasemetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/kubesim/kubesim/internal/metricsversion"
)

// TestLegacyRegistryHidesWhatKubeHides: a STABLE metric deprecated three
// releases before the one the binary is hides in legacyregistry, as
// kube-apiserver's apiserver_storage_objects (deprecated in 1.34) does in
// v1.37; one deprecated in the current release is shown, its help saying
// so. Both would be shown if legacyregistry were made before init ran.
func TestLegacyRegistryHidesWhatKubeHides(t *testing.T) {
	if got := metricsversion.Version().GitVersion; !strings.HasPrefix(got, "v1.") {
		t.Fatalf("Version() = %q, want v1.x", got)
	}
	minor := metricsversion.Version().Minor
	old := compbasemetrics.NewGauge(&compbasemetrics.GaugeOpts{Name: "kubesim_test_old", Help: "old",
		StabilityLevel: compbasemetrics.STABLE, DeprecatedVersion: "1." + minus(t, minor, 3) + ".0"})
	recent := compbasemetrics.NewGauge(&compbasemetrics.GaugeOpts{Name: "kubesim_test_recent", Help: "recent",
		StabilityLevel: compbasemetrics.STABLE, DeprecatedVersion: "1." + minor + ".0"})
	legacyregistry.MustRegister(old, recent)
	if !old.IsHidden() {
		t.Errorf("a STABLE metric deprecated three releases ago is shown; legacyregistry was made with another version")
	}
	if recent.IsHidden() {
		t.Errorf("a STABLE metric deprecated in this release is hidden")
	}
}

func minus(t *testing.T, minor string, n int) string {
	t.Helper()
	m, err := strconv.Atoi(minor)
	if err != nil || m < n {
		t.Fatalf("minor %q: not a number above %d", minor, n)
	}
	return strconv.Itoa(m - n)
}
