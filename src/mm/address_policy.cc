// IsPublicAddress (see address_policy.h).
#include "mm/address_policy.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstring>

namespace gemmad::mm {
namespace {

bool PublicV4(uint32_t a) {  // host byte order
  auto in = [a](uint32_t net, int bits) { return (a >> (32 - bits)) == (net >> (32 - bits)); };
  return !(in(0x00000000, 8) || in(0x0A000000, 8) || in(0x64400000, 10) || in(0x7F000000, 8) ||
           in(0xA9FE0000, 16) || in(0xAC100000, 12) || in(0xC0000000, 24) || in(0xC0A80000, 16) ||
           in(0xC6120000, 15) || in(0xE0000000, 4) || in(0xF0000000, 4));
}

}  // namespace

bool IsPublicAddress(const sockaddr* address) {
  if (address == nullptr) return false;
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    return PublicV4(ntohl(v4->sin_addr.s_addr));
  }
  if (address->sa_family != AF_INET6) return false;
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
  const uint8_t* b = v6->sin6_addr.s6_addr;
  static const uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
  if (std::memcmp(b, kMappedPrefix, 12) == 0) {
    uint32_t a = (uint32_t{b[12]} << 24) | (uint32_t{b[13]} << 16) | (uint32_t{b[14]} << 8) | b[15];
    return PublicV4(a);
  }
  bool all_zero_but_last = true;
  for (int i = 0; i < 15; ++i) all_zero_but_last = all_zero_but_last && b[i] == 0;
  if (all_zero_but_last && (b[15] == 0 || b[15] == 1)) return false;  // :: and ::1
  if ((b[0] & 0xFE) == 0xFC) return false;                             // fc00::/7 unique local
  if (b[0] == 0xFE && (b[1] & 0xC0) == 0x80) return false;             // fe80::/10 link-local
  if (b[0] == 0xFF) return false;                                      // multicast
  return true;
}

}  // namespace gemmad::mm
