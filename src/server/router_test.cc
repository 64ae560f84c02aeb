// Router middleware: auth (which paths), content type, 404/405, X-Request-Id; error map shapes.
#include "server/router.h"

#include <gtest/gtest.h>

#include "server/error_map.h"
#include "server/server_test_util.h"

namespace gemmad::server {
namespace {

using testing::RecordingResponder;

HttpRequest Req(std::string method, std::string path, Headers headers = {}) {
  HttpRequest r;
  r.method = std::move(method);
  r.path = path;
  r.target = std::move(path);
  r.headers = std::move(headers);
  return r;
}

Router MakeRouter(RouterOptions options) {
  Router router(std::move(options));
  router.Add("POST", "/v1/chat/completions", [](const HttpRequest&, Responder& out) { out.SendJson("{}"); }, true);
  router.Add("GET", "/v1/models", [](const HttpRequest&, Responder& out) { out.SendJson("[]"); });
  router.Add("GET", "/health", [](const HttpRequest&, Responder& out) { out.Send(200, "", ""); });
  router.AddPrefix("GET", "/metrics", [](const HttpRequest&, Responder& out) { out.Send(200, "text/plain", "m"); });
  return router;
}

TEST(RouterTest, ApiKeyProtectsOnlyV1Paths) {
  Router router = MakeRouter({{"k1", "k2"}, false});
  RecordingResponder a;
  router.Handle(Req("GET", "/v1/models"), a);
  EXPECT_EQ(a.status, 401);
  EXPECT_EQ(a.body, R"({"error":"Unauthorized"})");
  RecordingResponder b;
  router.Handle(Req("GET", "/v1/models", {{"authorization", "Bearer k2"}}), b);
  EXPECT_EQ(b.status, 200);
  RecordingResponder c;
  router.Handle(Req("GET", "/v1/models", {{"authorization", "bearer k1"}}), c);  // scheme is case-insensitive
  EXPECT_EQ(c.status, 200);
  RecordingResponder d;
  router.Handle(Req("GET", "/v1/models", {{"authorization", "Bearer k3"}}), d);
  EXPECT_EQ(d.status, 401);
  RecordingResponder e;
  router.Handle(Req("GET", "/health"), e);  // never protected
  EXPECT_EQ(e.status, 200);
  RecordingResponder f;
  router.Handle(Req("GET", "/v1/unknown"), f);  // auth runs before routing
  EXPECT_EQ(f.status, 401);
}

TEST(RouterTest, KeyComparisonIsExactForEveryLength) {
  EXPECT_TRUE(Router::ConstantTimeEquals("secret-key", "secret-key"));
  for (std::string_view guess : {"", "s", "secret-ke", "secret-keyy", "secret-kez", "Secret-key",
                                 "secret-keysecret-key"}) {
    EXPECT_FALSE(Router::ConstantTimeEquals(guess, "secret-key")) << guess;
  }
  EXPECT_TRUE(Router::ConstantTimeEquals("", ""));
  EXPECT_FALSE(Router::ConstantTimeEquals("x", ""));
  EXPECT_TRUE(Router::Authorized("bearer k1", {"k0", "k1"}));
  EXPECT_FALSE(Router::Authorized("Bearer k1 ", {"k1"}));
  EXPECT_FALSE(Router::Authorized("Basic k1", {"k1"}));
}

TEST(RouterTest, NotFoundAndMethodNotAllowed) {
  Router router = MakeRouter({});
  RecordingResponder a;
  router.Handle(Req("GET", "/nope"), a);
  EXPECT_EQ(a.status, 404);
  EXPECT_EQ(a.body, R"({"detail":"Not Found"})");
  RecordingResponder b;
  router.Handle(Req("GET", "/v1/chat/completions"), b);
  EXPECT_EQ(b.status, 405);
  EXPECT_EQ(b.body, R"({"detail":"Method Not Allowed"})");
  RecordingResponder c;
  router.Handle(Req("GET", "/metrics/x"), c);
  EXPECT_EQ(c.status, 200);
}

TEST(RouterTest, JsonRoutesRequireJsonContentType) {
  Router router = MakeRouter({});
  RecordingResponder a;
  router.Handle(Req("POST", "/v1/chat/completions", {{"content-type", "text/plain"}}), a);
  EXPECT_EQ(a.status, 400);
  EXPECT_NE(a.body.find("Unsupported Media Type: Only 'application/json' is allowed"), std::string::npos);
  RecordingResponder b;
  router.Handle(Req("POST", "/v1/chat/completions", {{"content-type", "application/json; charset=utf-8"}}), b);
  EXPECT_EQ(b.status, 200);
}

TEST(RouterTest, EchoesRequestIdWhenEnabled) {
  Router router = MakeRouter({{}, true});
  RecordingResponder a;
  router.Handle(Req("GET", "/health", {{"x-request-id", "abc"}}), a);
  ASSERT_EQ(a.headers.size(), 1u);
  EXPECT_EQ(a.headers[0], (std::pair<std::string, std::string>{"x-request-id", "abc"}));
  RecordingResponder b;
  router.Handle(Req("GET", "/health"), b);
  ASSERT_EQ(b.headers.size(), 1u);
  EXPECT_EQ(b.headers[0].second.size(), 32u);
}

TEST(ErrorMapTest, StatusCodesAndTypes) {
  ErrorResponse v = MapError(api::ApiError::Validation("body.messages: Field required", "messages"));
  EXPECT_EQ(v.status, 400);
  EXPECT_EQ(v.body, R"({"error":{"message":"body.messages: Field required","type":"Bad Request","param":"messages","code":400}})");
  ErrorResponse b = MapError(api::ApiError::BadRequest("temperature must be non-negative, got -1.0.", "temperature"));
  EXPECT_EQ(b.body, R"({"error":{"message":"temperature must be non-negative, got -1.0.","type":"BadRequestError","param":"temperature","code":400}})");
  ErrorResponse n = MapError(api::ApiError::NotFound("The model `x` does not exist.", "model"));
  EXPECT_EQ(n.status, 404);
  EXPECT_NE(n.body.find("\"type\":\"NotFoundError\""), std::string::npos);
  EXPECT_EQ(MapError(api::ApiError::FromStatus(UnavailableError("draining"))).status, 503);
  EXPECT_EQ(MapError(api::ApiError::FromStatus(OutOfRangeError("too long"))).status, 400);
  ErrorResponse i = MapError(api::ApiError::Internal("Internal server error"));
  EXPECT_EQ(i.status, 500);
  EXPECT_NE(i.body.find("\"type\":\"InternalServerError\""), std::string::npos);
}

TEST(RouterTest, RootPath) {
  EXPECT_EQ(Router::RoutePath("/api/v1/models", "/api"), "/v1/models");
  EXPECT_EQ(Router::RoutePath("/v1/models", "/api"), "/v1/models");
  EXPECT_EQ(Router::RoutePath("/api", "/api"), "");
  EXPECT_EQ(Router::RoutePath("/apiv1/models", "/api"), "/apiv1/models");
  EXPECT_EQ(Router::RoutePath("/v1/models", ""), "/v1/models");
  RouterOptions options{{"k"}, false};
  options.root_path = "/api";
  Router router = MakeRouter(options);
  for (std::string path : {"/api/v1/models", "/v1/models"}) {
    RecordingResponder unauthorized;
    router.Handle(Req("GET", path), unauthorized);  // the prefix is removed before the auth check
    EXPECT_EQ(unauthorized.status, 401) << path;
    RecordingResponder ok;
    router.Handle(Req("GET", path, {{"authorization", "Bearer k"}}), ok);
    EXPECT_EQ(ok.status, 200) << path;
  }
  RecordingResponder health;
  router.Handle(Req("GET", "/api/health"), health);
  EXPECT_EQ(health.status, 200);
  RecordingResponder other;
  router.Handle(Req("GET", "/other/health"), other);
  EXPECT_EQ(other.status, 404);
}

TEST(RouterTest, CorsSitsInsideAuthAndAnswersPreflightsOnAnyPath) {
  Router router = MakeRouter({{"k"}, false});
  Headers preflight{{"origin", "https://x.example"}, {"access-control-request-method", "POST"}};
  for (std::string path : {"/v1/chat/completions", "/no/such/path"}) {
    RecordingResponder p;
    router.Handle(Req("OPTIONS", path, preflight), p);  // OPTIONS needs no key
    EXPECT_EQ(p.status, 200) << path;
    EXPECT_EQ(p.body, "OK");
    EXPECT_EQ(p.content_type, "text/plain; charset=utf-8");
  }
  RecordingResponder unauthorized;
  router.Handle(Req("GET", "/v1/models", {{"origin", "https://x.example"}}), unauthorized);
  EXPECT_EQ(unauthorized.status, 401);
  EXPECT_TRUE(unauthorized.headers.empty());  // vLLM's auth middleware answers outside CORS
  RecordingResponder simple;
  router.Handle(Req("GET", "/v1/models", {{"origin", "https://x.example"}, {"authorization", "Bearer k"}}), simple);
  EXPECT_EQ(simple.status, 200);
  EXPECT_EQ(simple.headers, (Headers{{"access-control-allow-origin", "*"}}));
  RecordingResponder not_preflight;  // OPTIONS without Access-Control-Request-Method: routed (405)
  router.Handle(Req("OPTIONS", "/v1/models", {{"origin", "https://x.example"}}), not_preflight);
  EXPECT_EQ(not_preflight.status, 405);
  EXPECT_EQ(not_preflight.headers, (Headers{{"access-control-allow-origin", "*"}}));
}

}  // namespace
}  // namespace gemmad::server
