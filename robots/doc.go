// Package robots parses robots.txt (RFC 9309, the Robots Exclusion
// Protocol) and answers whether a crawler's product token may fetch a
// path. It is pure: it reads bytes it is given and sends nothing;
// package robotscheck fetches the file under the same decision as the page.
//
//	rules := robots.Parse(body) // at most MaxBytes of it are read
//	if !rules.Check("ocfetch", "/private/page?q=1").Allowed {
//		// refuse: robots_disallowed
//	}
//
// What the parser does, after RFC 9309 and Google's reading of it:
//
//   - Lines end at LF, CR LF or CR; a '#' starts a comment; a UTF-8 byte
//     order mark at the start is skipped; keys are case-insensitive and a
//     line that is not "key: value" or whose key is unknown is ignored,
//     never an error (a robots.txt is parsed leniently, as crawlers do).
//   - A group is one or more user-agent lines followed by its allow and
//     disallow rules; a user-agent line after a rule starts a new group;
//     rules before any user-agent line belong to no group. "useragent",
//     "user agent", "dissallow" and "disalow" are read as their keys (the
//     typos Google accepts).
//   - A user-agent value is matched by its product token (the leading
//     letters, '_' and '-'), case-insensitively and exactly: "Ocfetch/1.0"
//     names ocfetch, "ocf" does not. Every group naming the crawler is
//     merged into one; without one, every "*" group; without either,
//     everything is allowed.
//   - A rule's path is matched from the start of the URL's path and query;
//     '*' matches any run of characters and a final '$' anchors the end.
//     Percent-encoding is compared normalised (hex in upper case, unreserved
//     characters decoded, bytes outside printable ASCII encoded) on both
//     sides. The longest matching pattern wins; an allow wins a tie;
//     an empty value is no rule; "/robots.txt" is always allowed.
//   - Input past [MaxBytes] is ignored (the partial last line with it), as
//     Google ignores content past 500 KiB. Matching costs at most the
//     length of the path per rule, plus the pattern: no pattern can make it
//     backtrack.
package robots
