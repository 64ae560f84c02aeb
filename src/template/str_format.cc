// str.format(): replacement fields {}, {0}, {name}, {0.attr}, {0[key]}, conversions !s/!r and
// the common format-spec subset [[fill]align][sign][0][width][,][.precision][type] for str, int
// and float values.
#include <cmath>
#include <cstdio>

#include "template/interp.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

struct Spec {
  std::string fill = " ";
  char align = '\0';
  char sign = '-';
  bool zero = false, grouping = false;
  int64_t width = -1, precision = -1;
  char type = '\0';
};

Spec ParseSpec(Interp& in, const std::string& s) {
  Spec sp;
  std::vector<uint32_t> cps;
  for (size_t p = 0; p < s.size();) cps.push_back(NextCodepoint(s, &p));
  size_t i = 0;
  auto is_align = [](uint32_t c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (cps.size() >= 2 && is_align(cps[1])) {
    sp.fill.clear();
    AppendCodepoint(sp.fill, cps[0]);
    sp.align = static_cast<char>(cps[1]);
    i = 2;
  } else if (!cps.empty() && is_align(cps[0])) {
    sp.align = static_cast<char>(cps[0]);
    i = 1;
  }
  if (i < cps.size() && (cps[i] == '+' || cps[i] == '-' || cps[i] == ' ')) sp.sign = static_cast<char>(cps[i++]);
  if (i < cps.size() && cps[i] == '0') {
    sp.zero = true;
    ++i;
  }
  auto number = [&]() {
    int64_t n = 0;
    bool any = false;
    while (i < cps.size() && cps[i] >= '0' && cps[i] <= '9') {
      n = n * 10 + (cps[i++] - '0');
      if (n > 100000) in.Fail("format width too large");
      any = true;
    }
    return any ? n : -1;
  };
  sp.width = number();
  if (i < cps.size() && (cps[i] == ',' || cps[i] == '_')) {
    sp.grouping = true;
    ++i;
  }
  if (i < cps.size() && cps[i] == '.') {
    ++i;
    sp.precision = number();
    if (sp.precision < 0) in.Fail("Format specifier missing precision");
  }
  if (i < cps.size()) sp.type = static_cast<char>(cps[i++]);
  if (i != cps.size()) in.Fail("Invalid format specifier");
  return sp;
}

std::string Group(const std::string& digits) {
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out.push_back(digits[static_cast<size_t>(i)]);
    if ((n - 1 - i) % 3 == 0 && i != n - 1) out.push_back(',');
  }
  return out;
}

std::string ApplySpec(Interp& in, const Value& v, const Spec& sp) {
  std::string body, sign;
  bool numeric = v.is_number();
  if (!numeric || sp.type == 's') {
    if (sp.type != '\0' && sp.type != 's') in.Fail(std::string("Unknown format code '") + sp.type + "' for object of type 'str'");
    body = PyStr(v);
    if (sp.precision >= 0) {
      std::string cut;
      size_t p = 0;
      for (int64_t k = 0; k < sp.precision && p < body.size(); ++k) AppendCodepoint(cut, NextCodepoint(body, &p));
      body = cut;
    }
  } else {
    char t = sp.type;
    bool use_int = v.is_integral() && (t == '\0' || t == 'd' || t == 'n' || t == 'x' || t == 'X' || t == 'o' || t == 'b' || t == 'c');
    double d = v.as_double();
    if (use_int) {
      int64_t x = v.int_value();
      uint64_t mag = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
      if (x < 0) sign = "-";
      char buf[80];
      if (t == 'x' || t == 'X' || t == 'o') {
        std::snprintf(buf, sizeof(buf), t == 'x' ? "%llx" : (t == 'X' ? "%llX" : "%llo"), static_cast<unsigned long long>(mag));
        body = buf;
      } else if (t == 'b') {
        body = mag == 0 ? "0" : "";
        for (uint64_t m = mag; m > 0; m >>= 1) body.insert(body.begin(), static_cast<char>('0' + (m & 1)));
      } else if (t == 'c') {
        AppendCodepoint(body, static_cast<uint32_t>(x));
        sign.clear();
      } else {
        body = std::to_string(mag);
        if (sp.grouping) body = Group(body);
      }
    } else {
      if (std::signbit(d) && !std::isnan(d)) sign = "-";
      double a = std::fabs(d);
      int prec = sp.precision < 0 ? 6 : static_cast<int>(sp.precision);
      std::string fmt = "%.*";
      if (t == '\0') {
        if (sp.precision < 0) {
          body = FloatRepr(a);
        } else {
          char buf[512];
          std::snprintf(buf, sizeof(buf), "%.*g", std::max(prec, 1), a);
          body = buf;
        }
      } else if (t == '%') {
        char buf[512];
        std::snprintf(buf, sizeof(buf), "%.*f", prec, a * 100);
        body = std::string(buf) + "%";
      } else if (t == 'f' || t == 'F' || t == 'e' || t == 'E' || t == 'g' || t == 'G' || t == 'd' || t == 'n') {
        if (t == 'd' || t == 'n') in.Fail("Unknown format code 'd' for object of type 'float'");
        char buf[512];
        std::snprintf(buf, sizeof(buf), (fmt + t).c_str(), prec, a);
        body = buf;
      } else {
        in.Fail(std::string("Unknown format code '") + t + "' for object of type 'float'");
      }
      if (sp.grouping) {
        size_t dot = body.find_first_not_of("0123456789");
        body = Group(body.substr(0, dot)) + (dot == std::string::npos ? "" : body.substr(dot));
      }
    }
    if (sign.empty() && sp.sign == '+') sign = "+";
    if (sign.empty() && sp.sign == ' ') sign = " ";
  }
  int64_t len = static_cast<int64_t>(CodepointCount(sign) + CodepointCount(body));
  if (sp.width <= len) return sign + body;
  int64_t pad = sp.width - len;
  char align = sp.align ? sp.align : (numeric && sp.type != 's' ? '>' : '<');
  std::string fill = sp.fill;
  if (sp.zero && !sp.align) {
    align = '=';
    fill = "0";
  }
  auto rep = [&](int64_t n) {
    std::string s;
    for (int64_t k = 0; k < n; ++k) s += fill;
    return s;
  };
  switch (align) {
    case '<': return sign + body + rep(pad);
    case '^': return rep(pad / 2) + sign + body + rep(pad - pad / 2);
    case '=': return sign + rep(pad) + body;
    default: return rep(pad) + sign + body;
  }
}

}  // namespace

