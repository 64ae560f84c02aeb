// Python arithmetic and comparison semantics: int/float promotion (bool is an int), floor
// division and modulo with the sign of the divisor, true division, `**`, str/list repetition and
// concatenation, ordering of numbers, strings and sequences, and printf-style `%` formatting.
#include <cmath>
#include <cstdio>

#include "template/interp.h"
#include "template/py_format.h"
#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

const char* OpSymbol(BinOp op) {
  switch (op) {
    case BinOp::kAdd: return "+";
    case BinOp::kSub: return "-";
    case BinOp::kMul: return "*";
    case BinOp::kDiv: return "/";
    case BinOp::kFloorDiv: return "//";
    case BinOp::kMod: return "%";
    case BinOp::kPow: return "**";
  }
  return "?";
}

// CPython's float_divmod.
void FloatDivMod(double vx, double wx, double* floordiv, double* modulo) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0.0) {
    if ((wx < 0) != (mod < 0)) {
      mod += wx;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, wx);
  }
  double fd;
  if (div != 0.0) {
    fd = std::floor(div);
    if (div - fd > 0.5) fd += 1.0;
  } else {
    fd = std::copysign(0.0, vx / wx);
  }
  *floordiv = fd;
  *modulo = mod;
}

bool IsPlainSeq(const Value& v, SeqKind kind) { return v.is_list() && v.seq_kind() == kind; }

}  // namespace

Value Interp::Binary(BinOp op, const Value& l, const Value& r) {
  if (l.is_undefined()) FailUndefined(l);
  if (r.is_undefined()) FailUndefined(r);
  if (l.is_number() && r.is_number()) {
    bool ints = l.is_integral() && r.is_integral();
    int64_t a = ints ? l.int_value() : 0, b = ints ? r.int_value() : 0;
    double x = l.as_double(), y = r.as_double();
    int64_t res = 0;
    switch (op) {
      case BinOp::kAdd:
        if (!ints) return Value::Float(x + y);
        if (__builtin_add_overflow(a, b, &res)) Fail("integer overflow");
        return Value::Int(res);
      case BinOp::kSub:
        if (!ints) return Value::Float(x - y);
        if (__builtin_sub_overflow(a, b, &res)) Fail("integer overflow");
        return Value::Int(res);
      case BinOp::kMul:
        if (!ints) return Value::Float(x * y);
        if (__builtin_mul_overflow(a, b, &res)) Fail("integer overflow");
        return Value::Int(res);
      case BinOp::kDiv:
        if (y == 0.0) Fail("division by zero");
        return Value::Float(x / y);
      case BinOp::kFloorDiv:
      case BinOp::kMod: {
        if (ints) {
          if (b == 0) Fail(op == BinOp::kMod ? "integer modulo by zero" : "integer division or modulo by zero");
          if (a == INT64_MIN && b == -1) Fail("integer overflow");
          int64_t q = a / b, m = a % b;
          if (m != 0 && ((m < 0) != (b < 0))) {
            q -= 1;
            m += b;
          }
          return Value::Int(op == BinOp::kMod ? m : q);
        }
        if (y == 0.0) Fail(op == BinOp::kMod ? "float modulo" : "float floor division by zero");
        double fd, md;
        FloatDivMod(x, y, &fd, &md);
        return Value::Float(op == BinOp::kMod ? md : fd);
      }
      case BinOp::kPow: {
        if (ints && b >= 0) {
          int64_t result = 1, base = a;
          int64_t e = b;
          while (e > 0) {
            if (e & 1) {
              if (__builtin_mul_overflow(result, base, &result)) Fail("integer overflow");
            }
            e >>= 1;
            if (e > 0 && __builtin_mul_overflow(base, base, &base)) Fail("integer overflow");
          }
          return Value::Int(result);
        }
        if (x == 0.0 && y < 0) Fail("0.0 cannot be raised to a negative power");
        double p = std::pow(x, y);
        if (std::isnan(p) && !std::isnan(x) && !std::isnan(y)) Fail("complex result of '**' is not supported");
        if (std::isinf(p) && std::isfinite(x) && std::isfinite(y)) Fail("numerical result out of range");
        return Value::Float(p);
      }
    }
  }
  if (op == BinOp::kAdd) {
    if (l.is_string() && r.is_string()) {
      CheckSize(l.str().size() + r.str().size());
      return S(l.str() + r.str());
    }
    for (SeqKind k : {SeqKind::kList, SeqKind::kTuple}) {
      if (IsPlainSeq(l, k) && IsPlainSeq(r, k)) {
        std::vector<Value> items = l.list().items;
        items.insert(items.end(), r.list().items.begin(), r.list().items.end());
        return Value::List(std::move(items), k);
      }
    }
  }
  if (op == BinOp::kMul) {
    const Value* seq = l.is_integral() ? &r : &l;
    const Value* count = l.is_integral() ? &l : &r;
    if (count->is_integral()) {
      int64_t n = std::max<int64_t>(0, count->int_value());
      if (seq->is_string()) {
        CheckSize(static_cast<size_t>(n) * seq->str().size());
        std::string s;
        s.reserve(static_cast<size_t>(n) * seq->str().size());
        for (int64_t i = 0; i < n; ++i) s += seq->str();
        return S(std::move(s));
      }
      for (SeqKind k : {SeqKind::kList, SeqKind::kTuple}) {
        if (IsPlainSeq(*seq, k)) {
          CheckSize(static_cast<size_t>(n) * seq->list().items.size() * sizeof(Value));
          std::vector<Value> items;
          for (int64_t i = 0; i < n; ++i) {
            items.insert(items.end(), seq->list().items.begin(), seq->list().items.end());
          }
          return Value::List(std::move(items), k);
        }
      }
    }
  }
  if (op == BinOp::kMod && l.is_string()) return S(PercentFormat(l.str(), r));
  Fail(std::string("unsupported operand type(s) for ") + OpSymbol(op) + ": '" +
       std::string(PyTypeName(l)) + "' and '" + std::string(PyTypeName(r)) + "'");
}

