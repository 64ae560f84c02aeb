// Unit tests of the template engine's public API: compile errors with line:column, render
// errors, sandbox limits (steps, output size, recursion, nesting), Python value printing,
// undeclared-variable and content-format detection, concurrent rendering.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <thread>
#include <vector>

#include "template/chat_template.h"
#include "template/py_format.h"

namespace gemmad::tmpl {
namespace {

std::string RenderOk(std::string_view src, const Json& ctx = Json::object()) {
  auto t = Template::Compile(src, "t");
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return "";
  auto out = t->Render(ctx);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : "";
}

Status RenderStatus(std::string_view src, const Json& ctx = Json::object(),
                    TemplateRenderOptions options = {}) {
  auto t = Template::Compile(src, "t");
  if (!t.ok()) return t.status();
  auto out = t->Render(ctx, options);
  return out.ok() ? OkStatus() : out.status();
}

TEST(TemplateCompile, SyntaxErrorsNameLineAndColumn) {
  auto t = Template::Compile("line one\n{% if x %}\n  {{ 1 + }}\n{% endif %}", "my.jinja");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message().rfind("my.jinja:3:", 0), 0u) << t.status().message();
  auto u = Template::Compile("ab\n{% for x in y %}", "u");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("endfor"), std::string::npos) << u.status().message();
  auto v = Template::Compile("x\n  {{ 'unterminated }}", "v");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message().rfind("v:2:6:", 0), 0u) << v.status().message();
}

TEST(TemplateRender, RuntimeErrorsCarryPosition) {
  Status s = RenderStatus("ok\n{{ raise_exception('bad request: ' ~ n) }}", {{"n", 3}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "t:2:4: bad request: 3");
  Status u = RenderStatus("{{ a.b.c }}");
  EXPECT_NE(u.message().find("'a' is undefined"), std::string::npos) << u.message();
}

TEST(TemplateRender, ContextMustBeObject) {
  auto t = Template::Compile("x");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->Render(Json::array()).ok());
  Template never_compiled;
  EXPECT_FALSE(never_compiled.Render(Json::object()).ok());
}

TEST(TemplateLimits, InfiniteWorkIsStopped) {
  TemplateRenderOptions opt;
  opt.limits.max_steps = 100000;
  Status s = RenderStatus("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
                          Json::object(), opt);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("step limit"), std::string::npos) << s.message();
}

TEST(TemplateLimits, OutputSizeIsBounded) {
  TemplateRenderOptions opt;
  opt.limits.max_output_bytes = 1000;
  Status s = RenderStatus("{% for i in range(1000) %}0123456789{% endfor %}", Json::object(), opt);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("exceeds the limit"), std::string::npos) << s.message();
  EXPECT_FALSE(RenderStatus("{{ 'x' * 100000000000 }}").ok());
  EXPECT_FALSE(RenderStatus(
      "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}").ok());
}

TEST(TemplateLimits, RecursionAndNestingFailCleanly) {
  Status s = RenderStatus("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("recursion"), std::string::npos) << s.message();
  std::string deep = "{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}";
  auto t = Template::Compile(deep);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("too deep"), std::string::npos);
  std::string deep_ifs;
  for (int i = 0; i < 1000; ++i) deep_ifs += "{% if true %}";
  EXPECT_FALSE(Template::Compile(deep_ifs).ok());
}

// The worst nesting the parser and interpreter allow must fit a 1 MiB thread stack (server
// threads may have small stacks).
void* RenderWorstCases(void* result) {
  std::string lists = std::string(90, '[') + "f(n + 1)" + std::string(90, ']');
  std::string ifs, endifs;
  for (int i = 0; i < 95; ++i) {
    ifs += "{% if true %}";
    endifs += "{% endif %}";
  }
  const std::string cases[] = {
      "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
      "{% macro f(n) %}{{ " + lists + " }}{% endmacro %}{{ f(0) }}",
      "{% macro f(n) %}" + ifs + "{{ f(n + 1) }}" + endifs + "{% endmacro %}{{ f(0) }}",
      "{{ " + std::string(95, '(') + "1" + std::string(95, ')') + " }}",
      "{% for x in [1] recursive %}{{ loop([x]) }}{% endfor %}",
  };
  int* failures = static_cast<int*>(result);
  for (const auto& c : cases) {
    auto t = Template::Compile(c);
    if (!t.ok()) continue;
    auto out = t->Render(Json::object());
    if (out.ok() && c.find("f(0)") != std::string::npos) ++*failures;  // must hit a limit
  }
  return nullptr;
}

// AddressSanitizer's redzones (and ThreadSanitizer's instrumentation) make every frame several
// times larger: the 1 MiB promise is about the shipped build, so a sanitized build checks the
// same cases with proportionally more stack.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t kWorstCaseStackBytes = size_t{4} << 20;
#else
constexpr size_t kWorstCaseStackBytes = size_t{1} << 20;
#endif

TEST(TemplateLimits, WorstNestingFitsOneMebibyteStack) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kWorstCaseStackBytes);
  pthread_t thread;
  int failures = 0;
  ASSERT_EQ(pthread_create(&thread, &attr, &RenderWorstCases, &failures), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(failures, 0);
}

