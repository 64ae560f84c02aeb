// Python str()/repr()/json.dumps text forms. Float repr follows CPython's 'r' mode: shortest
// round-trip digits, exponent form when the decimal exponent is < -4 or >= 16, ".0" appended to
// integral values.
#include "template/py_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

void AppendHex(std::string& out, uint32_t v, int digits) {
  static const char* kHex = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out.push_back(kHex[(v >> (4 * i)) & 0xF]);
}

void AppendSeq(std::string& out, const std::vector<Value>& items, char open, char close) {
  out.push_back(open);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.append(", ");
    AppendPyRepr(out, items[i]);
  }
  out.push_back(close);
}

void AppendList(std::string& out, const Value& v) {
  const ListObj& l = v.list();
  switch (l.kind) {
    case SeqKind::kList:
      AppendSeq(out, l.items, '[', ']');
      return;
    case SeqKind::kTuple:
      if (l.items.size() == 1) {
        out.push_back('(');
        AppendPyRepr(out, l.items[0]);
        out.append(",)");
      } else {
        AppendSeq(out, l.items, '(', ')');
      }
      return;
    case SeqKind::kGenerator:
      out.append("<generator object>");
      return;
    case SeqKind::kDictItems:
      out.append("dict_items(");
      AppendSeq(out, l.items, '[', ']');
      out.push_back(')');
      return;
    case SeqKind::kDictKeys:
      out.append("dict_keys(");
      AppendSeq(out, l.items, '[', ']');
      out.push_back(')');
      return;
    case SeqKind::kDictValues:
      out.append("dict_values(");
      AppendSeq(out, l.items, '[', ']');
      out.push_back(')');
      return;
    case SeqKind::kRange:
      out.append("range(" + std::to_string(l.range_start) + ", " + std::to_string(l.range_stop));
      if (l.range_step != 1) out.append(", " + std::to_string(l.range_step));
      out.push_back(')');
      return;
  }
}

void AppendDict(std::string& out, const DictObj& d) {
  out.push_back('{');
  for (size_t i = 0; i < d.entries.size(); ++i) {
    if (i > 0) out.append(", ");
    AppendPyRepr(out, d.entries[i].first);
    out.append(": ");
    AppendPyRepr(out, d.entries[i].second);
  }
  out.push_back('}');
}

void AppendOther(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::kNamespace: {
      out.append("<Namespace {");
      const auto& attrs = v.ns().attrs;
      for (size_t i = 0; i < attrs.size(); ++i) {
        if (i > 0) out.append(", ");
        AppendStrRepr(out, attrs[i].first);
        out.append(": ");
        AppendPyRepr(out, attrs[i].second);
      }
      out.append("}>");
      return;
    }
    case Type::kCallable: {
      const CallableObj& c = v.callable();
      if (c.kind == CallableKind::kMacro) {
        out.append("<Macro ");
        AppendStrRepr(out, c.name);
        out.push_back('>');
      } else {
        out.append("<built-in function " + c.name + ">");
      }
      return;
    }
    case Type::kLoop: {
      const LoopObj& l = v.loop();
      out.append("<LoopContext " + std::to_string(l.index0 + 1) + "/" +
                 std::to_string(l.items ? l.items->size() : 0) + ">");
      return;
    }
    default:
      return;
  }
}

void AppendJsonString(std::string& out, std::string_view s, bool ensure_ascii) {
  out.push_back('"');
  size_t pos = 0;
  while (pos < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[pos]);
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
      ++pos;
      continue;
    }
    uint32_t cp = NextCodepoint(s, &pos);
    switch (cp) {
      case '"': out.append("\\\""); continue;
      case '\\': out.append("\\\\"); continue;
      case '\n': out.append("\\n"); continue;
      case '\r': out.append("\\r"); continue;
      case '\t': out.append("\\t"); continue;
      case '\b': out.append("\\b"); continue;
      case '\f': out.append("\\f"); continue;
      default: break;
    }
    if (cp < 0x20 || (ensure_ascii && cp >= 0x7F)) {
      if (cp >= 0x10000) {
        uint32_t v = cp - 0x10000;
        out.append("\\u");
        AppendHex(out, 0xD800 + (v >> 10), 4);
        out.append("\\u");
        AppendHex(out, 0xDC00 + (v & 0x3FF), 4);
      } else {
        out.append("\\u");
        AppendHex(out, cp, 4);
      }
    } else {
      AppendCodepoint(out, cp);
    }
  }
  out.push_back('"');
}

void AppendJsonFloat(std::string& out, double d) {
  if (std::isnan(d)) {
    out.append("NaN");
  } else if (std::isinf(d)) {
    out.append(d > 0 ? "Infinity" : "-Infinity");
  } else {
    AppendFloatRepr(out, d);
  }
}

struct JsonWriter {
  const JsonDumpOptions& opt;
  std::string* out;
  std::string* error;
  int depth = 0;

  void Newline() {
    out->push_back('\n');
    for (int i = 0; i < depth; ++i) out->append(*opt.indent);
  }

  bool Key(const Value& k) {
    switch (k.type()) {
      case Type::kString: AppendJsonString(*out, k.str(), opt.ensure_ascii); return true;
      case Type::kBool: out->append(k.bool_value() ? "\"true\"" : "\"false\""); return true;
      case Type::kNone: out->append("\"null\""); return true;
      case Type::kInt: out->append("\"" + std::to_string(k.int_value()) + "\""); return true;
      case Type::kFloat:
        out->push_back('"');
        AppendJsonFloat(*out, k.float_value());
        out->push_back('"');
        return true;
      default:
        *error = "keys must be str, int, float, bool or None, not " + std::string(PyTypeName(k));
        return false;
    }
  }

