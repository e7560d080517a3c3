package deadline

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// valueKey keys the value a test context carries.
type valueKey struct{}

// pendingCount is the number of deadlines in the shared heap.
func pendingCount() int {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return len(shared.pending)
}

// waitDone waits for ctx to be done, failing the test after limit.
func waitDone(t *testing.T, ctx context.Context, limit time.Duration) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(limit):
		t.Fatalf("context not done after %v (deadline %v)", limit, deadlineOf(ctx))
	}
}

func deadlineOf(ctx context.Context) time.Time { d, _ := ctx.Deadline(); return d }

func TestWithTimeoutExpires(t *testing.T) {
	start := time.Now()
	ctx, cancel := WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	d, ok := ctx.Deadline()
	if !ok || d.Before(start.Add(30*time.Millisecond)) || d.After(time.Now().Add(30*time.Millisecond)) {
		t.Fatalf("Deadline() = %v, %v; want about now+30ms", d, ok)
	}
	if err := ctx.Err(); err != nil {
		t.Fatalf("Err() before the deadline = %v; want nil", err)
	}
	waitDone(t, ctx, 5*time.Second)
	if elapsed := time.Since(start); elapsed < 30*time.Millisecond {
		t.Errorf("done after %v; want at least the 30ms timeout", elapsed)
	}
	if err := ctx.Err(); err != context.DeadlineExceeded {
		t.Errorf("Err() = %v; want context.DeadlineExceeded", err)
	}
	if cause := context.Cause(ctx); cause != context.DeadlineExceeded {
		t.Errorf("Cause() = %v; want context.DeadlineExceeded", cause)
	}
}

// A context derived from the deadline's is cancelled with it, by the
// context package's own propagation (no goroutine per child), and its
// cause names the deadline, which is what net/http reports.
func TestWithTimeoutChildren(t *testing.T) {
	ctx, cancel := WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	before := runtime.NumGoroutine()
	child, cancelChild := context.WithCancelCause(context.WithValue(ctx, valueKey{}, 1))
	defer cancelChild(nil)
	var fired sync.WaitGroup
	fired.Add(1)
	stop := context.AfterFunc(ctx, fired.Done)
	defer stop()
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("deriving contexts started %d goroutines; want none", after-before)
	}
	if d, ok := child.Deadline(); !ok || !d.Equal(deadlineOf(ctx)) {
		t.Errorf("child Deadline() = %v, %v; want the parent's %v", d, ok, deadlineOf(ctx))
	}
	waitDone(t, child, 5*time.Second)
	fired.Wait()
	if err := child.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("child Err() = %v; want context.Canceled (a child of a cancelled context)", err)
	}
	if cause := context.Cause(child); cause != context.DeadlineExceeded {
		t.Errorf("child Cause() = %v; want context.DeadlineExceeded", cause)
	}
}

func TestWithTimeoutCancel(t *testing.T) {
	base := pendingCount()
	ctx, cancel := WithTimeout(context.Background(), time.Hour)
	if got := pendingCount(); got != base+1 {
		t.Fatalf("%d deadlines pending; want %d", got, base+1)
	}
	cancel()
	if got := pendingCount(); got != base {
		t.Errorf("%d deadlines pending after cancel; want %d (released at once)", got, base)
	}
	if err := ctx.Err(); err != context.Canceled {
		t.Errorf("Err() = %v; want context.Canceled", err)
	}
	cancel() // a second call changes nothing
	if err := ctx.Err(); err != context.Canceled {
		t.Errorf("Err() after a second cancel = %v; want context.Canceled", err)
	}
}

func TestWithTimeoutParentDone(t *testing.T) {
	parent, cancelParent := context.WithCancelCause(context.Background())
	ctx, cancel := WithTimeout(parent, time.Hour)
	defer cancel()
	gone := errors.New("client went away")
	cancelParent(gone)
	waitDone(t, ctx, 5*time.Second)
	if err := ctx.Err(); err != context.Canceled {
		t.Errorf("Err() = %v; want context.Canceled", err)
	}
	if cause := context.Cause(ctx); cause != gone {
		t.Errorf("Cause() = %v; want the parent's %v", cause, gone)
	}
}

