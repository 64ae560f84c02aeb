// RunGemmad implementation (std::system with output redirected to temp files).
#include "cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gemmad::testing_cli {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path.c_str());
  return ss.str();
}

}  // namespace

CliResult RunGemmad(const std::vector<std::string>& args) {
  static int counter = 0;
  std::string base = std::string(GEMMAD_BINARY_DIR) + "/cli_run_" + std::to_string(::getpid()) + "_" +
                     std::to_string(counter++);
  std::string cmd = Quote(std::string(GEMMAD_BINARY_DIR) + "/gemmad");
  for (const auto& a : args) cmd += " " + Quote(a);
  cmd += " >" + Quote(base + ".out") + " 2>" + Quote(base + ".err") + " </dev/null";
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(base + ".out");
  r.err = Slurp(base + ".err");
  return r;
}

}  // namespace gemmad::testing_cli
