// tokenize / detokenize command implementations.
#include "tokenizer/tool_commands.h"

#include <fmt/format.h>

#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

struct Options {
  std::string tokenizer;
  bool flag = false;  // --add-special-tokens / --skip-special-tokens
  std::vector<std::string> inputs;
  bool from_stdin = false;
};

constexpr int kUsageError = 2;

// Parses the command line; returns an error message ("" on success, "help" for --help).
std::string ParseArgs(const std::vector<std::string>& args, std::string_view flag_name, Options* o) {
  bool only_inputs = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_inputs || a.empty() || a[0] != '-' || a == "-") {
      if (a == "-" && !only_inputs) o->from_stdin = true;
      else o->inputs.push_back(a);
      continue;
    }
    if (a == "--") {
      only_inputs = true;
    } else if (a == "-h" || a == "--help") {
      return "help";
    } else if (a == "--tokenizer") {
      if (i + 1 >= args.size()) return "--tokenizer needs a value (a model directory or tokenizer.json)";
      o->tokenizer = args[++i];
    } else if (a.rfind("--tokenizer=", 0) == 0) {
      o->tokenizer = a.substr(12);
    } else if (a == flag_name) {
      o->flag = true;
    } else {
      return fmt::format("unknown option {}", a);
    }
  }
  if (o->tokenizer.empty()) return "--tokenizer PATH is required";
  if (o->from_stdin && !o->inputs.empty()) return "give inputs as arguments or '-' for stdin, not both";
  if (!o->from_stdin && o->inputs.empty()) return "no input (give arguments, or '-' to read JSON lines from stdin)";
  return "";
}

// Runs `handle(input, is_json_line, &json_out)` over every input; returns the exit code.
template <typename Handle>
int RunCommand(const char* name, std::string_view flag_name, std::string_view usage,
               const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err,
               Handle handle) {
  Options o;
  std::string msg = ParseArgs(args, flag_name, &o);
  if (msg == "help") {
    out << usage;
    return 0;
  }
  if (!msg.empty()) {
    err << "gemmad " << name << ": " << msg << "\n";
    return kUsageError;
  }
  auto tok = Tokenizer::Load(o.tokenizer);
  if (!tok.ok()) {
    err << "gemmad " << name << ": " << tok.status().message() << "\n";
    return kUsageError;
  }
  auto one = [&](const std::string& input, bool json, std::string_view where) {
    std::string result, error;
    if (!handle(**tok, o.flag, input, json, &result, &error)) {
      err << "gemmad " << name << ": " << where << ": " << error << "\n";
      return false;
    }
    out << result << "\n" << std::flush;
    return true;
  };
  if (o.from_stdin) {
    std::string line;
    for (size_t n = 1; std::getline(in, line); ++n) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!one(line, true, fmt::format("stdin line {}", n))) return kUsageError;
    }
  } else {
    for (size_t k = 0; k < o.inputs.size(); ++k) {
      if (!one(o.inputs[k], false, fmt::format("argument {}", k + 1))) return kUsageError;
    }
  }
  return 0;
}

std::string DumpString(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int RunTokenizeCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                       std::ostream& err) {
  static constexpr std::string_view kUsage =
      "usage: gemmad tokenize --tokenizer PATH [--add-special-tokens] (TEXT... | -)\n"
      "  Prints the token ids of each TEXT as a JSON array, one per line. With '-', reads one\n"
      "  JSON string per line from stdin. PATH: a model directory or a tokenizer.json file.\n";
  return RunCommand("tokenize", "--add-special-tokens", kUsage, args, in, out, err,
                    [](const Tokenizer& tok, bool add, const std::string& input, bool json, std::string* result,
                       std::string* error) {
                      std::string text = input;
                      if (json) {
                        auto j = nlohmann::json::parse(input, nullptr, false);
                        if (j.is_discarded() || !j.is_string()) {
                          *error = "expected a JSON string";
                          return false;
                        }
                        text = j.get<std::string>();
                      }
                      *result = nlohmann::json(tok.Encode(text, add)).dump();
                      return true;
                    });
}

int RunDetokenizeCommand(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                         std::ostream& err) {
  static constexpr std::string_view kUsage =
      "usage: gemmad detokenize --tokenizer PATH [--skip-special-tokens] (IDS... | -)\n"
      "  Prints the text of each IDS (a JSON array of token ids, e.g. [2,9259]) as a JSON\n"
      "  string, one per line. With '-', reads one JSON array per line from stdin.\n";
  return RunCommand("detokenize", "--skip-special-tokens", kUsage, args, in, out, err,
                    [](const Tokenizer& tok, bool skip, const std::string& input, bool, std::string* result,
                       std::string* error) {
                      auto j = nlohmann::json::parse(input, nullptr, false);
                      if (j.is_number_integer()) j = nlohmann::json::array({j});
                      if (j.is_discarded() || !j.is_array()) {
                        *error = "expected a JSON array of token ids";
                        return false;
                      }
                      std::vector<int32_t> ids;
                      for (const auto& v : j) {
                        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= tok.vocab_size()) {
                          *error = fmt::format("{} is not a token id (0..{})", v.dump(), tok.vocab_size() - 1);
                          return false;
                        }
                        ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
                      }
                      *result = DumpString(tok.Decode(ids, skip));
                      return true;
                    });
}

}  // namespace gemmad::tokenizer
