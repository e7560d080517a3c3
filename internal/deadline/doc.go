// Package deadline gives a call its deadline the way [context.WithTimeout]
// does, but with every deadline of the process served by one timer.
//
// Why: context.WithTimeout puts a runtime timer in the heap of the P the
// call runs on, and the runtime wakes a sleeping thread (netpollBreak or
// wakep) whenever a timer becomes the earliest of its heap — which a
// call's timer always is in a process that makes calls one after another,
// since the previous call's timer was stopped. That wake-up costs more
// than the timer itself, on every call (issue 22 measured it on the full
// fetch path: about one in eight calls broke the poller, against one in
// four hundred for a plain request).
//
// Here a call's deadline joins a heap of deadlines kept by the package;
// the one timer is armed for the earliest of them and is reset only when
// a deadline earlier than the one it is armed for arrives. A call that
// ends leaves the timer armed: when it fires, it cancels whatever is due
// and re-arms for the earliest deadline left. In a steady stream of calls
// with one timeout, that is one timer operation per timeout period
// instead of one per call.
//
// A call that bounds its request and body read:
//
//	ctx, cancel := deadline.WithTimeout(ctx, 30*time.Second)
//	defer cancel() // releases the deadline at once
//	resp, err := client.Do(req.WithContext(ctx))
//	// ... read the body under the same ctx; ctx.Err() is
//	// context.DeadlineExceeded once the 30 s have passed.
package deadline
