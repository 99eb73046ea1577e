package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hew-dev/hew/internal/fsutil"
)

// TrustFile is the trust store's name under $HEW_HOME.
const TrustFile = "trusted.json"

// trustRecord is what the store keeps per project root.
type trustRecord struct {
	Hash      string    `json:"hash"`
	TrustedAt time.Time `json:"trustedAt"`
}

type trustDoc struct {
	Projects map[string]trustRecord `json:"projects"`
}

// lookupTrust returns the stored trust of root. A store that cannot be
// read counts as no trust (fail closed).
func lookupTrust(home, root string) (trustRecord, bool) {
	if home == "" || root == "" {
		return trustRecord{}, false
	}
	doc, err := readTrustDoc(filepath.Join(home, TrustFile))
	if err != nil {
		return trustRecord{}, false
	}
	rec, ok := doc.Projects[root]
	return rec, ok
}

func readTrustDoc(path string) (trustDoc, error) {
	doc := trustDoc{Projects: map[string]trustRecord{}}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return doc, nil
		}
		return doc, err
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return doc, fmt.Errorf("%s: %w", path, err)
	}
	if doc.Projects == nil {
		doc.Projects = map[string]trustRecord{}
	}
	return doc, nil
}

// RecordTrust remembers that the user trusted t's settings for t.Root.
// Other projects' entries are kept even when several hew processes record
// at once: the store is rewritten under a lock file, atomically.
func RecordTrust(home string, t Trust) error {
	if home == "" || t.Root == "" {
		return errors.New("trust: no HEW_HOME or project root")
	}
	return updateTrust(home, func(doc *trustDoc) {
		doc.Projects[t.Root] = trustRecord{Hash: t.Hash, TrustedAt: time.Now().UTC()}
	})
}

// KeepTrust runs change, a write hew makes to the project's settings on the
// user's behalf (an approval saved as a rule, `hew mcp add`). When the
// project was trusted (or had nothing to trust) before, the new settings
// are recorded as trusted too, so the user is not asked about what they
// just did; an untrusted project stays untrusted.
func KeepTrust(p Paths, change func() error) error {
	before, err := Load(p)
	ok := err == nil && (before.Trust.Status == TrustStored || before.Trust.Status == TrustNothing)
	if err := change(); err != nil {
		return err
	}
	if !ok {
		return nil
	}
	p.TrustProject = false
	after, err := Load(p)
	if err != nil || after.Trust.Status == TrustNothing || after.Trust.Status == TrustStored {
		return nil
	}
	return RecordTrust(p.Home, after.Trust)
}

// updateTrust applies edit to the store under its lock.
func updateTrust(home string, edit func(*trustDoc)) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	path := filepath.Join(home, TrustFile)
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer unlock()
	doc, err := readTrustDoc(path)
	if err != nil {
		return fmt.Errorf("trust store: %w (move it aside to start over)", err)
	}
	edit(&doc)
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// Lock timing: a lock older than staleLock belongs to a process that died.
const (
	lockWait  = 10 * time.Second
	staleLock = 30 * time.Second
)

// lockFile takes an exclusive lock by creating path, portably. It waits
// for another holder and breaks a lock left behind by a dead process.
func lockFile(path string) (func(), error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, serr := os.Stat(path); serr == nil && time.Since(st.ModTime()) > staleLock {
			_ = os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another hew; remove it if no hew is running", path)
		}
		time.Sleep(15 * time.Millisecond)
	}
}
