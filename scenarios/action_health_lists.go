package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// HealthListsAction asks the API server for /livez?verbose and
// /readyz?verbose and compares the checks each lists: its transcript has
// both lists as the run answered them, its message says which checks only
// one of them has ("only on /readyz: a, b", "only on /livez: none") and
// how many both have.
type HealthListsAction struct{}

var _ actionRunner = (*HealthListsAction)(nil)

func (a *HealthListsAction) Kind() string   { return "healthLists" }
func (a *HealthListsAction) String() string { return "healthLists" }

// parseHealthLists reads `true`, its only value.
func parseHealthLists(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	if err := mustBeTrue(n); err != nil {
		return nil, err
	}
	return &HealthListsAction{}, nil
}

func init() {
	registerTranscriptZh(map[string]string{
		"GET %s: %d checks":   "GET %s：%d 项检查",
		"only on /readyz: %s": "只在 /readyz 上：%s",
		"only on /livez: %s":  "只在 /livez 上：%s",
		"on both: %d checks":  "两者都有：%d 项检查",
	})
}

// run GETs both endpoints as the admin and compares their checks.
func (a *HealthListsAction) run(ctx context.Context, p *player, _ string) (StepResult, error) {
	var res StepResult
	lists := map[string][]string{}
	for _, path := range []string{"/livez", "/readyz"} {
		body, err := p.admin.Discovery().RESTClient().Get().AbsPath(path).Param("verbose", "").DoRaw(ctx)
		if err != nil {
			return res, fmt.Errorf("healthLists: GET %s?verbose: %w", path, err)
		}
		names := healthCheckNames(string(body))
		lists[path] = names
		addTranscript(&res, "GET %s: %d checks", path+"?verbose", len(names))
		addTranscript(&res, "   %s", strings.Join(names, ", "))
	}
	onlyReady, onlyLive := missingFrom(lists["/readyz"], lists["/livez"]), missingFrom(lists["/livez"], lists["/readyz"])
	both := 0
	for _, n := range lists["/livez"] {
		if slices.Contains(lists["/readyz"], n) {
			both++
		}
	}
	addTranscript(&res, "only on /readyz: %s", onlyReady)
	addTranscript(&res, "only on /livez: %s", onlyLive)
	addTranscript(&res, "on both: %d checks", both)
	res.Message = fmt.Sprintf("only on /readyz: %s\nonly on /livez: %s\non both: %d checks", onlyReady, onlyLive, both)
	return res, nil
}

// healthCheckNames are the names of the checks a verbose health answer
// lists ("[+]<name> ok" or "[-]<name> failed: ..."), in its order.
func healthCheckNames(body string) []string {
	var names []string
	for _, l := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(l, "[+]"); ok {
			names = append(names, strings.Fields(rest)[0])
		} else if rest, ok := strings.CutPrefix(l, "[-]"); ok {
			names = append(names, strings.Fields(rest)[0])
		}
	}
	return names
}

// missingFrom is the names of a that b lacks, in a's order,
// comma-separated, or "none".
func missingFrom(a, b []string) string {
	var out []string
	for _, n := range a {
		if !slices.Contains(b, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