std::string StrFormat(Interp& in, const std::string& fmt, Args& args) {
  std::string out;
  size_t auto_index = 0;
  bool used_auto = false, used_manual = false;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out.push_back('}');
        ++i;
        continue;
      }
      in.Fail("Single '}' encountered in format string");
    }
    if (c != '{') {
      out.push_back(c);
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out.push_back('{');
      ++i;
      continue;
    }
    size_t close = fmt.find('}', i);
    if (close == std::string::npos) in.Fail("Single '{' encountered in format string");
    std::string field = fmt.substr(i + 1, close - i - 1);
    i = close;
    std::string spec, conv;
    size_t colon = field.find(':');
    if (colon != std::string::npos) {
      spec = field.substr(colon + 1);
      field.resize(colon);
    }
    size_t bang = field.find('!');
    if (bang != std::string::npos) {
      conv = field.substr(bang + 1);
      field.resize(bang);
    }
    size_t head_end = field.find_first_of(".[");
    std::string head = field.substr(0, head_end);
    Value v;
    if (head.empty()) {
      if (used_manual) in.Fail("cannot switch from manual field specification to automatic field numbering");
      used_auto = true;
      if (auto_index >= args.pos.size()) in.Fail("Replacement index " + std::to_string(auto_index) + " out of range for positional args tuple");
      v = args.pos[auto_index++];
    } else if (head.find_first_not_of("0123456789") == std::string::npos) {
      if (used_auto) in.Fail("cannot switch from automatic field numbering to manual field specification");
      used_manual = true;
      size_t k = static_cast<size_t>(std::stoul(head.substr(0, 9)));
      if (k >= args.pos.size()) in.Fail("Replacement index " + head + " out of range for positional args tuple");
      v = args.pos[k];
    } else {
      bool found = false;
      for (auto& [name, val] : args.kw) {
        if (name == head) {
          v = val;
          found = true;
        }
      }
      if (!found) in.Fail("KeyError: '" + head + "'");
    }
    size_t p = head_end;
    while (p != std::string::npos && p < field.size()) {
      if (field[p] == '.') {
        size_t e = field.find_first_of(".[", p + 1);
        v = in.GetAttr(v, field.substr(p + 1, e == std::string::npos ? std::string::npos : e - p - 1));
        p = e;
      } else {
        size_t e = field.find(']', p);
        if (e == std::string::npos) in.Fail("Missing ']' in format string");
        std::string key = field.substr(p + 1, e - p - 1);
        bool digits = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos;
        v = in.GetItem(v, digits ? Value::Int(std::stoll(key.substr(0, 18))) : S(key));
        p = e + 1;
      }
    }
    if (conv == "r" || conv == "a") {
      std::string r;
      AppendPyRepr(r, v);
      v = S(r);
    } else if (conv == "s") {
      v = S(PyStr(v));
    } else if (!conv.empty()) {
      in.Fail("Unknown conversion specifier " + conv);
    }
    out += spec.empty() ? PyStr(v) : ApplySpec(in, v, ParseSpec(in, spec));
    in.CheckSize(out.size());
  }
  return out;
}

}  // namespace gemmad::tmpl::internal