namespace {

template <typename T>
bool ApplyOrder(CmpOp op, const T& a, const T& b) {
  switch (op) {
    case CmpOp::kLt: return a < b;
    case CmpOp::kLe: return a <= b;
    case CmpOp::kGt: return a > b;
    case CmpOp::kGe: return a >= b;
    default: return false;
  }
}

const char* CmpSymbol(CmpOp op) {
  switch (op) {
    case CmpOp::kLt: return "<";
    case CmpOp::kLe: return "<=";
    case CmpOp::kGt: return ">";
    case CmpOp::kGe: return ">=";
    default: return "?";
  }
}

}  // namespace

bool Interp::Compare(CmpOp op, const Value& l, const Value& r) {
  switch (op) {
    case CmpOp::kEq: return PyEquals(l, r);
    case CmpOp::kNe: return !PyEquals(l, r);
    case CmpOp::kIn: return Contains(r, l);
    case CmpOp::kNotIn: return !Contains(r, l);
    default: break;
  }
  if (l.is_number() && r.is_number()) {
    if (l.is_integral() && r.is_integral()) return ApplyOrder(op, l.int_value(), r.int_value());
    return ApplyOrder(op, l.as_double(), r.as_double());
  }
  if (l.is_string() && r.is_string()) return ApplyOrder(op, l.str(), r.str());
  for (SeqKind k : {SeqKind::kList, SeqKind::kTuple}) {
    if (IsPlainSeq(l, k) && IsPlainSeq(r, k)) {
      const auto& x = l.list().items;
      const auto& y = r.list().items;
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (!PyEquals(x[i], y[i])) return Compare(op, x[i], y[i]);
      }
      return ApplyOrder(op, x.size(), y.size());
    }
  }
  Fail(std::string("'") + CmpSymbol(op) + "' not supported between instances of '" +
       std::string(PyTypeName(l)) + "' and '" + std::string(PyTypeName(r)) + "'");
}

bool Interp::Less(const Value& a, const Value& b) { return Compare(CmpOp::kLt, a, b); }

std::string Interp::PercentFormat(const std::string& fmt, const Value& args) {
  std::vector<Value> list;
  const DictObj* mapping = nullptr;
  if (IsPlainSeq(args, SeqKind::kTuple)) {
    list = args.list().items;
  } else {
    if (args.is_dict()) mapping = &args.dict();
    list.push_back(args);
  }
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (++i >= fmt.size()) Fail("incomplete format");
    const Value* arg = nullptr;
    if (fmt[i] == '(') {
      size_t close = fmt.find(')', i);
      if (close == std::string::npos || mapping == nullptr) Fail("format requires a mapping");
      const Value* v = mapping->FindStr(std::string_view(fmt).substr(i + 1, close - i - 1));
      if (v == nullptr) Fail("KeyError in format: " + fmt.substr(i + 1, close - i - 1));
      arg = v;
      i = close + 1;
    }
    std::string spec = "%";
    while (i < fmt.size() && std::string_view("-+ #0").find(fmt[i]) != std::string_view::npos) spec.push_back(fmt[i++]);
    while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') spec.push_back(fmt[i++]);
    if (i < fmt.size() && fmt[i] == '.') {
      spec.push_back(fmt[i++]);
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') spec.push_back(fmt[i++]);
    }
    while (i < fmt.size() && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L')) ++i;
    if (i >= fmt.size()) Fail("incomplete format");
    char conv = fmt[i];
    if (conv == '%') {
      out.push_back('%');
      continue;
    }
    if (arg == nullptr) {
      if (mapping != nullptr && list.size() == 1 && next == 0) {
        arg = &list[0];
        next = 1;
      } else {
        if (next >= list.size()) Fail("not enough arguments for format string");
        arg = &list[next++];
      }
    }
    char buf[512];
    switch (conv) {
      case 's':
      case 'r':
      case 'a': {
        std::string s = conv == 's' ? PyStr(*arg) : [&] { std::string t; AppendPyRepr(t, *arg); return t; }();
        int n = std::snprintf(buf, sizeof(buf), (spec + "s").c_str(), s.c_str());
        if (n >= static_cast<int>(sizeof(buf)) || s.size() > 256) {
          out += s;  // very long values: no padding
        } else {
          out.append(buf);
        }
        break;
      }
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'o':
      case 'c': {
        if (!arg->is_number()) Fail(std::string("%") + conv + " format: a real number is required, not " + std::string(PyTypeName(*arg)));
        long long v = arg->is_integral() ? arg->int_value() : static_cast<long long>(arg->float_value());
        if (conv == 'c') {
          AppendCodepoint(out, static_cast<uint32_t>(v));
          break;
        }
        char c = conv == 'i' || conv == 'u' ? 'd' : conv;
        std::snprintf(buf, sizeof(buf), (spec + "ll" + c).c_str(), v);
        out.append(buf);
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G': {
        if (!arg->is_number()) Fail(std::string("must be real number, not ") + std::string(PyTypeName(*arg)));
        std::snprintf(buf, sizeof(buf), (spec + conv).c_str(), arg->as_double());
        out.append(buf);
        break;
      }
      default:
        Fail(std::string("unsupported format character '") + conv + "'");
    }
    CheckSize(out.size());
  }
  if (mapping == nullptr && next < list.size()) Fail("not all arguments converted during string formatting");
  return out;
}

}  // namespace gemmad::tmpl::internal