// A parent whose deadline comes first keeps it: the copy only adds a
// cancel, and no deadline of the package's is pending for it.
func TestWithTimeoutParentEarlier(t *testing.T) {
	parent, cancelParent := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelParent()
	base := pendingCount()
	ctx, cancel := WithTimeout(parent, time.Hour)
	defer cancel()
	if got := pendingCount(); got != base {
		t.Errorf("%d deadlines pending; want %d", got, base)
	}
	if d := deadlineOf(ctx); !d.Equal(deadlineOf(parent)) {
		t.Errorf("Deadline() = %v; want the parent's %v", d, deadlineOf(parent))
	}
	waitDone(t, ctx, 5*time.Second)
	if err := ctx.Err(); err != context.DeadlineExceeded {
		t.Errorf("Err() = %v; want context.DeadlineExceeded", err)
	}
}

func TestWithTimeoutNotPositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		ctx, cancel := WithTimeout(context.Background(), d)
		select {
		case <-ctx.Done():
		default:
			t.Fatalf("WithTimeout(%v) is not done at once", d)
		}
		if err := ctx.Err(); err != context.DeadlineExceeded {
			t.Errorf("WithTimeout(%v): Err() = %v; want context.DeadlineExceeded", d, err)
		}
		cancel()
		if err := ctx.Err(); err != context.DeadlineExceeded {
			t.Errorf("WithTimeout(%v): Err() after cancel = %v; want context.DeadlineExceeded still", d, err)
		}
	}
}

// The one timer serves every deadline on time: a short deadline that
// arrives while a long one holds the timer moves it earlier; deadlines
// released early leave it armed, and its firing re-arms it for the ones
// left; each context is done at its own deadline, in order.
func TestSharedTimerServesEveryDeadline(t *testing.T) {
	long, cancelLong := WithTimeout(context.Background(), time.Hour)
	defer cancelLong()
	// Released at once: the timer stays armed for it and fires early.
	_, cancelReleased := WithTimeout(context.Background(), 10*time.Millisecond)
	cancelReleased()

	timeouts := []time.Duration{80 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 35 * time.Millisecond}
	type result struct {
		timeout time.Duration
		after   time.Duration
	}
	start := time.Now()
	results := make(chan result, len(timeouts))
	for _, d := range timeouts {
		ctx, cancel := WithTimeout(context.Background(), d)
		t.Cleanup(cancel)
		go func() {
			<-ctx.Done()
			results <- result{d, time.Since(start)}
		}()
	}
	for range timeouts {
		select {
		case r := <-results:
			if r.after < r.timeout {
				t.Errorf("the %v deadline was done after %v: early", r.timeout, r.after)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a deadline was not served within 10s")
		}
	}
	if err := long.Err(); err != nil {
		t.Errorf("the hour-long deadline: Err() = %v; want nil", err)
	}
}

// Many calls at once, with deadlines that fire and deadlines released
// before: every context ends with the right error, and the heap is left
// with none of theirs (go test -race covers the locking).
func TestConcurrentCalls(t *testing.T) {
	base := pendingCount()
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				ctx, cancel := WithTimeout(context.Background(), time.Duration(1+i%7)*time.Millisecond)
				defer cancel()
				<-ctx.Done()
				if err := ctx.Err(); err != context.DeadlineExceeded {
					t.Errorf("Err() = %v; want context.DeadlineExceeded", err)
				}
				return
			}
			ctx, cancel := WithTimeout(context.Background(), time.Minute)
			cancel()
			if err := ctx.Err(); err != context.Canceled {
				t.Errorf("Err() = %v; want context.Canceled", err)
			}
		}()
	}
	wg.Wait()
	if got := pendingCount(); got != base {
		t.Errorf("%d deadlines pending; want %d", got, base)
	}
}

// BenchmarkWithTimeout compares a call's deadline here with
// context.WithTimeout, made and released as a call does.
func BenchmarkWithTimeout(b *testing.B) {
	parent := context.Background()
	b.Run("deadline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, cancel := WithTimeout(parent, 30*time.Second)
			cancel()
		}
	})
	b.Run("context", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, cancel := context.WithTimeout(parent, 30*time.Second)
			cancel()
		}
	})
}
