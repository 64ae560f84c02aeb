// Every template/context pair of tests/golden/template/jinja_goldens.json (rendered by Python
// jinja2 in transformers' sandboxed environment) must render byte for byte the same here, and
// every case jinja2 rejects must be rejected here too.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "template/chat_template.h"

namespace gemmad::tmpl {
namespace {

Json LoadGoldens() {
  std::ifstream in(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/template/jinja_goldens.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

TEST(JinjaGoldens, EveryCaseMatchesJinja2) {
  Json doc = LoadGoldens();
  const Json& cases = doc.at("cases");
  ASSERT_GE(cases.size(), 200u);
  TemplateRenderOptions options;
  options.fixed_time_unix = doc.at("manifest").at("fixed_time_unix").get<int64_t>();
  int failures = 0;
  for (const Json& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    auto tmpl = Template::Compile(c.at("template").get<std::string>(), name);
    Result<std::string> out = tmpl.ok() ? tmpl->Render(c.at("context"), options)
                                        : Result<std::string>(tmpl.status());
    if (c.contains("error")) {
      if (out.ok()) {
        ++failures;
        ADD_FAILURE() << name << ": jinja2 raised " << c.at("error") << " but we rendered\n["
                      << *out << "]";
      }
      continue;
    }
    const std::string want = c.at("output").get<std::string>();
    if (!out.ok()) {
      ++failures;
      ADD_FAILURE() << name << ": " << out.status().ToString() << "\nwant [" << want << "]";
    } else if (*out != want) {
      ++failures;
      ADD_FAILURE() << name << ":\n got [" << *out << "]\nwant [" << want << "]";
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace gemmad::tmpl
