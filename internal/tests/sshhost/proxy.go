//go:build linux

package sshhost

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy forwards TCP connections on 127.0.0.1 to the host's sshd and
// plays the network between the machines: a one-way delay, a drop (every
// connection closed at once, as when a laptop loses its Wi-Fi and the
// kernel resets it) or a freeze (bytes held, connections left open, as a
// network that silently stops carrying packets).
type Proxy struct {
	Port   int
	target string
	l      net.Listener

	mu     sync.Mutex
	delay  time.Duration
	frozen bool
	thaw   chan struct{}
	conns  map[net.Conn]bool
}

func startProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Port: l.Addr().(*net.TCPAddr).Port, target: target, l: l, conns: map[net.Conn]bool{}, thaw: make(chan struct{})}
	go p.serve()
	t.Cleanup(func() { l.Close(); p.Drop(); p.Thaw() })
	return p
}

// SetDelay adds d to every chunk each way (so the round trip grows by 2d).
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// Drop closes every connection open now; new ones are accepted.
func (p *Proxy) Drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// Freeze stops carrying bytes on every connection until Thaw (or Drop).
func (p *Proxy) Freeze() {
	p.mu.Lock()
	if !p.frozen {
		p.frozen, p.thaw = true, make(chan struct{})
	}
	p.mu.Unlock()
}

// Thaw carries bytes again.
func (p *Proxy) Thaw() {
	p.mu.Lock()
	if p.frozen {
		p.frozen = false
		close(p.thaw)
	}
	p.mu.Unlock()
}

func (p *Proxy) serve() {
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = true, true
		p.mu.Unlock()
		go p.pipe(c, s)
		go p.pipe(s, c)
	}
}

type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst, each chunk held until its due time, so a delay
// adds latency without cutting throughput.
func (p *Proxy) pipe(src, dst net.Conn) {
	q := make(chan chunk, 1024)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				p.mu.Lock()
				d := p.delay
				p.mu.Unlock()
				q <- chunk{buf[:n], time.Now().Add(d)}
			}
			if err != nil {
				return
			}
		}
	}()
	defer dst.Close()
	defer src.Close()
	for c := range q {
		time.Sleep(time.Until(c.due))
		for {
			p.mu.Lock()
			frozen, thaw := p.frozen, p.thaw
			p.mu.Unlock()
			if !frozen {
				break
			}
			<-thaw
		}
		if _, err := dst.Write(c.b); err != nil {
			io.Copy(io.Discard, src)
			return
		}
	}
}
