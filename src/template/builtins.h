// Tables of the filters, tests and global functions the interpreter knows, looked up by name
// when parsing (a filter/test id is stored in the AST) and called by the interpreter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "template/value.h"

namespace gemmad::tmpl::internal {

class Interp;
struct Expr;

// Evaluated call arguments.
struct Args {
  std::vector<Value> pos;
  std::vector<std::pair<std::string, Value>> kw;
};

using FilterFn = Value (*)(Interp& in, const Value& input, Args& args);
using TestFn = bool (*)(Interp& in, const Value& input, Args& args);
using GlobalFn = Value (*)(Interp& in, Args& args);

int FindFilter(std::string_view name);  // -1 if unknown
int FindTest(std::string_view name);
int FindGlobal(std::string_view name);
FilterFn GetFilter(int id);
TestFn GetTest(int id);
GlobalFn GetGlobal(int id);
std::string_view GlobalName(int id);

// An integer argument (bool counts); anything else fails like Python's TypeError.
int64_t IntArg(Interp& in, const Value& v, const char* what);

// Python-style argument binding: takes parameter `index` from positional args or `name` from
// keyword args; returns `fallback` when absent. Binding errors are thrown as template errors.
class ArgBinder {
 public:
  ArgBinder(Interp& in, Args& args, std::string_view fn, std::vector<std::string_view> params);
  // Fails on unknown keywords or too many positionals.
  void Finish();
  bool Has(size_t index) const;
  Value Get(size_t index, Value fallback = Value()) const;

 private:
  Interp& in_;
  Args& args_;
  std::string_view fn_;
  std::vector<std::string_view> params_;
  std::vector<const Value*> bound_;
};

}  // namespace gemmad::tmpl::internal
