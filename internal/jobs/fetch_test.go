package jobs

import (
	"context"
	"io"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corroborate/corroborate/internal/testenv"
)

// Issue 14, item 2: a request for a message that the client abandons before the server has
// answered it can still be answered: the message counts a delivery that no handler saw, and it
// returns only after the ack wait. The loop used FetchNoWait, which the server parks while the
// consumer is at MaxAckPending (messages wait, none may be delivered) and the client gives up on
// after a second; an ack that frees a slot then sends the next message to that request. Here the
// server's replies reach the worker late (a slow link, a loaded host: 600ms), and a slot frees
// while the worker's request is parked: the message must stay pending for a request somebody
// waits on. On the machine's nats-server (2.9) and go.mod's.
func TestTakeLosesNoDeliveryToAnAbandonedRequest(t *testing.T) {
	t.Parallel()
	ns, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	for _, serverURL := range []string{testenv.NATSURL(t), ns.URL} {
		const late = 600 * time.Millisecond
		nc, err := nats.Connect(slowReplies(t, serverURL, late), nats.Name(t.Name()), nats.Timeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		t.Run("nats-"+nc.ConnectedServerVersion(), func(t *testing.T) {
			t.Parallel()
			b := setupOn(t, nc, func(c *StreamConfig) { c.MaxAckPending = 1; c.AckWait = 30 * time.Second })
			b.publishN(t, 2)
			ctx := testContext(t)
			l := &loop{cfg: b.cfg.ConsumeConfig().withDefaults(b.cons.CachedInfo()), lanes: b.lanes, log: testLogger(t), stopping: ctx}

			first := takeSoon(t, ctx, l)
			if first == nil {
				t.Fatal("no message taken from a backlog of 2")
			}
			// The consumer is at MaxAckPending: this take finds nothing. While it asks, the first
			// job ends and frees the slot: after the request reached the server, and late enough
			// that the server's answer reaches the worker after a one-second give-up.
			acked := make(chan error, 1)
			go func() {
				time.Sleep(2*late + 100*time.Millisecond)
				acked <- first.Ack()
			}()
			if msg, err := l.take(ctx); msg != nil || err != nil {
				// Delivered in time to a request still waited on: not the race, but not lost either.
				t.Logf("take at MaxAckPending: %v, %v", msg != nil, err)
				if msg != nil {
					_ = msg.Ack()
				}
				return
			}
			if err := <-acked; err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * late)
			info, err := b.cons.Info(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.NumAckPending != 0 || info.NumPending != 1 {
				t.Fatalf("after the ack: %d awaiting an ack, %d pending; want 0 and 1: the freed slot went to a request nobody waited on",
					info.NumAckPending, info.NumPending)
			}
			second := takeSoon(t, ctx, l)
			if second == nil {
				t.Fatal("the second message never came")
			}
			md, err := second.Metadata()
			if err != nil {
				t.Fatal(err)
			}
			if md.NumDelivered != 1 {
				t.Errorf("the second message came on delivery %d, want 1", md.NumDelivered)
			}
			_ = second.Ack()
		})
	}
}

// takeSoon takes a message, asking again for a few seconds; nil when none came.
func takeSoon(t *testing.T, ctx context.Context, l *loop) jetstream.Msg {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		msg, err := l.take(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if msg != nil {
			return msg
		}
	}
	return nil
}

// slowReplies starts a TCP proxy to the NATS server at serverURL that passes what the client
// sends at once and what the server sends after delay, and returns its URL.
func slowReplies(t *testing.T, serverURL string, delay time.Duration) string {
	t.Helper()
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", u.Host)
			if err != nil {
				_ = client.Close()
				continue
			}
			t.Cleanup(func() { _ = client.Close(); _ = server.Close() })
			go func() { _, _ = io.Copy(server, client) }()
			go delayed(client, server, delay)
		}
	}()
	return "nats://" + ln.Addr().String()
}

// delayed copies src to dst, each chunk delay after it was read, in order.
func delayed(dst io.Writer, src io.Reader, delay time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	chunks := make(chan chunk, 4096)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32*1024)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{time.Now().Add(delay), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.data); err != nil {
			return
		}
	}
}
