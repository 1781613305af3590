package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
)

//go:embed library/*.yaml
var libraryFS embed.FS

// LibraryOrder is the order of the library's scenarios, as the issue lists
// them: pod-create (the default) first. Scenarios not named here come
// after, by name.
var LibraryOrder = []string{
	"pod-create",
	"request-lifecycle",
	"watch-mechanics",
	"kubectl-watch",
	"rbac-forbidden",
	"admission-defaults-and-validation",
	"unschedulable-then-node-added",
	"scheduler-scoring",
	"graceful-delete",
	"crashloop-backoff",
	"deployment-rollout",
	"service-endpoints",
	"watch-resume-410",
	"optimistic-concurrency-409",
	"etcd-mvcc-history",
	"apiserver-startup",
	"server-chain",
	"go-restful-dispatch",
	"node-failure",
	"cascading-delete",
	"namespace-delete",
	// The workloads week.
	"statefulset-mysql",
	"daemonset-per-node",
	"job-and-cronjob",
	"hpa-scale",
	"drain-and-pdb",
	"server-side-apply",
}

// DefaultScenario is the scenario `kubesim` plays when given none.
const DefaultScenario = "pod-create"

// ErrNotFound is returned (wrapped) by Find for a name the library does not
// have.
var ErrNotFound = errors.New("no such scenario")

// Library loads the embedded scenarios, in LibraryOrder. A library file
// whose name is not its scenario's name is an error.
func Library() ([]*Scenario, error) {
	entries, err := fs.Glob(libraryFS, "library/*.yaml")
	if err != nil {
		return nil, err
	}
	var out []*Scenario
	for _, p := range entries {
		s, err := loadLibraryFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	rank := func(name string) int {
		if i := slices.Index(LibraryOrder, name); i >= 0 {
			return i
		}
		return len(LibraryOrder)
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i].Name), rank(out[j].Name)
		if ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

func loadLibraryFile(p string) (*Scenario, error) {
	data, err := libraryFS.ReadFile(p)
	if err != nil {
		return nil, err
	}
	s, err := parse(p, data, libraryRead)
	if err != nil {
		return nil, err
	}
	if want := strings.TrimSuffix(path.Base(p), ".yaml"); s.Name != want {
		return nil, &FileError{File: p, Line: 1, Col: 1, Msg: fmt.Sprintf("name %q: a library file is named after its scenario (%s.yaml)", s.Name, s.Name)}
	}
	return s, nil
}

// Find returns the scenario nameOrPath names: a file when it contains a
// slash or ends in .yaml (or .yml), else a scenario of the library.
func Find(nameOrPath string) (*Scenario, error) {
	if strings.ContainsRune(nameOrPath, '/') || strings.ContainsRune(nameOrPath, os.PathSeparator) ||
		strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml") {
		return Load(nameOrPath)
	}
	p := "library/" + nameOrPath + ".yaml"
	if _, err := fs.Stat(libraryFS, p); err != nil {
		var names []string
		if all, err := fs.Glob(libraryFS, "library/*.yaml"); err == nil {
			for _, a := range all {
				names = append(names, strings.TrimSuffix(path.Base(a), ".yaml"))
			}
		}
		return nil, fmt.Errorf("scenario %q: %w (the library has: %s)", nameOrPath, ErrNotFound, strings.Join(names, ", "))
	}
	return loadLibraryFile(p)
}
