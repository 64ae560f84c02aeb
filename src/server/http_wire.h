// HTTP/1.1 wire formatting for responses: status line and headers (lowercase names, as
// uvicorn writes them), chunked transfer coding, and the SSE `data:` framing vLLM uses.
// Pure functions; the transport only moves the bytes.
#pragma once

#include <string>
#include <string_view>

#include "server/http_types.h"

namespace gemmad::server {

std::string_view ReasonPhrase(int status);
// Status line + headers + blank line. `content_length` < 0 means chunked transfer coding.
std::string ResponseHead(int status, std::string_view content_type, long long content_length, bool keep_alive,
                         const Headers& extra);
// What uvicorn (h11) answers to bytes that are not an HTTP request (a malformed request line,
// header or chunk): exactly its bytes; the connection closes after them (no content-length).
std::string InvalidRequestResponse();
// One chunk of chunked transfer coding (empty `data` is not allowed: it would end the body).
std::string Chunk(std::string_view data);
std::string LastChunk();
// "data: <payload>\n\n" (vLLM's SSE form for chat and completions: no event:/id: lines, no comments).
std::string SseEvent(std::string_view payload);
// `event: <type>\ndata: <payload>\n\n` (the Responses API's typed events).
std::string TypedSseEvent(std::string_view type, std::string_view payload);

}  // namespace gemmad::server
