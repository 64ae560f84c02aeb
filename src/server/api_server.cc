// ApiServer and the route table.
#include "server/api_server.h"

#include <algorithm>
#include <string_view>

#include "api/chat_serving.h"
#include "api/completion_serving.h"
#include "api/misc_serving.h"
#include "api/request_fields.h"
#include "api/responses_serving.h"
#include "api/transcription_serving.h"
#include "server/error_map.h"
#include "server/multipart.h"
#include "server/prometheus.h"
#include "server/web_chat_page.h"

namespace gemmad::server {
namespace {

// `out` outlives the call: both live for the handler's run.
api::ApiCall CallOf(const HttpRequest& r, const Responder& out) {
  return {r.body, std::string(r.Header("x-request-id")), r.arrival, [&out] { return out.client_gone(); }};
}

// The audio routes take multipart/form-data (OpenAI's form): the transport cuts the body into
// parts, a malformed one is a 400; the api/ handler reads the fields.
RouteFn SpeechRoute(const api::ServingContext* c, api::SpeechTask task) {
  return [c, task](const HttpRequest& r, Responder& out) {
    auto boundary = MultipartBoundary(r.Header("content-type"));
    if (!boundary.ok()) return out.SendError(api::ApiError::Validation(boundary.status().message()));
    auto parts = ParseMultipart(r.body, *boundary);
    if (!parts.ok()) return out.SendError(api::ApiError::Validation(parts.status().message()));
    api::ApiCall call{"", std::string(r.Header("x-request-id")), r.arrival, [&out] { return out.client_gone(); },
                      std::move(*parts)};
    api::ServeSpeech(*c, call, task, out);
  };
}

// /v1/responses/{id} (GET: retrieve) and /v1/responses/{id}/cancel (POST), as FastAPI routes
// them: the other method on a known shape is a 405, any other path a 404.
RouteFn ResponsesIdRoute(const api::ServingContext* c) {
  return [c](const HttpRequest& r, Responder& out) {
    constexpr std::string_view kBase = "/v1/responses/";
    std::string_view rest = std::string_view(r.path).substr(std::min(r.path.size(), kBase.size()));
    if (r.path.size() <= kBase.size()) {
      return out.Send(405, "application/json", DetailBody("Method Not Allowed"));  // POST-only /v1/responses
    }
    size_t slash = rest.find('/');
    std::string id(rest.substr(0, slash));
    bool cancel = slash != std::string_view::npos && rest.substr(slash) == "/cancel";
    if (slash != std::string_view::npos && !cancel) return out.Send(404, "application/json", DetailBody("Not Found"));
    if (cancel != (r.method == "POST")) return out.Send(405, "application/json", DetailBody("Method Not Allowed"));
    if (cancel) return api::ServeResponseCancel(*c, id, out);
    size_t q = r.target.find('?');
    api::ServeResponseRetrieve(*c, id, q == std::string::npos ? "" : r.target.substr(q + 1), out);
  };
}

double StartUnix(const api::ServingContext& ctx) { return static_cast<double>(ctx.options.created_unix); }

}  // namespace

void AddApiRoutes(Router& router, const api::ServingContext& ctx, std::string version) {
  const api::ServingContext* c = &ctx;
  router.Add("POST", "/v1/chat/completions",
             [c](const HttpRequest& r, Responder& out) { api::ServeChat(*c, CallOf(r, out), out); }, true);
  router.Add("POST", "/v1/completions",
             [c](const HttpRequest& r, Responder& out) { api::ServeCompletion(*c, CallOf(r, out), out); }, true);
  router.Add("POST", "/v1/responses",
             [c](const HttpRequest& r, Responder& out) { api::ServeResponses(*c, CallOf(r, out), out); }, true);
  router.AddPrefix("GET", "/v1/responses", ResponsesIdRoute(c));
  router.AddPrefix("POST", "/v1/responses", ResponsesIdRoute(c));
  // Served for every model; one without an audio tower gets the chat route's 400 (docs/media.md).
  router.Add("POST", "/v1/audio/transcriptions", SpeechRoute(c, api::SpeechTask::kTranscribe));
  router.Add("POST", "/v1/audio/translations", SpeechRoute(c, api::SpeechTask::kTranslate));
  router.Add("GET", "/v1/models", [c](const HttpRequest&, Responder& out) { api::ServeModels(*c, out); });
  router.Add("POST", "/tokenize",
             [c](const HttpRequest& r, Responder& out) { api::ServeTokenize(*c, CallOf(r, out), out); }, true);
  router.Add("POST", "/detokenize",
             [c](const HttpRequest& r, Responder& out) { api::ServeDetokenize(*c, CallOf(r, out), out); }, true);
  RouteFn health = [c](const HttpRequest&, Responder& out) {
    out.Send(c->engine->healthy() ? 200 : 503, "", "");
  };
  router.Add("GET", "/health", health);
  router.Add("GET", "/ping", health);
  router.Add("POST", "/ping", health);
  router.Add("GET", "/version", [version](const HttpRequest&, Responder& out) {
    out.SendJson(api::DumpJson(api::Json{{"version", version}}));
  });
  // The web chat page (no API key needed to load it: it holds no data; its requests carry the key).
  router.Add("GET", "/", [](const HttpRequest&, Responder& out) {
    out.Send(200, "text/html; charset=utf-8", std::string(WebChatPage()));
  });
  router.AddPrefix("GET", "/metrics", [c](const HttpRequest&, Responder& out) {
    MetricsLabels labels{c->model_name(), StartUnix(*c)};
    out.Send(200, "text/plain; version=0.0.4; charset=utf-8", FormatPrometheus(c->engine->Metrics(), labels));
  });
}

Result<std::unique_ptr<ApiServer>> ApiServer::Start(const ApiServerOptions& options, const api::ServingContext& ctx) {
  auto router = std::make_unique<Router>(options.router);
  AddApiRoutes(*router, ctx, options.version);
  std::unique_ptr<ApiServer> server(new ApiServer(std::move(router)));
  const Router* r = server->router_.get();
  GEMMAD_ASSIGN_OR_RETURN(server->http_, HttpServer::Start(options.http, [r](HttpRequest request,
                                                                             std::shared_ptr<Responder> out) {
                            r->Handle(request, *out);
                          }));
  return server;
}

ApiServer::~ApiServer() {
  if (http_) http_->Stop();
}

}  // namespace gemmad::server
