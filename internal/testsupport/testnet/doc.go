// Package testnet is the simulated public internet of ocfetch's tests: a
// resolver that answers test names with public-looking addresses, and a
// loopback httptest TLS server that an injected dial function connects
// those addresses to. The egress guard still resolves and checks every
// address; only the final connect is redirected. Nothing here ever dials
// an address outside loopback: [PublicTLS.Dial] connects only to its own
// loopback listener.
//
// Wiring, in a test:
//
//	pub := testnet.StartPublicTLS(t, handler, &testnet.Options{
//		Only: netip.MustParseAddrPort("93.184.216.34:443"),
//	})
//	client := egress.NewClient(&egress.Options{
//		Resolver: testnet.Resolver{"example.com": {netip.MustParseAddr("93.184.216.34")}},
//		Dial:     pub.Dial,
//		RootCAs:  pub.RootCAs,
//	})
//	// ... fetch https://example.com/ with client ...
//	if got := pub.Dials.List(); ... // the checked addresses the guard dialed
//
// httptest's certificate is valid for example.com and *.example.com, so TLS
// verifies against RootCAs as it would against a public CA.
package testnet
