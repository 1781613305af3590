package scenarios

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// MaxFileSize is the largest scenario file, and the largest manifest an
// applyFile may name, that kubesim reads: 1 MiB.
const MaxFileSize = 1 << 20

// errTooLarge says a file is larger than MaxFileSize.
var errTooLarge = fmt.Errorf("larger than %d KiB (1 MiB), the most kubesim reads", MaxFileSize>>10)

// readApplyFile reads the manifest an applyFile names, for a scenario
// whose file is in dir. name is relative to dir (or absolute) and must
// stay inside dir, also once symbolic links are followed; the file must
// be a regular file (a device, a FIFO or a directory is refused without
// being read) of at most MaxFileSize. It returns the path errors should
// name and the contents. Its errors never quote the file.
func readApplyFile(dir, name string) (string, []byte, error) {
	p := filepath.Clean(filepath.FromSlash(name))
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	outside := fmt.Errorf("%s: outside %s, the scenario's directory (an applyFile is read relative to the scenario file and must stay in its directory)", name, dirName(dir))
	root, err := absReal(dir)
	if err != nil {
		return p, nil, pathError(p, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p, nil, pathError(p, err)
	}
	if !within(root, abs) && !within(mustAbs(dir), abs) {
		return p, nil, outside
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p, nil, pathError(p, err)
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return p, nil, pathError(p, err)
	}
	if !within(root, resolved) {
		return p, nil, outside
	}
	data, err := readRegular(resolved)
	if err != nil {
		return p, nil, fmt.Errorf("%s: %w", p, err)
	}
	return p, data, nil
}

// readRegular reads the file at p if it is a regular file of at most
// MaxFileSize bytes. The file is looked at before it is opened, opened
// without waiting (a FIFO put there meanwhile does not block the open)
// and looked at again through the open descriptor, so that nothing but a
// regular file is ever read; it is read through a limit, so that a file
// that grows is caught too.
func readRegular(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, unwrapPath(err)
	}
	if err := regularSize(fi); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, unwrapPath(err)
	}
	if err := regularSize(opened); err != nil {
		return nil, err
	}
	if !os.SameFile(fi, opened) {
		return nil, errors.New("changed while it was opened")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, unwrapPath(err)
	}
	if len(data) > MaxFileSize {
		return nil, errTooLarge
	}
	return data, nil
}

// regularSize says why fi is not a file kubesim reads: not a regular
// file, or too large.
func regularSize(fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", fileKind(fi.Mode()))
	}
	if fi.Size() > MaxFileSize {
		return errTooLarge
	}
	return nil
}

// fileKind names what a file of mode m is, for messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// within reports whether p is dir or inside it (both absolute and clean).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// absReal returns dir as an absolute path with its symbolic links
// followed.
func absReal(dir string) (string, error) {
	resolved, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	return filepath.Abs(resolved)
}

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}

// dirName names dir in messages ("." as "the current directory").
func dirName(dir string) string {
	if dir == "." {
		return "the current directory"
	}
	return dir
}

// pathError names p with err's cause ("x.yaml: no such file or
// directory").
func pathError(p string, err error) error {
	return fmt.Errorf("%s: %w", p, unwrapPath(err))
}

// unwrapPath returns the cause of a *fs.PathError, whose message would
// repeat the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// libraryRead reads applyFile names of a library scenario from the
// embedded library; a name must stay inside it.
func libraryRead(name string) (string, []byte, error) {
	p := path.Join("library", name)
	if !strings.HasPrefix(p, "library/") {
		return p, nil, fmt.Errorf("%s: outside the library", name)
	}
	b, err := libraryFS.ReadFile(p)
	return p, b, err
}
