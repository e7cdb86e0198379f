// lb-go-fasthttp: loadbench's Go reference generator (refgen/README.md).
//
// A closed-model HTTP/1.1 load generator on valyala/fasthttp, the kind of
// small Go program a load-testing study writes by hand: -c workers
// (goroutines), each looping GET requests over its own keep-alive
// connection until -d has passed. A worker never starts a request after the
// deadline but finishes the one it has in flight (bounded by -timeout), so
// every request the server answers is either counted here or counted as an
// error: the completed count equals the server's count (drain, not a hard
// stop). SIGINT/SIGTERM end the load early the same way; a second signal
// exits at once without a summary.
//
// It prints one JSON summary (schema "lb-refgen/1", shared with
// refgen/py-aiohttp) on stdout; diagnostics go to stderr.
//
// Built offline in GOPATH mode against Debian's packages:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build
//
// (loadbench's go-fasthttp adapter does this on first use, into
// build/refgen/.)
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/bits"
	"net"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Set at build time (-ldflags "-X main.fasthttpVersion=...") from dpkg:
// fasthttp 1.31 has no version constant of its own.
var fasthttpVersion = "unknown"

// ---- latency histogram ----------------------------------------------------
//
// Log-linear, HdrHistogram-like, in microseconds: values below 2048 us get
// a bucket each (exact to 1 us); above, each power of two is split into
// 1024 buckets (relative error < 0.1 %). A fixed ~250 KB per shard, however
// long the run: the program's RSS does not grow with the request count.
// Min, max and the sum (for the mean) are kept exactly, in ns.

const (
	subBits   = 11
	subCount  = 1 << subBits // 2048
	halfCount = subCount / 2 // 1024
	maxShift  = 30
	nBuckets  = subCount + maxShift*halfCount
)

func bucketOf(us uint64) int {
	if us < subCount {
		return int(us)
	}
	shift := bits.Len64(us) - subBits
	if shift > maxShift {
		return nBuckets - 1
	}
	return subCount + (shift-1)*halfCount + int(us>>uint(shift)) - halfCount
}

// highest value (us) that falls into bucket i
func bucketTop(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	shift := (i-subCount)/halfCount + 1
	sub := uint64((i-subCount)%halfCount + halfCount)
	return ((sub + 1) << uint(shift)) - 1
}

// One histogram per shard (GOMAXPROCS shards), updated with atomic adds: no
// lock on the hot path and no per-worker copy (1000 workers x 250 KB would
// be 250 MB).
type shard struct {
	counts [nBuckets]uint64
}

// ---- per-worker counters ----------------------------------------------------

// Each worker updates its own counters under its own (uncontended) lock, so
// that a summary forced out by a signal can read the workers still running.
type counters struct {
	mu                                   sync.Mutex
	inflight                             bool
	sent, completed, ok, non2xx          uint64
	connect, read, write, timeout, other uint64
	sumNs, minNs, maxNs                  uint64
	status                               map[int]uint64
	messages                             map[string]uint64
	_                                    [64]byte // keep workers' counters off each other's cache lines
}

func classify(err error) string {
	var op *net.OpError
	switch {
	case errors.Is(err, fasthttp.ErrDialTimeout):
		return "connect"
	case errors.As(err, &op) && op.Op == "dial":
		return "connect"
	case errors.Is(err, fasthttp.ErrTimeout):
		return "timeout"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout"
	}
	if errors.As(err, &op) {
		switch op.Op {
		case "write":
			return "write"
		case "read":
			return "read"
		}
	}
	if errors.Is(err, fasthttp.ErrConnectionClosed) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) {
		return "read"
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "dial"):
		return "connect"
	case strings.Contains(msg, "broken pipe"), strings.Contains(msg, "write"):
		return "write"
	case strings.Contains(msg, "EOF"), strings.Contains(msg, "reset"), strings.Contains(msg, "read"),
		strings.Contains(msg, "cannot find whitespace"), strings.Contains(msg, "error when reading"):
		return "read"
	}
	return "other"
}

func worker(hc *fasthttp.HostClient, url string, stop *int32, c *counters, h *shard) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(url)
	req.Header.SetMethod("GET")
	for atomic.LoadInt32(stop) == 0 {
		c.mu.Lock()
		c.sent++
		c.inflight = true
		c.mu.Unlock()
		t0 := time.Now()
		err := hc.Do(req, resp)
		el := time.Since(t0)
		c.mu.Lock()
		c.inflight = false
		if err != nil {
			switch classify(err) {
			case "connect":
				c.connect++
			case "read":
				c.read++
			case "write":
				c.write++
			case "timeout":
				c.timeout++
			default:
				c.other++
			}
			if len(c.messages) < 20 {
				c.messages[err.Error()]++
			} else if _, seen := c.messages[err.Error()]; seen {
				c.messages[err.Error()]++
			}
			c.mu.Unlock()
			continue
		}
		ns := uint64(el.Nanoseconds())
		c.completed++
		code := resp.StatusCode()
		if code >= 200 && code < 300 {
			c.ok++
		} else {
			c.non2xx++
		}
		c.status[code]++
		c.sumNs += ns
		if ns < c.minNs {
			c.minNs = ns
		}
		if ns > c.maxNs {
			c.maxNs = ns
		}
		c.mu.Unlock()
		atomic.AddUint64(&h.counts[bucketOf(ns/1000)], 1)
	}
}

