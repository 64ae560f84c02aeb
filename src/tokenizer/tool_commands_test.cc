// tokenize / detokenize command tests through streams, on a small trained tokenizer.
#include "tokenizer/tool_commands.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace gemmad::tokenizer {
namespace {

const std::string kTok = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/trained/metaspace_bytefallback.json";

struct CmdResult {
  int rc;
  std::string out, err;
};

CmdResult Tokenize(std::vector<std::string> args, const std::string& in = "") {
  std::istringstream is(in);
  std::ostringstream os, es;
  int rc = RunTokenizeCommand(args, is, os, es);
  return {rc, os.str(), es.str()};
}

CmdResult Detokenize(std::vector<std::string> args, const std::string& in = "") {
  std::istringstream is(in);
  std::ostringstream os, es;
  int rc = RunDetokenizeCommand(args, is, os, es);
  return {rc, os.str(), es.str()};
}

TEST(ToolCommands, TokenizeArgumentsAndStdin) {
  CmdResult a = Tokenize({"--tokenizer", kTok, "Hello world", "x"});
  ASSERT_EQ(a.rc, 0) << a.err;
  CmdResult b = Tokenize({"--tokenizer=" + kTok, "-"}, "\"Hello world\"\n\"x\"\n");
  ASSERT_EQ(b.rc, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(std::count(a.out.begin(), a.out.end(), '\n'), 2);
  CmdResult c = Tokenize({"--tokenizer", kTok, "--add-special-tokens", "x"});
  ASSERT_EQ(c.rc, 0);
  EXPECT_NE(c.out, a.out.substr(a.out.find('\n') + 1));  // <s> ... </s> around it
}

TEST(ToolCommands, DetokenizeRoundTrip) {
  CmdResult t = Tokenize({"--tokenizer", kTok, "--add-special-tokens", "Héllo wörld"});
  ASSERT_EQ(t.rc, 0);
  std::string ids = t.out.substr(0, t.out.size() - 1);
  CmdResult d = Detokenize({"--tokenizer", kTok, "--skip-special-tokens", ids});
  ASSERT_EQ(d.rc, 0) << d.err;
  EXPECT_EQ(d.out, "\"Héllo wörld\"\n");
  CmdResult s = Detokenize({"--tokenizer", kTok, "-"}, ids + "\n[]\n");
  ASSERT_EQ(s.rc, 0) << s.err;
  EXPECT_EQ(s.out, "\"<s> Héllo wörld</s>\"\n\"\"\n");  // Metaspace strips only token 0
}

TEST(ToolCommands, ErrorsAreOneLineWithExitCode2) {
  auto one_line = [](const CmdResult& r) {
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  one_line(Tokenize({"x"}));                                          // no --tokenizer
  one_line(Tokenize({"--tokenizer", "/nonexistent", "x"}));          // bad path
  one_line(Tokenize({"--tokenizer", kTok}));                          // no input
  one_line(Tokenize({"--tokenizer", kTok, "--bogus", "x"}));         // unknown option
  one_line(Tokenize({"--tokenizer", kTok, "-"}, "\"ok\"\nnot json\n"));  // bad line 2
  one_line(Detokenize({"--tokenizer", kTok, "[1, -5]"}));
  one_line(Detokenize({"--tokenizer", kTok, "[1, 99999999]"}));
  one_line(Detokenize({"--tokenizer", kTok, "\"text\""}));
  CmdResult partial = Tokenize({"--tokenizer", kTok, "-"}, "\"ok\"\n42\n");
  EXPECT_EQ(std::count(partial.out.begin(), partial.out.end(), '\n'), 1);  // line 1 was answered
  EXPECT_NE(partial.err.find("stdin line 2"), std::string::npos);
  CmdResult help = Tokenize({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_NE(help.out.find("usage: gemmad tokenize"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::tokenizer