TEST(TemplateLimits, DeepValuesAndNamespaceCyclesAreRejected) {
  Status deep = RenderStatus(
      "{% set ns = namespace(x=[]) %}{% for i in range(1000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x|length }}");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.message().find("nested deeper"), std::string::npos) << deep.message();
  Status cycle = RenderStatus("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}");
  ASSERT_FALSE(cycle.ok());
  EXPECT_NE(cycle.message().find("namespaces cannot be stored"), std::string::npos) << cycle.message();
  EXPECT_FALSE(RenderStatus("{% set ns = namespace() %}{{ [ns]|length }}").ok());
  std::string deep_json = std::string(100000, '[') + std::string(100000, ']');
  Status ctx = RenderStatus("{{ x|length }}", {{"x", Json::parse(deep_json)}});
  ASSERT_FALSE(ctx.ok());
  EXPECT_NE(ctx.message().find("nested deeper"), std::string::npos) << ctx.message();
  std::string tuple_target = "{% for " + std::string(400, '(') + "a" + std::string(400, ')') + " in [1] %}{% endfor %}";
  EXPECT_FALSE(Template::Compile(tuple_target).ok());
  EXPECT_EQ(RenderOk("[{{ [1, 2, 3][::1, 'y':2:0] }}]"), "[]");
}

TEST(TemplateRender, PythonValuePrinting) {
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 1e-7}}), "1e-07");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 1e21}}), "1e+21");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 3.0}}), "3.0");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 0.1}}), "0.1");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 1e16}}), "1e+16");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 1e15}}), "1000000000000000.0");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", 0.0001}}), "0.0001");
  EXPECT_EQ(RenderOk("{{ x }}", {{"x", Json::parse("[1, \"it's\", null, true, {\"k\": 2.5}]")}}),
            "[1, \"it's\", None, True, {'k': 2.5}]");
  EXPECT_EQ(internal::FloatRepr(-0.0), "-0.0");
  EXPECT_EQ(internal::FloatRepr(123456789012345678.0), "1.2345678901234568e+17");
}

TEST(TemplateRender, KeyOrderOfRequestJsonIsKept) {
  Json ctx = Json::parse(R"({"d": {"zeta": 1, "alpha": 2, "mid": 3}})");
  EXPECT_EQ(RenderOk("{{ d|tojson }} {% for k in d %}{{ k }}{% endfor %}", ctx),
            R"({"zeta": 1, "alpha": 2, "mid": 3} zetaalphamid)");
}

TEST(TemplateInfo, UndeclaredVariablesAndContentFormat) {
  auto t = Template::Compile(
      "{% set x = 1 %}{{ x }}{{ y }}{% set y = 2 %}{% for m in messages %}{{ m.content }}{{ loop.index }}{% endfor %}"
      "{{ enable_thinking }}{{ range(2) }}");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->undeclared_variables(), (std::vector<std::string>{"enable_thinking", "messages", "y"}));
  EXPECT_TRUE(t->ReadsVariable("enable_thinking"));
  EXPECT_FALSE(t->ReadsVariable("reasoning_effort"));
  EXPECT_FALSE(t->iterates_message_content());
  auto openai = Template::Compile(
      "{% set msgs = messages[1:] %}{% for m in msgs %}{% for p in m['content'] %}{{ p.text }}{% endfor %}{% endfor %}");
  ASSERT_TRUE(openai.ok());
  EXPECT_TRUE(openai->iterates_message_content());
  auto filtered = Template::Compile(
      "{% for m in messages|selectattr('role') %}{% for p in m.content|list %}{% endfor %}{% endfor %}");
  ASSERT_TRUE(filtered.ok());
  EXPECT_TRUE(filtered->iterates_message_content());
}

TEST(TemplateRender, StrftimeNowUsesFixedClock) {
  auto t = Template::Compile("{{ strftime_now('%Y-%m-%d %H:%M') }}");
  ASSERT_TRUE(t.ok());
  TemplateRenderOptions opt;
  opt.fixed_time_unix = 1767323045;  // 2026-01-02 03:04:05 UTC
  auto out = t->Render(Json::object(), opt);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "2026-01-02 03:04");
  auto now = t->Render(Json::object());
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->size(), 16u);
}

TEST(TemplateRender, ConcurrentRendersOfOneTemplate) {
  auto t = Template::Compile(
      "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + m.k %}{% endfor %}{{ ns.n }}");
  ASSERT_TRUE(t.ok());
  std::vector<std::thread> threads;
  std::vector<std::string> results(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      Json msgs = Json::array();
      for (int j = 0; j <= i; ++j) msgs.push_back({{"k", j}});
      for (int rep = 0; rep < 200; ++rep) results[static_cast<size_t>(i)] = *t->Render({{"messages", msgs}});
    });
  }
  for (auto& th : threads) th.join();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(results[static_cast<size_t>(i)], std::to_string(i * (i + 1) / 2));
}

}  // namespace
}  // namespace gemmad::tmpl