// ---- summary ----------------------------------------------------------------

type latency struct {
	Count uint64   `json:"count"`
	Min   *float64 `json:"min"`
	Mean  *float64 `json:"mean"`
	P50   *float64 `json:"p50"`
	P90   *float64 `json:"p90"`
	P95   *float64 `json:"p95"`
	P99   *float64 `json:"p99"`
	P999  *float64 `json:"p999"`
	Max   *float64 `json:"max"`
}

func ms(ns float64) *float64 {
	v := math.Round(ns/1e3) / 1e3 // us precision, in ms
	return &v
}

// The value at quantile q: the top of the bucket holding the ceil(q*n)-th
// smallest latency, kept within the exact min and max.
func quantile(counts []uint64, n uint64, q float64, minNs, maxNs uint64) *float64 {
	rank := uint64(math.Ceil(q * float64(n)))
	if rank < 1 {
		rank = 1
	}
	var cum uint64
	for i, c := range counts {
		cum += c
		if cum >= rank {
			v := float64(bucketTop(i))*1e3 + 999 // top of the bucket, in ns
			if v > float64(maxNs) {
				v = float64(maxNs)
			}
			if v < float64(minNs) {
				v = float64(minNs)
			}
			return ms(v)
		}
	}
	return ms(float64(maxNs))
}

type summary struct {
	Schema      string                 `json:"schema"`
	Tool        string                 `json:"tool"`
	Version     map[string]string      `json:"version"`
	URL         string                 `json:"url"`
	Connections int                    `json:"connections"`
	DurationS   float64                `json:"duration_s"`
	TimeoutS    float64                `json:"timeout_s"`
	Stop        string                 `json:"stop"`
	Interrupted bool                   `json:"interrupted"`
	Time        map[string]float64     `json:"time"`
	Requests    map[string]interface{} `json:"requests"`
	Errors      map[string]uint64      `json:"errors"`
	Status      map[string]uint64      `json:"status"`
	Messages    map[string]uint64      `json:"error_messages"`
	LatencyMs   latency                `json:"latency_ms"`
	Runtime     map[string]interface{} `json:"runtime"`
}

