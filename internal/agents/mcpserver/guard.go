package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport serves MCP on in and out (newline-delimited JSON-RPC, as the
// SDK's StdioTransport) behind a guard. The SDK's own reader ends the
// connection, and so the server, on the first line it cannot take: one
// longer than its cap, one that is not JSON, or not a JSON-RPC message;
// the agent would lose its team tools for the rest of its session. The
// guard reads each line first, at most max bytes of it held (a longer one
// is skipped as it streams by), answers one it cannot pass on with a
// JSON-RPC error, says so on log, and hands the SDK only lines it takes.
func Transport(in io.ReadCloser, out io.WriteCloser, log io.Writer, max int) mcp.Transport {
	w := &lockedWriter{w: out}
	g := &guard{r: bufio.NewReaderSize(in, 64<<10), c: in, out: w, log: log, max: max}
	// The guard already bounds every line it passes on.
	return &mcp.IOTransport{Reader: g, Writer: w, MaxLineLength: -1}
}

// lockedWriter lets the guard's answers and the SDK's writes share out
// without interleaving: the SDK writes each message in one Write call.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

type guard struct {
	r   *bufio.Reader
	c   io.Closer
	out io.Writer
	log io.Writer
	max int

	buf  []byte // the line being read
	rest []byte // what the SDK has not yet read of the line passed on
	err  error  // the reader's error, returned once the lines before it are served
}

func (g *guard) Close() error { return g.c.Close() }

// Read hands the SDK the lines it can take, one at a time.
func (g *guard) Read(p []byte) (int, error) {
	for len(g.rest) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.rest = g.judge(g.readLine())
	}
	n := copy(p, g.rest)
	g.rest = g.rest[n:]
	return n, nil
}

// readLine reads one line. Past max bytes it keeps nothing more (over):
// it returns the line's size and the id its request carries, scanned for
// on the way (idScan), for the answer to name.
func (g *guard) readLine() (line []byte, over bool, size int, id json.RawMessage) {
	g.buf = g.buf[:0]
	var scan *idScan
	for {
		chunk, err := g.r.ReadSlice('\n')
		size += len(chunk)
		switch {
		case scan != nil:
			scan.feed(chunk)
		case size > g.max+1: // +1: the newline
			scan = &idScan{}
			scan.feed(g.buf)
			scan.feed(chunk)
			g.buf = g.buf[:0]
		default:
			g.buf = append(g.buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			g.err = err
		}
		if scan != nil {
			return nil, true, size, scan.id()
		}
		return g.buf, false, size, nil
	}
}

// judge returns the line for the SDK, or nil after answering it.
func (g *guard) judge(line []byte, over bool, size int, id json.RawMessage) []byte {
	if over {
		g.refuse(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("request of %d bytes is over paneteam mcp's limit of %d bytes (%s): "+
			"send long content as a file and its path", size, g.max, kib(g.max)))
		return nil
	}
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil
	case line[0] == '[':
		// Batches left JSON-RPC for MCP in 2025-06-18, and the SDK ends
		// the connection on several kinds of them.
		g.refuse(scanID(line), jsonrpc.CodeInvalidRequest, "batches are not served: send one request per line")
		return nil
	case !json.Valid(line):
		g.refuse(scanID(line), jsonrpc.CodeParseError, "request is not JSON")
		return nil
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		g.refuse(scanID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("not a JSON-RPC 2.0 message: %v", err))
		return nil
	}
	return append(line, '\n')
}

// refuse answers the request whose id is given with a JSON-RPC error. A
// line without an id (a notification, or an id not found) is only
// logged: a notification gets no answer, and a client may drop the
// connection on an answer with a null id (the SDK's own client does).
func (g *guard) refuse(rawID json.RawMessage, code int64, msg string) {
	fmt.Fprintf(g.log, "paneteam mcp: refused a request: %s\n", msg)
	var v any
	if json.Unmarshal(rawID, &v) != nil || v == nil {
		return
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return
	}
	b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return
	}
	// A failed write is the SDK's to meet: its next write fails too and
	// ends the connection.
	g.out.Write(append(b, '\n'))
}

func scanID(line []byte) json.RawMessage {
	var s idScan
	s.feed(line)
	return s.id()
}
