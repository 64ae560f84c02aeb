// Which network addresses a media fetch may connect to: public unicast only, unless the
// operator allows private ones (loopback, RFC 1918, CGNAT, link-local, ULA, multicast,
// unspecified, and their IPv4-mapped IPv6 forms are "private").
#pragma once

struct sockaddr;

namespace gemmad::mm {

bool IsPublicAddress(const sockaddr* address);

}  // namespace gemmad::mm
