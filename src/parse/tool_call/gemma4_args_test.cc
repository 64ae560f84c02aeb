// Tests for Gemma4ArgsConverter (gemma4_args.h): conversion rules of chat-format.md §6.1 and the
// append-only streaming invariant.
#include "parse/tool_call/gemma4_args.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace gemmad::parse {
namespace {

constexpr std::string_view kQuote = "<|\"|>";

// Feeds `args` (the text after `call:NAME{`, `<|"|>` spelled out) one character at a time and,
// if `close`, ends the call as `<tool_call|>` does. Checks that output only ever grows.
std::string Convert(std::string_view args, bool close = true) {
  Gemma4ArgsConverter c;
  std::string out;
  c.Begin(out);
  size_t i = 0;
  while (i < args.size()) {
    if (args.substr(i, kQuote.size()) == kQuote) {
      c.Quote(out);
      i += kQuote.size();
    } else {
      c.Text(args.substr(i, 1), out);
      ++i;
    }
  }
  if (close) c.Close(out);
  return out;
}

TEST(Gemma4Args, ConvertsValueTypes) {
  EXPECT_EQ(Convert("}"), "{}");
  EXPECT_EQ(Convert("   }"), "{}");
  EXPECT_EQ(Convert("city:<|\"|>Paris, France<|\"|>,days:2}"),
            "{\"city\": \"Paris, France\", \"days\": 2}");
  EXPECT_EQ(Convert("a:true,b:false,c:null,d:3.50,e:-7,f:1e5}"),
            "{\"a\": true, \"b\": false, \"c\": null, \"d\": 3.5, \"e\": -7, \"f\": \"1e5\"}");
  EXPECT_EQ(Convert("o:{x:{y:[1,<|\"|>s<|\"|>,[true],{}]}},l:[]}"),
            "{\"o\": {\"x\": {\"y\": [1, \"s\", [true], {}]}}, \"l\": []}");
  EXPECT_EQ(Convert("s:<|\"|>a\"b\\n<c>\n{x}<|\"|>}"), "{\"s\": \"a\\\"b\\\\n<c>\\n{x}\"}");
  EXPECT_EQ(Convert(" a : 1 , b :\n<|\"|>x<|\"|> }"), "{\"a\": 1, \"b\": \"x\"}");
}

TEST(Gemma4Args, QuotedKeysLoseTheirDelimiters) {
  EXPECT_EQ(Convert("m:{<|\"|>3<|\"|>:<|\"|>t<|\"|>}}"), "{\"m\": {\"3\": \"t\"}}");
  EXPECT_EQ(Convert("<|\"|>a:b<|\"|>:1}"), "{\"a:b\": 1}");
}

TEST(Gemma4Args, EmptyValues) {
  EXPECT_EQ(Convert("key:}"), "{\"key\": \"\"}");
  EXPECT_EQ(Convert("key:"), "{\"key\": \"\"}");
  EXPECT_EQ(Convert("o:{k:},z:1}"), "{\"o\": {\"k\": \"\"}, \"z\": 1}");
  // `key:,` is an empty bare value: vLLM stops parsing that object.
  EXPECT_EQ(Convert("a:1,b:,c:2}"), "{\"a\": 1}");
  EXPECT_EQ(Convert("o:{a:,b:{c:1}},z:2}"), "{\"o\": {}, \"z\": 2}");
}

TEST(Gemma4Args, TopLevelBraceClosesOnlyBeforeTheEndMarker) {
  // As vLLM's regex: the arguments end at the '}' right before <tool_call|>.
  EXPECT_EQ(Convert("a:<|\"|>x<|\"|>,}],p:<|\"|>f<|\"|>}"), "{\"a\": \"x\", \"}],p\": \"f\"}");
  EXPECT_EQ(Convert("a:1}2,b:3}"), "{\"a\": 1, \"}2,b\": 3}");
  EXPECT_EQ(Convert("a:1}}"), "{\"a\": 1}");
}

TEST(Gemma4Args, UnterminatedStringBeforeTheEndMarker) {
  EXPECT_EQ(Convert("key:<|\"|>unterminated}"), "{\"key\": \"unterminated\"}");
  EXPECT_EQ(Convert("key:<|\"|>unterminated"), "{\"key\": \"unterminated\"}");
  EXPECT_EQ(Convert("a:{b:<|\"|>x}}"), "{\"a\": {\"b\": \"x}\"}}");
}

TEST(Gemma4Args, ArraysFollowVllmTokenRules) {
  EXPECT_EQ(Convert("a:[42,true,3.14]}"), "{\"a\": [42, true, 3.14]}");
  EXPECT_EQ(Convert("a:[[<|\"|>a]b<|\"|>,<|\"|>c<|\"|>],<|\"|>tail<|\"|>]}"),
            "{\"a\": [[\"a]b\", \"c\"], \"tail\"]}");
  EXPECT_EQ(Convert("a:[1,,2, ,3]}"), "{\"a\": [1, 2, 3]}");
  EXPECT_EQ(Convert("a:[1}]}"), "{\"a\": [\"1}\"]}");  // '}' does not end an array element
}

TEST(Gemma4Args, CloseCompletesEveryOpenValue) {
  EXPECT_EQ(Convert("a:[1,{b:<|\"|>x"), "{\"a\": [1, {\"b\": \"x\"}]}");
  EXPECT_EQ(Convert("a:12"), "{\"a\": 12}");
  EXPECT_EQ(Convert("a:1,partial_ke"), "{\"a\": 1}");
}

TEST(Gemma4Args, WithholdsWhatMayStillChange) {
  // Without Close(): only what cannot change has been written.
  EXPECT_EQ(Convert("key:", false), "{");
  EXPECT_EQ(Convert("n:<|\"|>t<|\"|>,flag:", false), "{\"n\": \"t\"");
  EXPECT_EQ(Convert("left:108.", false), "{");
  EXPECT_EQ(Convert("left:108.2,r:22.", false), "{\"left\": 108.2");
  EXPECT_EQ(Convert("a:tr", false), "{");
  EXPECT_EQ(Convert("s:<|\"|>Pa", false), "{\"s\": \"Pa");
  EXPECT_EQ(Convert("s:<|\"|>x}", false), "{\"s\": \"x");  // '}' may be the closing brace
  EXPECT_EQ(Convert("a:1}", false), "{\"a\": 1");          // decided by what follows
  EXPECT_EQ(Convert("a:[108.,22.8", false), "{\"a\": [108.0");  // terminated: final
  EXPECT_EQ(Convert("a:[42,108.,3", false), "{\"a\": [42, 108.0");
}

TEST(Gemma4Args, MalformedInputTerminates) {
  for (std::string_view s : {":[t:[]", "]]]]", ",,,:", "{{{{", "<|\"|><|\"|>:", "a:[{]}", "::::}"}) {
    std::string out = Convert(s);
    EXPECT_FALSE(out.empty()) << s;
  }
  EXPECT_EQ(Convert(":[t:[]"), "{\"\": [\"t:[\"]}");  // as vLLM
}

}  // namespace
}  // namespace gemmad::parse
