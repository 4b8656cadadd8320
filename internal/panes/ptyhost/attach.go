package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// ErrDetached is returned by Attach when the user typed the detach key;
// the teammate goes on running.
var ErrDetached = errors.New("detached")

// Size is a terminal size.
type Size struct{ Rows, Cols int }

// AttachOptions connect a terminal (or anything) to a hosted teammate.
type AttachOptions struct {
	In  io.Reader // keystrokes
	Out io.Writer // the teammate's output, recent lines first
	// Size is sent on connect; each value on Resize is sent as it comes.
	Size   Size
	Resize <-chan Size
	// DetachKey, typed on its own or within a chunk, ends the attachment
	// without sending itself (0: no detach key).
	DetachKey byte
}

// Attach connects to the host at socket until the teammate ends (nil),
// the user detaches (ErrDetached) or ctx is done.
func Attach(ctx context.Context, socket string, o AttachOptions) error {
	conn, err := dialUnix(ctx, socket)
	if err != nil {
		return fmt.Errorf("connect to the teammate's host: %w", err)
	}
	defer conn.Close()
	var wmu sync.Mutex
	send := func(typ byte, p []byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		return writeFrame(conn, typ, p)
	}
	if o.Size.Rows > 0 && o.Size.Cols > 0 {
		if err := send(frameResize, resizePayload(o.Size.Rows, o.Size.Cols)); err != nil {
			return fmt.Errorf("attach: %w", err)
		}
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(o.Out, conn)
		ended <- err
	}()
	detached := make(chan struct{})
	go forwardInput(o.In, o.DetachKey, send, detached)
	for {
		select {
		case err := <-ended:
			if err != nil && !errors.Is(err, os.ErrClosed) {
				return fmt.Errorf("attach: %w", err)
			}
			return nil
		case <-detached:
			return ErrDetached
		case <-ctx.Done():
			return ctx.Err()
		case s, ok := <-o.Resize:
			if !ok {
				o.Resize = nil
				continue
			}
			if s.Rows > 0 && s.Cols > 0 {
				send(frameResize, resizePayload(s.Rows, s.Cols))
			}
		}
	}
}

// forwardInput sends keystrokes until the detach key or the end of input
// (a pipe that ran dry), either of which detaches.
func forwardInput(in io.Reader, key byte, send func(byte, []byte) error, detached chan<- struct{}) {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		p := buf[:n]
		if i := bytes.IndexByte(p, key); key != 0 && i >= 0 {
			if i > 0 {
				send(frameInput, p[:i])
			}
			close(detached)
			return
		}
		if n > 0 && send(frameInput, p) != nil {
			return
		}
		if err != nil {
			close(detached)
			return
		}
	}
}
