// The built-in web chat page `gemmad serve` answers at `/` (llama.cpp's server has one too): one
// self-contained HTML document (no CDN, works offline) that talks to this server's
// /v1/chat/completions with streaming, shows the reasoning in a collapsed block apart from the
// answer, shows tool calls and server errors, and has fields for the API key and sampling.
#pragma once

#include <string_view>

namespace gemmad::server {

std::string_view WebChatPage();

}  // namespace gemmad::server
