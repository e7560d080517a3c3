package mcpserver

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// stateTTL bounds how long a question put to the user stays answerable.
const stateTTL = 15 * time.Minute

// callState is what a call carries from one round of the multi round-trip
// protocol to the next, as the opaque requestState the client echoes.
type callState struct {
	// Root is the workspace root chosen in an earlier round ("" if none).
	Root string `json:"root,omitempty"`
	// Target is the "host:port" the approval question was about.
	Target string `json:"target,omitempty"`
	// Args is the SHA-256 of the tool's name and the call's arguments
	// (call.sealedArgs): state and answers are honoured only for the very
	// call they were issued for.
	Args string `json:"args"`
	// Expires is a Unix time after which the state is ignored.
	Expires int64 `json:"exp"`
	// Nonce names this one state: an answer it carries is honoured once
	// ([stateSigner.consume]).
	Nonce string `json:"nonce,omitempty"`
}

// maxUsedNonces bounds the set of answered states remembered until they
// expire. When it is full of unexpired entries, answers are refused (the
// question is asked again) rather than a remembered state forgotten.
const maxUsedNonces = 16384

// stateSigner seals request state with an HMAC under a key that lives as
// long as the process, as the protocol asks of servers without
// authentication: a client cannot forge a state, and cannot replay one for
// other arguments or after it expires.
type stateSigner struct {
	key [32]byte
	now func() time.Time

	mu   sync.Mutex
	used map[string]int64 // nonce → the Unix time its state expires
}

func newStateSigner() (*stateSigner, error) {
	s := &stateSigner{now: time.Now}
	if _, err := rand.Read(s.key[:]); err != nil {
		return nil, fmt.Errorf("mcpserver: state key: %w", err)
	}
	return s, nil
}

func argsDigest(args string) string {
	sum := sha256.Sum256([]byte(args))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *stateSigner) mac(payload string) string {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// seal returns st bound to args, signed.
func (s *stateSigner) seal(st callState, args string) string {
	st.Args = argsDigest(args)
	st.Expires = s.now().Add(stateTTL).Unix()
	if st.Nonce == "" {
		st.Nonce = newNonce()
	}
	data, _ := json.Marshal(st) // strings and an integer: cannot fail
	payload := base64.RawURLEncoding.EncodeToString(data)
	return payload + "." + s.mac(payload)
}

// newNonce returns a fresh random nonce for a state.
func newNonce() string {
	var nonce [16]byte
	rand.Read(nonce[:]) // never fails (crypto/rand.Read)
	return base64.RawURLEncoding.EncodeToString(nonce[:])
}

// open verifies sealed and returns its state if it was issued by this
// process for exactly these arguments and has not expired.
func (s *stateSigner) open(sealed, args string) (callState, bool) {
	payload, sig, ok := strings.Cut(sealed, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.mac(payload))) {
		return callState{}, false
	}
	data, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return callState{}, false
	}
	var st callState
	if err := json.Unmarshal(data, &st); err != nil {
		return callState{}, false
	}
	if st.Args != argsDigest(args) || s.now().Unix() > st.Expires {
		return callState{}, false
	}
	return st, true
}

// consume marks the answered state st as used and reports whether it was
// not used before: one approval, one call. A state without a nonce is never
// accepted. Used nonces are remembered until their state expires, when
// open refuses the state anyway; at most [maxUsedNonces] of them, beyond
// which consume fails closed.
func (s *stateSigner) consume(st callState) bool {
	if st.Nonce == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().Unix()
	if _, ok := s.used[st.Nonce]; ok {
		return false
	}
	if len(s.used) >= maxUsedNonces {
		for n, exp := range s.used {
			if now > exp {
				delete(s.used, n)
			}
		}
		if len(s.used) >= maxUsedNonces {
			return false
		}
	}
	if s.used == nil {
		s.used = make(map[string]int64)
	}
	s.used[st.Nonce] = st.Expires
	return true
}