  bool Seq(const std::vector<Value>& items) {
    if (items.empty()) {
      out->append("[]");
      return true;
    }
    out->push_back('[');
    ++depth;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out->append(opt.item_separator);
      if (opt.indent) Newline();
      if (!Write(items[i])) return false;
    }
    --depth;
    if (opt.indent) Newline();
    out->push_back(']');
    return true;
  }

  bool Map(const DictObj& d) {
    if (d.entries.empty()) {
      out->append("{}");
      return true;
    }
    std::vector<const std::pair<Value, Value>*> order;
    for (const auto& e : d.entries) order.push_back(&e);
    if (opt.sort_keys) {
      for (const auto* e : order) {
        if (!e->first.is_string()) {
          *error = "sort_keys needs string keys";
          return false;
        }
      }
      std::stable_sort(order.begin(), order.end(),
                       [](const auto* a, const auto* b) { return a->first.str() < b->first.str(); });
    }
    out->push_back('{');
    ++depth;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i > 0) out->append(opt.item_separator);
      if (opt.indent) Newline();
      if (!Key(order[i]->first)) return false;
      out->append(opt.key_separator);
      if (!Write(order[i]->second)) return false;
    }
    --depth;
    if (opt.indent) Newline();
    out->push_back('}');
    return true;
  }

  bool Write(const Value& v) {
    if (depth > 512) {
      *error = "value nested too deeply for tojson";
      return false;
    }
    switch (v.type()) {
      case Type::kNone: out->append("null"); return true;
      case Type::kBool: out->append(v.bool_value() ? "true" : "false"); return true;
      case Type::kInt: out->append(std::to_string(v.int_value())); return true;
      case Type::kFloat: AppendJsonFloat(*out, v.float_value()); return true;
      case Type::kString: AppendJsonString(*out, v.str(), opt.ensure_ascii); return true;
      case Type::kList:
        if (v.seq_kind() == SeqKind::kList || v.seq_kind() == SeqKind::kTuple) {
          return Seq(v.list().items);
        }
        break;
      case Type::kDict: return Map(v.dict());
      default: break;
    }
    *error = "Object of type " + std::string(PyTypeName(v)) + " is not JSON serializable";
    return false;
  }
};

}  // namespace

void AppendFloatRepr(std::string& out, double d) {
  if (std::isnan(d)) {
    out.append("nan");
    return;
  }
  if (std::isinf(d)) {
    out.append(d > 0 ? "inf" : "-inf");
    return;
  }
  if (d == 0.0) {
    out.append(std::signbit(d) ? "-0.0" : "0.0");
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  size_t epos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, epos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp = 0;
  std::from_chars(sci.data() + epos + 1 + (sci[epos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exp);
  if (negative) out.push_back('-');
  const int n = static_cast<int>(digits.size());
  if (exp < -4 || exp >= 16) {
    out.push_back(digits[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    int a = exp < 0 ? -exp : exp;
    if (a < 10) out.push_back('0');
    out.append(std::to_string(a));
    return;
  }
  if (exp < 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-exp - 1), '0');
    out.append(digits);
  } else if (exp + 1 >= n) {
    out.append(digits);
    out.append(static_cast<size_t>(exp + 1 - n), '0');
    out.append(".0");
  } else {
    out.append(digits, 0, static_cast<size_t>(exp + 1));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(exp + 1), std::string::npos);
  }
}

std::string FloatRepr(double d) {
  std::string s;
  AppendFloatRepr(s, d);
  return s;
}

void AppendStrRepr(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  out.push_back(quote);
  size_t pos = 0;
  while (pos < s.size()) {
    uint32_t cp = NextCodepoint(s, &pos);
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp == '\n') {
      out.append("\\n");
    } else if (cp == '\r') {
      out.append("\\r");
    } else if (cp == '\t') {
      out.append("\\t");
    } else if (IsPrintable(cp)) {
      AppendCodepoint(out, cp);
    } else if (cp < 0x100) {
      out.append("\\x");
      AppendHex(out, cp, 2);
    } else if (cp < 0x10000) {
      out.append("\\u");
      AppendHex(out, cp, 4);
    } else {
      out.append("\\U");
      AppendHex(out, cp, 8);
    }
  }
  out.push_back(quote);
}

void AppendPyStr(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::kUndefined: return;
    case Type::kString: out.append(v.str()); return;
    default: AppendPyRepr(out, v); return;
  }
}

std::string PyStr(const Value& v) {
  if (v.is_string()) return v.str();
  std::string s;
  AppendPyStr(s, v);
  return s;
}

void AppendPyRepr(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::kUndefined: out.append("Undefined"); return;
    case Type::kNone: out.append("None"); return;
    case Type::kBool: out.append(v.bool_value() ? "True" : "False"); return;
    case Type::kInt: out.append(std::to_string(v.int_value())); return;
    case Type::kFloat: AppendFloatRepr(out, v.float_value()); return;
    case Type::kString: AppendStrRepr(out, v.str()); return;
    case Type::kList: AppendList(out, v); return;
    case Type::kDict: AppendDict(out, v.dict()); return;
    default: AppendOther(out, v); return;
  }
}

bool JsonDumps(const Value& v, const JsonDumpOptions& options, std::string* out,
               std::string* error) {
  JsonWriter w{options, out, error};
  return w.Write(v);
}

}  // namespace gemmad::tmpl::internal
