// CorsPolicy against Starlette's CORSMiddleware behaviour (the values vLLM passes it).
#include "server/cors.h"

#include <gtest/gtest.h>

namespace gemmad::server {
namespace {

HttpRequest Req(std::string method, Headers headers) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = r.target = "/v1/chat/completions";
  r.headers = std::move(headers);
  return r;
}

std::string Get(const Headers& h, std::string_view name) {
  for (const auto& [n, v] : h) {
    if (n == name) return v;
  }
  return "<absent>";
}

CorsOptions Restricted(bool credentials) {
  return {{"https://app.example"}, {"GET", "POST"}, {"x-custom"}, credentials};
}

TEST(CorsPolicyTest, DefaultsAllowEveryPreflight) {
  CorsPolicy cors{CorsOptions{}};
  auto p = cors.Preflight(Req("OPTIONS", {{"origin", "https://x.example"},
                                          {"access-control-request-method", "POST"},
                                          {"access-control-request-headers", "authorization, content-type"}}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->status, 200);
  EXPECT_EQ(p->body, "OK");
  EXPECT_EQ(Get(p->headers, "access-control-allow-origin"), "*");
  EXPECT_EQ(Get(p->headers, "access-control-allow-methods"), "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT");
  EXPECT_EQ(Get(p->headers, "access-control-max-age"), "600");
  EXPECT_EQ(Get(p->headers, "access-control-allow-headers"), "authorization, content-type");  // mirrored
  EXPECT_EQ(Get(p->headers, "access-control-allow-credentials"), "<absent>");
  EXPECT_EQ(Get(p->headers, "vary"), "<absent>");
}

TEST(CorsPolicyTest, OnlyOptionsWithOriginAndRequestMethodIsAPreflight) {
  CorsPolicy cors{CorsOptions{}};
  EXPECT_FALSE(cors.Preflight(Req("OPTIONS", {{"origin", "https://x.example"}})).has_value());
  EXPECT_FALSE(cors.Preflight(Req("OPTIONS", {{"access-control-request-method", "GET"}})).has_value());
  EXPECT_FALSE(cors.Preflight(Req("POST", {{"origin", "o"}, {"access-control-request-method", "GET"}})).has_value());
}

TEST(CorsPolicyTest, SimpleRequestsWithDefaults) {
  CorsPolicy cors{CorsOptions{}};
  EXPECT_TRUE(cors.SimpleHeaders(Req("POST", {})).empty());
  Headers h = cors.SimpleHeaders(Req("POST", {{"origin", "https://x.example"}}));
  EXPECT_EQ(h, (Headers{{"access-control-allow-origin", "*"}}));
  // A request with a cookie gets its origin back, never "*".
  h = cors.SimpleHeaders(Req("POST", {{"origin", "https://x.example"}, {"cookie", "a=b"}}));
  EXPECT_EQ(h, (Headers{{"access-control-allow-origin", "https://x.example"}, {"vary", "Origin"}}));
}

TEST(CorsPolicyTest, CredentialsWithAllOriginsEchoTheOriginOnPreflight) {
  CorsPolicy cors{CorsOptions{{"*"}, {"*"}, {"*"}, true}};
  auto p = cors.Preflight(Req("OPTIONS", {{"origin", "https://x.example"}, {"access-control-request-method", "GET"}}));
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->status, 200);
  EXPECT_EQ(Get(p->headers, "access-control-allow-origin"), "https://x.example");
  EXPECT_EQ(Get(p->headers, "vary"), "Origin");
  EXPECT_EQ(Get(p->headers, "access-control-allow-credentials"), "true");
  EXPECT_EQ(Get(p->headers, "access-control-allow-headers"), "<absent>");  // none requested, all allowed
  Headers h = cors.SimpleHeaders(Req("GET", {{"origin", "https://x.example"}}));
  EXPECT_EQ(h, (Headers{{"access-control-allow-origin", "*"}, {"access-control-allow-credentials", "true"}}));
}

TEST(CorsPolicyTest, RestrictedOriginsMethodsHeaders) {
  CorsPolicy cors{Restricted(true)};
  auto ok = cors.Preflight(Req("OPTIONS", {{"origin", "https://app.example"},
                                           {"access-control-request-method", "POST"},
                                           {"access-control-request-headers", "X-Custom, Content-Type"}}));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(Get(ok->headers, "access-control-allow-origin"), "https://app.example");
  EXPECT_EQ(Get(ok->headers, "access-control-allow-methods"), "GET, POST");
  // Starlette: sorted(safelisted | allowed): uppercase sorts first.
  EXPECT_EQ(Get(ok->headers, "access-control-allow-headers"),
            "Accept, Accept-Language, Content-Language, Content-Type, x-custom");
  auto bad = cors.Preflight(Req("OPTIONS", {{"origin", "https://evil.example"},
                                            {"access-control-request-method", "DELETE"},
                                            {"access-control-request-headers", "x-other"}}));
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(bad->body, "Disallowed CORS origin, method, headers");
  EXPECT_EQ(Get(bad->headers, "access-control-allow-origin"), "<absent>");
  EXPECT_EQ(Get(bad->headers, "vary"), "Origin");
  auto method = cors.Preflight(Req("OPTIONS", {{"origin", "https://app.example"},
                                               {"access-control-request-method", "post"}}));  // case-sensitive
  EXPECT_EQ(method->body, "Disallowed CORS method");

  Headers listed = cors.SimpleHeaders(Req("POST", {{"origin", "https://app.example"}}));
  EXPECT_EQ(listed, (Headers{{"access-control-allow-credentials", "true"},
                             {"access-control-allow-origin", "https://app.example"},
                             {"vary", "Origin"}}));
  Headers other = cors.SimpleHeaders(Req("POST", {{"origin", "https://evil.example"}}));
  EXPECT_EQ(other, (Headers{{"access-control-allow-credentials", "true"}}));
  CorsPolicy no_credentials{Restricted(false)};
  EXPECT_TRUE(no_credentials.SimpleHeaders(Req("POST", {{"origin", "https://evil.example"}})).empty());
}

}  // namespace
}  // namespace gemmad::server
