package pagefetch

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// AddressPolicy decides whether a connection to addr may be made. It is asked at connect time,
// with the address the socket is about to reach (after DNS), for every connection of a read:
// the page, its redirects and robots.txt.
type AddressPolicy func(addr netip.AddrPort) bool

// nonPublic are the ranges PublicOnly refuses beyond what netip's predicates name: the
// shared address space of carrier-grade NAT, the IPv4 "this network" block, benchmarking,
// documentation and reserved ranges, and the IPv6 forms that embed an IPv4 address a router
// may forward to an internal one (NAT64, 6to4, Teredo).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("100::/64"),
}

// PublicOnly is the address policy of production: only globally routable unicast addresses.
// It refuses loopback (127/8, ::1), private (RFC 1918, ULA fc00::/7), link-local (169.254/16
// with the cloud metadata address 169.254.169.254, fe80::/10), unspecified, multicast, CGNAT
// (100.64/10) and the other special-purpose ranges of nonPublic. An IPv4-mapped IPv6 address
// is judged as the IPv4 address it maps.
func PublicOnly(addr netip.AddrPort) bool {
	ip := addr.Addr().Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return false
		}
	}
	return ip.IsGlobalUnicast()
}

// errAddressRefused marks a connection the policy refused; the read's Failure is then
// pipeline.PageAddressRefused.
var errAddressRefused = errors.New("address refused")

// control is the net.Dialer Control function that applies policy to the address a socket is
// about to connect to: the resolved IP, whatever name or redirect led there, so that neither a
// redirect nor DNS rebinding can reach an address the policy refuses.
func control(policy AddressPolicy) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		addr, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s is not an IP address and port (%s)", errAddressRefused, address, network)
		}
		if !policy(addr) {
			return fmt.Errorf("%w: %s is not a public address", errAddressRefused, addr.Addr().Unmap())
		}
		return nil
	}
}
