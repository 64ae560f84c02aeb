// The `gemmad tokenize` and `gemmad detokenize` commands, written against streams so that they
// are testable without the binary (src/cli/cmd_{tokenize,detokenize}.cc only forward to them).
//   tokenize   --tokenizer PATH [--add-special-tokens] (TEXT... | -)
//   detokenize --tokenizer PATH [--skip-special-tokens] (IDS... | -)
// Arguments are raw texts (tokenize) or JSON arrays of ids (detokenize); with `-`, stdin holds
// one JSON value per line (a string / an array of ids). One JSON value per input is written
// per line, in order, flushed per line. Errors: one line on `err`, exit code 2.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace gemmad::tokenizer {

int RunTokenizeCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                       std::ostream& err);
int RunDetokenizeCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                         std::ostream& err);

}  // namespace gemmad::tokenizer
