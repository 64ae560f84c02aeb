#include "mm/media_source.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "mm/address_policy.h"

namespace gemmad::mm {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string Str(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }

TEST(MediaSource, DataUrls) {
  MediaSourceOptions o;
  auto ok = LoadMedia("data:image/png;base64,Zm9vYmFy", o);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(Str(ok->bytes), "foobar");
  EXPECT_EQ(ok->mime_type, "image/png");
  EXPECT_THAT(LoadMedia("data:image/png,foobar", o).status().message(), HasSubstr("only base64 data URLs"));
  EXPECT_THAT(LoadMedia("data:image/png;base64", o).status().message(), HasSubstr("no ','"));
  EXPECT_THAT(LoadMedia("data:image/png;base64,Zm9v$mFy", o).status().message(), HasSubstr("invalid base64"));
  o.max_bytes = 4;
  auto big = LoadMedia("data:image/png;base64,Zm9vYmFy", o);
  EXPECT_EQ(big.status().code(), StatusCode::kResourceExhausted);
}

TEST(MediaSource, OtherSchemesAreRefusedWithVllmsMessage) {
  for (const char* url : {"ftp://x/y.png", "/etc/passwd", "gopher://x", ""}) {
    auto r = LoadMedia(url, {});
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_EQ(r.status().message(), "The URL must be either a HTTP, data or file URL.");
  }
}

class FileUrls : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gemmad_media_" + std::to_string(::getpid()));
    fs::create_directories(root_ / "allowed" / "sub");
    std::ofstream(root_ / "allowed" / "sub" / "a b.png") << "inside";
    std::ofstream(root_ / "secret.txt") << "outside";
    fs::create_symlink(root_ / "secret.txt", root_ / "allowed" / "link.txt");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(FileUrls, ReadOnlyUnderTheAllowedDirectoryAndNeverEchoThePath) {
  MediaSourceOptions o;
  const std::string inside = "file://" + (root_ / "allowed" / "sub" / "a%20b.png").string();
  EXPECT_THAT(LoadMedia(inside, o).status().message(), HasSubstr("--allowed-local-media-path"));
  o.allowed_local_media_path = (root_ / "allowed").string();
  auto ok = LoadMedia(inside, o);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(Str(ok->bytes), "inside");
  for (const std::string& url : {"file://" + (root_ / "secret.txt").string(),
                                 "file://" + (root_ / "allowed" / ".." / "secret.txt").string(),
                                 "file://" + (root_ / "allowed" / "link.txt").string()}) {
    auto r = LoadMedia(url, o);
    EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << url;
    EXPECT_THAT(r.status().message(), Not(HasSubstr(root_.string()))) << url;
  }
  auto missing = LoadMedia("file://" + (root_ / "allowed" / "none.png").string(), o);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), Not(HasSubstr(root_.string())));
  EXPECT_FALSE(LoadMedia("file://" + (root_ / "allowed" / "sub").string(), o).ok());  // a directory
  o.max_bytes = 3;
  EXPECT_EQ(LoadMedia(inside, o).status().code(), StatusCode::kResourceExhausted);
}

TEST(MediaSource, DomainsAndHosts) {
  EXPECT_EQ(UrlHost("https://User@Upload.Example.org:8443/a?b#c"), "upload.example.org");
  EXPECT_EQ(UrlHost("http://[::1]:80/x"), "::1");
  EXPECT_EQ(UrlHost("http://host"), "host");
  EXPECT_TRUE(DomainAllowed("a.org", {}));
  EXPECT_TRUE(DomainAllowed("A.org", {"a.org"}));
  EXPECT_FALSE(DomainAllowed("b.a.org", {"a.org"}));
  auto r = LoadMedia("http://evil.example/x.png", MediaSourceOptions{.allowed_media_domains = {"good.example"}});
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(r.status().message(), HasSubstr("allowed domains"));
}

sockaddr_in V4(const char* a) {
  sockaddr_in s{};
  s.sin_family = AF_INET;
  inet_pton(AF_INET, a, &s.sin_addr);
  return s;
}

sockaddr_in6 V6(const char* a) {
  sockaddr_in6 s{};
  s.sin6_family = AF_INET6;
  inet_pton(AF_INET6, a, &s.sin6_addr);
  return s;
}

TEST(AddressPolicy, PrivateAndSpecialAddressesAreNotPublic) {
  for (const char* a : {"127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                        "0.0.0.0", "100.64.0.1", "224.0.0.1", "255.255.255.255", "198.18.0.1"}) {
    auto s = V4(a);
    EXPECT_FALSE(IsPublicAddress(reinterpret_cast<sockaddr*>(&s))) << a;
  }
  for (const char* a : {"8.8.8.8", "172.32.0.1", "93.184.216.34", "1.1.1.1"}) {
    auto s = V4(a);
    EXPECT_TRUE(IsPublicAddress(reinterpret_cast<sockaddr*>(&s))) << a;
  }
  for (const char* a : {"::1", "::", "fe80::1", "fd00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"}) {
    auto s = V6(a);
    EXPECT_FALSE(IsPublicAddress(reinterpret_cast<sockaddr*>(&s))) << a;
  }
  for (const char* a : {"2001:4860:4860::8888", "::ffff:8.8.8.8"}) {
    auto s = V6(a);
    EXPECT_TRUE(IsPublicAddress(reinterpret_cast<sockaddr*>(&s))) << a;
  }
}

TEST(MediaSource, LoopbackIsRefusedUnlessAllowed) {
  // Nothing needs to listen: the policy refuses before connecting.
  ::unsetenv("http_proxy");
  ::unsetenv("all_proxy");
  ::unsetenv("ALL_PROXY");
  auto r = LoadMedia("http://127.0.0.1:9/x.png", MediaSourceOptions{.fetch_timeout_ms = 2000});
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << r.status().message();
  auto allowed = LoadMedia("http://127.0.0.1:9/x.png",
                           MediaSourceOptions{.allow_private_addresses = true, .fetch_timeout_ms = 2000});
  EXPECT_EQ(allowed.status().code(), StatusCode::kUnavailable) << allowed.status().message();  // connection refused
}

}  // namespace
}  // namespace gemmad::mm
