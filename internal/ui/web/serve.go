package web

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// Options are paneteam web's: the server's Config and where it listens.
type Options struct {
	Config
	// Listen is host:port (DefaultListen when empty).
	Listen string
	// Names are the names the server answers to behind a proxy or on the
	// network (--host), besides the listen address.
	Names []string
	// TLSCert and TLSKey are the person's own certificate; empty, and
	// listening beyond loopback, paneteam's own is made in StateDir.
	TLSCert, TLSKey string
	// StateDir is paneteam web's folder in the state folder: the
	// self-signed certificate, the action log, the revocation stamp.
	StateDir string
	// JSON prints {"url": ...} instead of lines for people.
	JSON bool
	// QR draws each URL printed as a QR code too, for a phone's camera;
	// the caller sets it only when Stdout is a terminal and JSON is off.
	QR     bool
	Stdout io.Writer
	// Ready, when set, is told the URL once the server listens (tests).
	Ready func(url string)
}

// DefaultListen is where paneteam web listens unless told: loopback only.
const DefaultListen = "127.0.0.1:7480"

// LogName is the action log in StateDir; RevokeName the stamp that
// --revoke touches.
const (
	LogName    = "actions.log"
	RevokeName = "revoke"
)

// Serve listens and serves until ctx ends; it prints the URL to open
// first, on a line of its own.
func Serve(ctx context.Context, o Options) error {
	if o.Listen == "" {
		o.Listen = DefaultListen
	}
	host, port, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return fmt.Errorf("listen address %q: %w (write it as host:port, such as 127.0.0.1:7480)", o.Listen, err)
	}
	loopback := isLoopback(host)
	if err := os.MkdirAll(o.StateDir, 0o700); err != nil {
		return fmt.Errorf("make %s: %w", o.StateDir, err)
	}
	names := hostNames(host, o.Names)
	var cert *tls.Certificate
	switch {
	case o.TLSCert != "" || o.TLSKey != "":
		if o.TLSCert == "" || o.TLSKey == "" {
			return errors.New("give both a certificate and its key")
		}
		c, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return fmt.Errorf("load the certificate: %w", err)
		}
		cert = &c
	case !loopback:
		c, err := selfSigned(o.StateDir, names)
		if err != nil {
			return fmt.Errorf("make paneteam's own certificate: %w", err)
		}
		cert = &c
	}
	logf, err := os.OpenFile(filepath.Join(o.StateDir, LogName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open the action log: %w", err)
	}
	defer logf.Close()
	cfg := o.Config
	cfg.TLS = cert != nil
	cfg.Hosts = append(cfg.Hosts, names...)
	cfg.Log = append(cfg.Log, o.Stdout, logf)
	cfg.JSONLog = o.JSON
	cfg.RevokeFile = filepath.Join(o.StateDir, RevokeName)
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (another paneteam web? --listen 127.0.0.1:0 picks a free port)", o.Listen, err)
	}
	defer ln.Close()
	if _, p, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		port = p
	}
	urlHost := host
	if !loopback && (len(o.Names) > 0 || net.ParseIP(host) == nil || net.ParseIP(host).IsUnspecified()) && len(names) > 0 {
		urlHost = names[0]
	}
	scheme := "http"
	if cert != nil {
		scheme = "https"
	}
	mkURL := func(tok string) string {
		u := url.URL{Scheme: scheme, Host: net.JoinHostPort(urlHost, port), Path: "/", RawQuery: url.Values{"token": {tok}}.Encode()}
		return u.String()
	}
	// On loopback with --host, the name is a proxy's in front (tailscale
	// serve): the URL to open is the proxy's, on HTTPS's own port, and
	// the one on this machine follows it.
	open := mkURL
	if loopback && len(o.Names) > 0 {
		open = func(tok string) string {
			u := url.URL{Scheme: "https", Host: o.Names[0], Path: "/", RawQuery: url.Values{"token": {tok}}.Encode()}
			return u.String()
		}
	}
	show := func(tok, fp string, renewed bool) {
		local := ""
		if u := mkURL(tok); u != open(tok) {
			local = u
		}
		printURL(o.Stdout, o.JSON, o.QR, open(tok), local, fp, cfg.ReadOnly, renewed)
	}
	cfg.NewToken = func(tok string) { show(tok, "", true) }
	srv, err := New(cfg)
	if err != nil {
		return err
	}
	fp := ""
	if cert != nil {
		fp = Fingerprint(*cert)
	}
	show(cfg.Token, fp, false)
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 16 << 10, BaseContext: func(net.Listener) context.Context { return ctx }}
	if cert != nil {
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, hs.TLSConfig)
	}
	runCtx, cancel := context.WithCancel(ctx)
	runDone := make(chan struct{})
	go func() { defer close(runDone); srv.Run(runCtx) }()
	// Run reads the team's watcher, which the caller closes once Serve
	// returns: it must have stopped by then (a Watcher is one goroutine's).
	defer func() { cancel(); <-runDone }()
	if o.Ready != nil {
		o.Ready(mkURL(cfg.Token))
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	hs.Shutdown(sctx) //nolint:errcheck // event streams are cut: Ctrl-C leaves nothing behind
	hs.Close()        //nolint:errcheck
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// printURL prints u, the URL to open, first and on its own line; local,
// when set, is the same page on this machine's own address (behind a
// proxy, u is the proxy's).
func printURL(w io.Writer, asJSON, qr bool, u, local, fingerprint string, readOnly, renewed bool) {
	if asJSON {
		b, _ := json.Marshal(struct {
			URL         string `json:"url"`
			LocalURL    string `json:"localUrl,omitempty"`
			Fingerprint string `json:"fingerprint,omitempty"`
			ReadOnly    bool   `json:"readOnly,omitempty"`
		}{u, local, fingerprint, readOnly})
		fmt.Fprintf(w, "%s\n", b)
		return
	}
	fmt.Fprintln(w, u)
	if qr {
		// The URL stays the first line, on its own, for a script or a
		// click; a code too large or that fails to draw costs only itself.
		writeQR(w, u) //nolint:errcheck // the URL above is printed already
	}
	if local != "" {
		fmt.Fprintln(w, "through your proxy; on this machine the same page is", local)
	}
	if renewed {
		fmt.Fprintln(w, "the sessions were revoked: the URL above is the new one")
		return
	}
	if readOnly {
		fmt.Fprintln(w, "read-only: this URL sees the team and can change nothing")
	}
	if fingerprint != "" {
		fmt.Fprintln(w, "certificate SHA-256 fingerprint (check it once in the browser):", fingerprint)
	}
	fmt.Fprintln(w, "open the URL above; anyone who has it can act as you on this team until you stop (Ctrl-C) or run paneteam web --revoke")
}
