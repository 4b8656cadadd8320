package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"sync"
)

// serviceWorker is /sw.js, at the site's root so that its scope is the
// whole page (no Service-Worker-Allowed header needed). Like the page's
// other files it needs no session: it holds nothing of the team's.
func (s *Server) serviceWorker(w http.ResponseWriter, r *http.Request) {
	b, err := workerScript()
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(b) //nolint:errcheck
}

// workerScript is assets/sw.js with its VERSION set to a hash of every
// file the page is made of: a paneteam web built with other files gives
// browsers a new worker, which replaces the files it kept.
var workerScript = sync.OnceValues(func() ([]byte, error) {
	h := sha256.New()
	err := fs.WalkDir(assets, "assets", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	src, err := assets.ReadFile("assets/sw.js")
	if err != nil {
		return nil, err
	}
	return bytes.Replace(src, []byte("{{VERSION}}"), []byte(hex.EncodeToString(h.Sum(nil))[:16]), 1), nil
})
