// `gemmad tokenize`: token ids of texts (see tokenizer/tool_commands.h).
#include <iostream>

#include "cli/subcommand.h"
#include "tokenizer/tool_commands.h"

namespace gemmad::cli {
namespace {
int RunTokenize(const std::vector<std::string>& args) {
  return tokenizer::RunTokenizeCommand(args, std::cin, std::cout, std::cerr);
}
}  // namespace

extern const Subcommand kCmd_tokenize;
const Subcommand kCmd_tokenize{"tokenize", "print the token ids of texts (JSON lines)", &RunTokenize};
}  // namespace gemmad::cli
