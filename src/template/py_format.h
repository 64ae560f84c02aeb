// Python-compatible text forms of values: str() (what {{ x }} prints), repr() (what a list or
// dict prints for its items), float repr (shortest round trip, '1e-07', '1e+21', '3.0') and
// json.dumps as transformers' `tojson` filter calls it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "template/value.h"

namespace gemmad::tmpl::internal {

// repr(float) as CPython 3 prints it.
void AppendFloatRepr(std::string& out, double d);
std::string FloatRepr(double d);
// repr(str): single quotes unless the text has ' and no ", escapes as CPython.
void AppendStrRepr(std::string& out, std::string_view s);

// str(v). Undefined prints as "" (jinja2 default Undefined).
void AppendPyStr(std::string& out, const Value& v);
std::string PyStr(const Value& v);
// repr(v).
void AppendPyRepr(std::string& out, const Value& v);

struct JsonDumpOptions {
  bool ensure_ascii = false;
  std::optional<std::string> indent;  // nullopt: single line
  std::string item_separator = ", ";  // ", " or "," (with indent: ",")
  std::string key_separator = ": ";
  bool sort_keys = false;
};
// json.dumps(v, ...). Returns false (and sets *error) for values JSON cannot hold
// (Undefined, callables, namespaces, non-string-like dict keys).
bool JsonDumps(const Value& v, const JsonDumpOptions& options, std::string* out,
               std::string* error);

}  // namespace gemmad::tmpl::internal
