package kubelet

import (
	"bufio"
	_ "embed"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
)

// defaultCatalogue is the simulated registry's catalogue as shipped: the
// images of images.txt, whose comments give the format.
//
//go:embed images.txt
var defaultCatalogue string

// Catalogue is the simulated registry: the repositories it has and, for
// each, the tags (patterns) it has. A Catalogue is not changed once made
// and is safe for concurrent use.
type Catalogue struct {
	repos map[string][]string // normalized repository -> tag patterns
}

// DefaultCatalogue returns the catalogue kubesim ships (images.txt).
func DefaultCatalogue() *Catalogue { return shippedCatalogue() }

var shippedCatalogue = sync.OnceValue(newDefaultCatalogue)

func newDefaultCatalogue() *Catalogue {
	c, err := parseCatalogue(&Catalogue{repos: map[string][]string{}}, "images.txt", defaultCatalogue)
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return c
}

// LoadCatalogue returns the default catalogue changed by the file at
// name: each repository the file lists replaces the default's line for
// it, and a repository whose only tag is "-" is removed.
func LoadCatalogue(name string) (*Catalogue, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("image catalogue: %w", err)
	}
	return parseCatalogue(newDefaultCatalogue(), name, string(data))
}

// parseCatalogue adds the lines of text (file name for errors) to base.
func parseCatalogue(base *Catalogue, name, text string) (*Catalogue, error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	for line := 1; sc.Scan(); line++ {
		s, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		if len(f) == 1 {
			return nil, fmt.Errorf("%s:%d: repository %s has no tags (\"*\" for any, \"-\" to remove it)", name, line, f[0])
		}
		for _, p := range f[1:] {
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("%s:%d: tag pattern %q: %w", name, line, p, err)
			}
		}
		repo := parseImage(f[0] + ":x").repo
		if len(f) == 2 && f[1] == "-" {
			delete(base.repos, repo)
			continue
		}
		base.repos[repo] = f[1:]
	}
	return base, sc.Err()
}

// pullResult is what the registry answers for an image.
type pullResult int

const (
	pullFound    pullResult = iota
	pullNoTag               // the repository exists, not the tag
	pullNoAccess            // no such repository
)

// String is the answer in a few words, for the flow's summaries.
func (r pullResult) String() string {
	switch r {
	case pullNoTag:
		return "not found"
	case pullNoAccess:
		return "repository does not exist"
	}
	return "found"
}

// lookup tells whether the registry has n.
func (c *Catalogue) lookup(n imageName) pullResult {
	tags, ok := c.repos[n.repo]
	if !ok {
		return pullNoAccess
	}
	if n.digest != "" {
		return pullFound
	}
	if n.tag == FailingImageTag {
		return pullNoTag
	}
	for _, p := range tags {
		if ok, _ := path.Match(p, n.tag); ok {
			return pullFound
		}
	}
	return pullNoTag
}

// pullError is the error containerd reports for an image the registry
// does not have, as the kubelet passes it on: a tag the repository does
// not have is NotFound; a repository Docker Hub does not have answers
// that access is denied.
func pullError(n imageName, r pullResult) string {
	if r == pullNoAccess {
		return fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed", n, n)
	}
	return fmt.Sprintf("rpc error: code = NotFound desc = failed to pull and unpack image %q: failed to resolve reference %q: %s: not found", n, n, n)
}