func main() {
	conns := flag.Int("c", 10, "connections (worker goroutines, one keep-alive connection each)")
	dur := flag.Duration("d", 10*time.Second, "load duration (Go syntax: 10s, 1500ms, 1m30s)")
	timeout := flag.Duration("timeout", 30*time.Second, "per-request read/write/connect timeout")
	version := flag.Bool("version", false, "print the version and exit")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: lb-go-fasthttp [-c N] [-d DURATION] [-timeout DURATION] URL\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *version {
		fmt.Printf("lb-go-fasthttp %s fasthttp %s\n", runtime.Version(), fasthttpVersion)
		return
	}
	if flag.NArg() != 1 || *conns < 1 || *dur <= 0 || *timeout <= 0 {
		flag.Usage()
		os.Exit(2)
	}
	url := flag.Arg(0)
	var probe fasthttp.URI
	if err := probe.Parse(nil, []byte(url)); err != nil || string(probe.Scheme()) != "http" ||
		len(probe.Host()) == 0 {
		fmt.Fprintf(os.Stderr, "lb-go-fasthttp: %q is not an http:// URL\n", url)
		os.Exit(2)
	}
	addr := string(probe.Host())
	if !strings.Contains(addr, ":") {
		addr += ":80"
	}
	hc := &fasthttp.HostClient{
		Addr:                      addr,
		Name:                      "lb-go-fasthttp",
		MaxConns:                  *conns,
		MaxConnWaitTimeout:        *timeout,
		ReadTimeout:               *timeout,
		WriteTimeout:              *timeout,
		MaxIdleConnDuration:       time.Hour,
		MaxIdemponentCallAttempts: 1, // no silent retries: every attempt is counted
		Dial: func(a string) (net.Conn, error) {
			return fasthttp.DialTimeout(a, *timeout)
		},
	}

	nshards := runtime.GOMAXPROCS(0)
	shards := make([]shard, nshards)
	cs := make([]counters, *conns)
	// The load ends at the deadline or at a signal, whichever comes first;
	// stopAt is written before the flag the workers read.
	var stop, interrupted int32
	var stopAt time.Time
	var once sync.Once
	stopLoad := func() {
		once.Do(func() {
			stopAt = time.Now()
			atomic.StoreInt32(&stop, 1)
		})
	}
	sigs := make(chan os.Signal, 2)
	signaled := make(chan struct{})
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-sigs
		atomic.StoreInt32(&interrupted, 1)
		stopLoad()
		close(signaled)
		<-sigs
		os.Exit(130)
	}()

	start := time.Now()
	startWall := time.Now().UnixNano() / 1e6
	var wg sync.WaitGroup
	for i := range cs {
		cs[i].minNs = math.MaxUint64
		cs[i].status = map[int]uint64{}
		cs[i].messages = map[string]uint64{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			worker(hc, url, &stop, &cs[i], &shards[i%nshards])
		}(i)
	}
	timer := time.AfterFunc(*dur, stopLoad)
	// Drain: wait for the requests in flight (each bounded by -timeout);
	// after a signal wait at most 1 s more, since whoever sent it (loadbench
	// at its deadline) will not wait long, and count the rest as unfinished.
	drained := make(chan struct{})
	go func() {
		wg.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-signaled:
		select {
		case <-drained:
		case <-time.After(time.Second):
		}
	}
	timer.Stop()
	end := time.Now()

	var t counters
	t.minNs = math.MaxUint64
	status := map[string]uint64{}
	messages := map[string]uint64{}
	var unfinished uint64
	for i := range cs {
		c := &cs[i]
		c.mu.Lock()
		if c.inflight {
			unfinished++
		}
		t.sent += c.sent
		t.completed += c.completed
		t.ok += c.ok
		t.non2xx += c.non2xx
		t.connect += c.connect
		t.read += c.read
		t.write += c.write
		t.timeout += c.timeout
		t.other += c.other
		t.sumNs += c.sumNs
		if c.minNs < t.minNs {
			t.minNs = c.minNs
		}
		if c.maxNs > t.maxNs {
			t.maxNs = c.maxNs
		}
		for k, v := range c.status {
			status[fmt.Sprint(k)] += v
		}
		for k, v := range c.messages {
			messages[k] += v
		}
		c.mu.Unlock()
	}
	if len(messages) > 20 {
		keys := make([]string, 0, len(messages))
		for k := range messages {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(a, b int) bool { return messages[keys[a]] > messages[keys[b]] })
		for _, k := range keys[20:] {
			delete(messages, k)
		}
	}
	counts := make([]uint64, nBuckets)
	for s := range shards {
		for i := range counts {
			counts[i] += atomic.LoadUint64(&shards[s].counts[i])
		}
	}

	lat := latency{Count: t.completed}
	if t.completed > 0 {
		lat.Min = ms(float64(t.minNs))
		lat.Max = ms(float64(t.maxNs))
		lat.Mean = ms(float64(t.sumNs) / float64(t.completed))
		lat.P50 = quantile(counts, t.completed, 0.50, t.minNs, t.maxNs)
		lat.P90 = quantile(counts, t.completed, 0.90, t.minNs, t.maxNs)
		lat.P95 = quantile(counts, t.completed, 0.95, t.minNs, t.maxNs)
		lat.P99 = quantile(counts, t.completed, 0.99, t.minNs, t.maxNs)
		lat.P999 = quantile(counts, t.completed, 0.999, t.minNs, t.maxNs)
	}
	loadS := stopAt.Sub(start).Seconds()
	elapsedS := end.Sub(start).Seconds()
	total := t.connect + t.read + t.write + t.timeout + t.other + t.non2xx
	perS := 0.0
	if elapsedS > 0 {
		perS = float64(t.completed) / elapsedS
	}
	out := summary{
		Schema:      "lb-refgen/1",
		Tool:        "go-fasthttp",
		Version:     map[string]string{"go": runtime.Version(), "fasthttp": fasthttpVersion},
		URL:         url,
		Connections: *conns,
		DurationS:   dur.Seconds(),
		TimeoutS:    timeout.Seconds(),
		Stop:        "drain",
		Interrupted: atomic.LoadInt32(&interrupted) == 1,
		Time: map[string]float64{
			"start_wall_ms": float64(startWall),
			"load_s":        loadS,
			"drain_s":       elapsedS - loadS,
			"elapsed_s":     elapsedS,
		},
		Requests: map[string]interface{}{
			"attempted": t.sent, "completed": t.completed, "ok": t.ok, "non2xx": t.non2xx, "unfinished": unfinished, "per_s": perS,
		},
		Errors: map[string]uint64{
			"connect": t.connect, "read": t.read, "write": t.write, "timeout": t.timeout,
			"status": t.non2xx, "other": t.other, "total": total,
		},
		Status:    status,
		Messages:  messages,
		LatencyMs: lat,
		Runtime: map[string]interface{}{
			"GOMAXPROCS": runtime.GOMAXPROCS(0), "NumCPU": runtime.NumCPU(), "GOGC": os.Getenv("GOGC"),
		},
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "lb-go-fasthttp: cannot write the summary: %v\n", err)
		os.Exit(1)
	}
}
