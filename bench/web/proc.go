package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on
// Linux for every architecture Go builds for.
const clockTicks = 100

// cpuTicks are a process's user+system ticks, and its waited-for
// children's (fields 14-17 of /proc/PID/stat).
func cpuTicks(pid int) (own, children int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := func(i int) int64 { v, _ := strconv.ParseInt(f[i-3], 10, 64); return v } // f[0] is field 3
	return n(14) + n(15), n(16) + n(17), nil
}

// onCPU is the time all of a process's threads have run, in
// nanoseconds (the first field of each /proc/PID/task/TID/schedstat):
// finer than stat's ticks for an interval where little runs.
func onCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			ns += n
		}
	}
	return time.Duration(ns)
}

type idleFigures struct {
	wall                time.Duration
	ticks               int64
	cpu, children, tmux time.Duration
	sched               time.Duration // onCPU's
	views               int
}

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / clockTicks }

// idleCPU counts the server's CPU over d while nothing changes, the page
// open and its event stream connected; and the tmux server's, which the
// server's pane checks make work.
func (b *bench) idleCPU(br *browser, d time.Duration) (idleFigures, error) {
	pid := b.web.Process.Pid
	out, err := b.srv.Run(context.Background(), "display-message", "-p", "#{pid}")
	if err != nil {
		return idleFigures{}, err
	}
	tpid, _ := strconv.Atoi(strings.TrimSpace(out))
	views := br.viewCount()
	own0, ch0, err := cpuTicks(pid)
	if err != nil {
		return idleFigures{}, err
	}
	t0, _, _ := cpuTicks(tpid)
	s0 := onCPU(pid)
	start := time.Now()
	time.Sleep(d)
	own1, ch1, err := cpuTicks(pid)
	if err != nil {
		return idleFigures{}, err
	}
	t1, _, _ := cpuTicks(tpid)
	return idleFigures{wall: time.Since(start), ticks: own1 - own0, cpu: ticks(own1 - own0), children: ticks(ch1 - ch0),
		tmux: ticks(t1 - t0), sched: onCPU(pid) - s0, views: br.viewCount() - views}, nil
}

type memFigures struct{ rss, hwm int64 }

// status reads VmRSS and VmHWM, in bytes, from /proc/PID/status.
func status(pid int) (memFigures, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memFigures{}, err
	}
	var m memFigures
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			m.rss = n << 10
		case "VmHWM":
			m.hwm = n << 10
		}
	}
	return m, nil
}
