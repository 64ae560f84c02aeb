// `gemmad detokenize`: texts of token-id lists (see tokenizer/tool_commands.h).
#include <iostream>

#include "cli/subcommand.h"
#include "tokenizer/tool_commands.h"

namespace gemmad::cli {
namespace {
int RunDetokenize(const std::vector<std::string>& args) {
  return tokenizer::RunDetokenizeCommand(args, std::cin, std::cout, std::cerr);
}
}  // namespace

extern const Subcommand kCmd_detokenize;
const Subcommand kCmd_detokenize{"detokenize", "print the text of token-id lists (JSON lines)", &RunDetokenize};
}  // namespace gemmad::cli
