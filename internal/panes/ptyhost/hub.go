package ptyhost

import (
	"os"
	"sync"
)

// replaySize is how much recent output an attaching client is shown first,
// so it sees the screen's last lines instead of nothing.
const replaySize = 16 << 10

// clientQueue is how many output chunks may wait for one slow client; a
// client that falls that far behind is dropped rather than allowed to
// stall the teammate.
const clientQueue = 256

// hub fans the teammate's output out to attached clients.
type hub struct {
	mu      sync.Mutex
	recent  []byte
	clients map[*client]struct{}
}

type client struct {
	conn *os.File
	out  chan []byte
}

func newHub() *hub { return &hub{clients: map[*client]struct{}{}} }

// write records p and queues it for every client. It never blocks.
func (h *hub) write(p []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, p...)
	if over := len(h.recent) - replaySize; over > 0 {
		h.recent = append(h.recent[:0], h.recent[over:]...)
	}
	for c := range h.clients {
		select {
		case c.out <- append([]byte(nil), p...):
		default:
			h.dropLocked(c)
		}
	}
}

// add registers conn; it first receives the recent output, then whatever
// comes next, with nothing lost or repeated in between.
func (h *hub) add(conn *os.File) *client {
	c := &client{conn: conn, out: make(chan []byte, clientQueue)}
	h.mu.Lock()
	if len(h.recent) > 0 {
		c.out <- append([]byte(nil), h.recent...)
	}
	h.clients[c] = struct{}{}
	h.mu.Unlock()
	go c.pump()
	return c
}

func (h *hub) remove(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropLocked(c)
}

func (h *hub) dropLocked(c *client) {
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c.out)
	}
}

// closeAll ends every client once its queued output is sent.
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		h.dropLocked(c)
	}
}

func (c *client) pump() {
	for p := range c.out {
		if _, err := c.conn.Write(p); err != nil {
			break
		}
	}
	c.conn.Close()
	for range c.out { // let the hub's sends drain after a write error
	}
}
