package registry

import (
	"crypto/rand"
	"math/big"
)

// Generated names are the prefix plus five characters drawn from an
// alphabet without vowels and look-alike characters, so they never spell
// words; the prefix is cut so the whole name fits 63 characters. This is
// what kube-apiserver does for metadata.generateName.
const (
	nameSuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"
	nameSuffixLen      = 5
	maxNameLen         = 63
)

func generateName(prefix string) string {
	if len(prefix) > maxNameLen-nameSuffixLen {
		prefix = prefix[:maxNameLen-nameSuffixLen]
	}
	b := make([]byte, nameSuffixLen)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(nameSuffixAlphabet))))
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		b[i] = nameSuffixAlphabet[n.Int64()]
	}
	return prefix + string(b)
}
