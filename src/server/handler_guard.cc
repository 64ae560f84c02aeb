// RunHandlerGuarded (see handler_guard.h).
#include "server/handler_guard.h"

#include <exception>
#include <new>

#include "base/log.h"

namespace gemmad::server {

void RunHandlerGuarded(const Handler& handler, HttpRequest request, std::shared_ptr<Responder> responder) {
  try {
    handler(std::move(request), responder);
  } catch (const std::bad_alloc&) {
    GEMMAD_LOG_ERROR("out of memory while handling a request; answered 503");
    responder->SendError({ResourceExhaustedError("The server ran out of memory handling this request."),
                          std::nullopt, false});
  } catch (const std::exception& e) {
    GEMMAD_LOG_ERROR("unexpected exception while handling a request: {}; answered 500", e.what());
    responder->SendError(api::ApiError::Internal("Internal server error."));
  } catch (...) {
    GEMMAD_LOG_ERROR("unexpected exception while handling a request; answered 500");
    responder->SendError(api::ApiError::Internal("Internal server error."));
  }
}

}  // namespace gemmad::server
