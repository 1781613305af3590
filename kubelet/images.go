package kubelet

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/fnv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// FailingImageTag is the tag of images that do not exist, whatever the
// catalogue says: pulling them fails with ErrImagePull.
const FailingImageTag = "does-not-exist"

// imageName is an image reference resolved as containerd resolves it.
type imageName struct {
	repo   string // docker.io/library/nginx
	tag    string // 1.27; empty with a digest
	digest string // sha256:...; empty with a tag
}

// parseImage normalizes a reference: "nginx:1.27" is
// docker.io/library/nginx:1.27, a reference without tag or digest gets
// :latest.
func parseImage(ref string) imageName {
	var n imageName
	name := ref
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name, n.digest = name[:i], name[i+1:]
	}
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, n.tag = name[:i], name[i+1:]
	}
	if n.tag == "" && n.digest == "" {
		n.tag = "latest"
	}
	first, _, hasSlash := strings.Cut(name, "/")
	switch {
	case !hasSlash:
		name = "docker.io/library/" + name
	case !strings.ContainsAny(first, ".:") && first != "localhost":
		name = "docker.io/" + name
	}
	n.repo = name
	return n
}

// String is the normalized reference, what containerd reports as a
// container's image.
func (n imageName) String() string {
	if n.digest != "" {
		return n.repo + "@" + n.digest
	}
	return n.repo + ":" + n.tag
}

// id is the image's digested reference, a container's imageID: the
// reference's own digest, or a digest made up from the name.
func (n imageName) id() string {
	if n.digest != "" {
		return n.repo + "@" + n.digest
	}
	sum := sha256.Sum256([]byte("kubesim image " + n.String()))
	return n.repo + "@sha256:" + hex.EncodeToString(sum[:])
}

// size is the image's made-up size in bytes (30 to 120 MB).
func (n imageName) size() int64 {
	h := fnv.New32a()
	h.Write([]byte(n.String()))
	return 30_000_000 + int64(h.Sum32()%90_000_000)
}

// image is an image the node has.
type image struct {
	name imageName
	id   string
	size int64
}

// pullJob is a pull under way. Pods that need the same image while it is
// pulled wait for it rather than pulling again.
type pullJob struct {
	name  imageName
	begin time.Time
	done  time.Time
	fail  bool
	// result is the registry's answer (pullFound unless fail).
	result pullResult
}

// settle finishes, under r.mu, the pull of n if it is done by now.
func (r *fakeRuntime) settle(n imageName, now time.Time) {
	j := r.pulls[n.String()]
	if j == nil || now.Before(j.done) {
		return
	}
	delete(r.pulls, n.String())
	if !j.fail {
		r.images[n.String()] = image{name: n, id: n.id(), size: n.size()}
	}
}

// image returns the image named n if the node has it at now.
func (r *fakeRuntime) image(n imageName, now time.Time) (image, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settle(n, now)
	img, ok := r.images[n.String()]
	return img, ok
}

// pull starts pulling n at now, taking d (result: the registry's
// answer; a pull of an image it does not have fails), or
// returns the pull of n already under way.
func (r *fakeRuntime) pull(n imageName, now time.Time, d time.Duration, result pullResult) *pullJob {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settle(n, now)
	if j := r.pulls[n.String()]; j != nil {
		return j
	}
	j := &pullJob{name: n, begin: now, done: now.Add(d), fail: result != pullFound, result: result}
	r.pulls[n.String()] = j
	return j
}

// finish completes j (its time has come).
func (r *fakeRuntime) finish(j *pullJob) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settle(j.name, j.done)
	if !j.fail {
		// A later pull may have replaced j; the image is there either way.
		r.images[j.name.String()] = image{name: j.name, id: j.name.id(), size: j.name.size()}
	}
}

// adoptImage records an image the node had before the kubelet started
// (seen in a container's status).
func (r *fakeRuntime) adoptImage(ref string) {
	n := parseImage(ref)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.images[n.String()]; !ok {
		r.images[n.String()] = image{name: n, id: n.id(), size: n.size()}
	}
}

// imageList is the node's images for status.images, largest first, as
// the kubelet sorts them.
func (r *fakeRuntime) imageList() []corev1.ContainerImage {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]corev1.ContainerImage, 0, len(r.images))
	for _, img := range r.images {
		names := []string{img.id}
		if img.name.tag != "" {
			names = append(names, img.name.String())
		}
		out = append(out, corev1.ContainerImage{Names: names, SizeBytes: img.size})
	}
	sortImages(out)
	return out
}

func sortImages(imgs []corev1.ContainerImage) {
	for i := 1; i < len(imgs); i++ {
		for j := i; j > 0 && imageLess(imgs[j], imgs[j-1]); j-- {
			imgs[j], imgs[j-1] = imgs[j-1], imgs[j]
		}
	}
}

func imageLess(a, b corev1.ContainerImage) bool {
	if a.SizeBytes != b.SizeBytes {
		return a.SizeBytes > b.SizeBytes
	}
	return a.Names[0] < b.Names[0]
}
