// Regex compiler: recursive-descent parser (Oniguruma/Ruby syntax subset) to an AST, then
// emission of the backtracking program. Unsupported syntax is an error naming it.
#include <fmt/format.h>

#include <cctype>

#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {

namespace {

struct Node {
  enum Kind { kSet, kAny, kConcat, kAlt, kRepeat, kLook, kNegLook, kAtomic, kBol, kEol, kBegin, kEnd } kind;
  int set = -1;
  std::vector<std::unique_ptr<Node>> kids;
  int min = 0, max = -1;
  bool greedy = true;
};
using NodeP = std::unique_ptr<Node>;

NodeP Make(Node::Kind k) {
  auto n = std::make_unique<Node>();
  n->kind = k;
  return n;
}

bool Nullable(const Node& n) {
  switch (n.kind) {
    case Node::kSet:
    case Node::kAny: return false;
    case Node::kConcat:
      for (auto& k : n.kids) {
        if (!Nullable(*k)) return false;
      }
      return true;
    case Node::kAlt:
      for (auto& k : n.kids) {
        if (Nullable(*k)) return true;
      }
      return false;
    case Node::kRepeat: return n.min == 0 || Nullable(*n.kids[0]);
    case Node::kAtomic: return Nullable(*n.kids[0]);
    default: return true;
  }
}

// Lowercased property name without '_', '-', ' '.
std::string NormName(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (c != '_' && c != '-' && c != ' ') r.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return r;
}

// Category bitmask for a general-category property name; 0 when unknown.
uint32_t CategoryMask(std::string_view name) {
  static const char* const kShort[] = {"lu", "ll", "lt", "lm", "lo", "mn", "mc", "me", "nd", "nl",
                                       "no", "pc", "pd", "ps", "pe", "pi", "pf", "po", "sm", "sc",
                                       "sk", "so", "zs", "zl", "zp", "cc", "cf", "cs", "co", "cn"};
  static const char* const kLong[] = {
      "uppercaseletter", "lowercaseletter", "titlecaseletter", "modifierletter", "otherletter",
      "nonspacingmark", "spacingmark", "enclosingmark", "decimalnumber", "letternumber",
      "othernumber", "connectorpunctuation", "dashpunctuation", "openpunctuation",
      "closepunctuation", "initialpunctuation", "finalpunctuation", "otherpunctuation",
      "mathsymbol", "currencysymbol", "modifiersymbol", "othersymbol", "spaceseparator",
      "lineseparator", "paragraphseparator", "control", "format", "surrogate", "privateuse",
      "unassigned"};
  std::string n = NormName(name);
  for (int i = 0; i < 30; ++i) {
    if (n == kShort[i] || n == kLong[i]) return 1u << i;
  }
  auto range = [](int a, int b) { return ((1u << (b + 1)) - 1) & ~((1u << a) - 1); };
  if (n == "l" || n == "letter") return range(0, 4);
  if (n == "m" || n == "mark" || n == "combiningmark") return range(5, 7);
  if (n == "n" || n == "number") return range(8, 10);
  if (n == "p" || n == "punctuation" || n == "punct") return range(11, 17);
  if (n == "s" || n == "symbol") return range(18, 21);
  if (n == "z" || n == "separator") return range(22, 24);
  if (n == "c" || n == "other") return range(25, 29);
  return 0;
}

}  // namespace

class RegexCompiler {
 public:
  RegexCompiler(std::string_view pattern, Regex* re) : p_(pattern), re_(re) {}

  Status Compile() {
    NodeP root = ParseAlt();
    if (!err_.empty()) return Error(err_);
    if (i_ < p_.size()) return Error(fmt::format("unexpected ')' at offset {}", i_));
    re_->start_ = 0;
    Emit(*root);
    re_->prog_.push_back({Regex::Op::kMatch});
    if (!err_.empty()) return Error(err_);
    return OkStatus();
  }

 private:
  Status Error(const std::string& what) {
    return UnimplementedError(fmt::format("regex \"{}\": {}", p_, what));
  }
  bool AtEnd() const { return i_ >= p_.size(); }
  char32_t PeekCp() const {
    size_t j = i_;
    return unicode::DecodeUtf8(p_, &j);
  }
  char32_t NextCp() { return unicode::DecodeUtf8(p_, &i_); }
  void Fail(std::string what) {
    if (err_.empty()) err_ = std::move(what);
  }

  int AddSet(Regex::CharSet set) {
    re_->sets_.push_back(std::move(set));
    return static_cast<int>(re_->sets_.size()) - 1;
  }
  // Adds `c` (and its case variants under (?i)) to `set`.
  void AddChar(char32_t c, Regex::CharSet* set) {
    set->ranges.emplace_back(c, c);
    if (!icase_) return;
    if (c < 0x80 && std::isalpha(static_cast<int>(c))) {
      char32_t lo = static_cast<char32_t>(std::tolower(static_cast<int>(c)));
      char32_t up = static_cast<char32_t>(std::toupper(static_cast<int>(c)));
      set->ranges.emplace_back(lo, lo);
      set->ranges.emplace_back(up, up);
      if (lo == 's') set->ranges.emplace_back(0x17F, 0x17F);  // LATIN SMALL LETTER LONG S
      if (lo == 'k') set->ranges.emplace_back(0x212A, 0x212A);  // KELVIN SIGN
    } else if (c >= 0x80 && unicode::IsLetter(unicode::GetCategory(c))) {
      Fail(fmt::format("case-insensitive non-ASCII letter U+{:04X}", static_cast<uint32_t>(c)));
    }
  }
  void AddRange(char32_t a, char32_t b, Regex::CharSet* set) {
    if (icase_ && a < 0x80 && b < 0x80) {
      for (char32_t c = a; c <= b; ++c) AddChar(c, set);
      return;
    }
    if (icase_) Fail("case-insensitive non-ASCII range");
    set->ranges.emplace_back(a, b);
  }

  // After \p or \P: "{Name}" or "{^Name}" (general categories only).
  void ParseProperty(bool negated, Regex::CharSet* set) {
    if (AtEnd() || p_[i_] != '{') return Fail("\\p without {name}");
    size_t close = p_.find('}', i_);
    if (close == std::string_view::npos) return Fail("unterminated \\p{");
    std::string_view name = p_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    if (!name.empty() && name[0] == '^') negated = !negated, name.remove_prefix(1);
    uint32_t mask = CategoryMask(name);
    if (mask == 0) return Fail(fmt::format("unsupported property \\p{{{}}}", name));
    if (icase_ && (mask & 0x7)) Fail("case-insensitive cased-letter property");
    if (negated) mask = ~mask & ((1u << 30) - 1);
    set->categories |= mask;
  }

  // After \x or \u: \xHH, \x{H..}, \uHHHH.
  char32_t ParseHexEscape(char32_t kind) {
    size_t j = i_;
    const bool brace = kind == 'x' && j < p_.size() && p_[j] == '{';
    if (brace) ++j;
    const size_t max_digits = brace ? 8 : (kind == 'x' ? 2 : 4);
    uint32_t v = 0;
    size_t k = 0;
    while (j < p_.size() && k < max_digits && std::isxdigit(static_cast<unsigned char>(p_[j]))) {
      const char h = p_[j];
      v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
      ++j, ++k;
    }
    if (k == 0 || (brace && (j >= p_.size() || p_[j] != '}')) || (kind == 'u' && k != 4) || v > 0x10FFFF) {
      Fail("bad \\x/\\u escape");
      return 0;
    }
    i_ = brace ? j + 1 : j;
    return v;
  }

  // After a backslash: fills `set` for a class escape and returns true, or returns false with
  // `*lit` set for a literal escape.
  bool ParseEscape(Regex::CharSet* set, char32_t* lit) {
    if (AtEnd()) {
      Fail("trailing backslash");
      return false;
    }
    char32_t c = NextCp();
    switch (c) {
      case 's': set->specials |= 1; return true;
      case 'S': set->specials |= 2; return true;
      case 'w': set->specials |= 4; return true;
      case 'W': set->specials |= 8; return true;
      case 'd': set->specials |= 16; return true;
      case 'D': set->specials |= 32; return true;
      case 'p':
      case 'P':
        ParseProperty(c == 'P', set);
        return true;
      case 'n': *lit = '\n'; return false;
      case 'r': *lit = '\r'; return false;
      case 't': *lit = '\t'; return false;
      case 'f': *lit = '\f'; return false;
      case 'v': *lit = '\v'; return false;
      case 'a': *lit = 0x07; return false;
      case 'e': *lit = 0x1B; return false;
      case 'x':
      case 'u':
        *lit = ParseHexEscape(c);
        return false;
      default:
        if (c < 0x80 && std::isalnum(static_cast<int>(c))) {
          Fail(fmt::format("unsupported escape \\{}", static_cast<char>(c)));
          return false;
        }
        *lit = c;
        return false;
    }
  }

  NodeP ParseClass() {  // after '['
    Regex::CharSet set;
    if (!AtEnd() && p_[i_] == '^') set.negated = true, ++i_;
    bool first = true;
    while (true) {
      if (AtEnd()) {
        Fail("unterminated [");
        return Make(Node::kSet);
      }
      char32_t c = NextCp();
      if (c == ']' && !first) break;
      first = false;
      if (c == '[') {
        Fail("nested character class");
        return Make(Node::kSet);
      }
      if (c == '&' && !AtEnd() && p_[i_] == '&') {
        Fail("class intersection &&");
        return Make(Node::kSet);
      }
      char32_t lo = c;
      if (c == '\\') {
        if (ParseEscape(&set, &lo)) continue;
      }
      if (!AtEnd() && p_[i_] == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        char32_t hi = NextCp();
        if (hi == '\\') {
          Regex::CharSet dummy;
          if (ParseEscape(&dummy, &hi)) {
            Fail("class escape as a range end");
            return Make(Node::kSet);
          }
        }
        if (hi < lo) {
          Fail("inverted range in class");
          return Make(Node::kSet);
        }
        AddRange(lo, hi, &set);
      } else {
        AddChar(lo, &set);
      }
    }
    auto n = Make(Node::kSet);
    n->set = AddSet(std::move(set));
    return n;
  }

  NodeP ParseAtom() {
    char32_t c = NextCp();
    switch (c) {
      case '.': return Make(Node::kAny);
      case '^': return Make(Node::kBol);
      case '$': return Make(Node::kEol);
      case '[': return ParseClass();
      case '(': return ParseGroup();
      case '\\': {
        if (!AtEnd() && (p_[i_] == 'A' || p_[i_] == 'z')) {
          return Make(p_[i_++] == 'A' ? Node::kBegin : Node::kEnd);
        }
        if (!AtEnd() && std::string_view("bBGZhHkgKR").find(p_[i_]) != std::string_view::npos) {
          Fail(fmt::format("unsupported escape \\{}", p_[i_]));
          return Make(Node::kBegin);
        }
        Regex::CharSet set;
        char32_t lit = 0;
        if (!ParseEscape(&set, &lit)) AddChar(lit, &set);
        auto n = Make(Node::kSet);
        n->set = AddSet(std::move(set));
        return n;
      }
      case '*':
      case '+':
      case '?':
        Fail("quantifier without a target");
        return Make(Node::kBegin);
      default: {
        Regex::CharSet set;
        AddChar(c, &set);
        auto n = Make(Node::kSet);
        n->set = AddSet(std::move(set));
        return n;
      }
    }
  }

  NodeP ParseGroup() {  // after '('
    bool saved = icase_;
    Node::Kind kind = Node::kConcat;
    if (!AtEnd() && p_[i_] == '?') {
      ++i_;
      char c = AtEnd() ? '\0' : p_[i_++];
      if (c == ':') {
      } else if (c == '=') {
        kind = Node::kLook;
      } else if (c == '!') {
        kind = Node::kNegLook;
      } else if (c == '>') {
        kind = Node::kAtomic;
      } else if (c == 'i' && !AtEnd() && (p_[i_] == ':' || p_[i_] == ')')) {
        icase_ = true;
        if (p_[i_++] == ')') return nullptr;  // (?i) applies to the rest of the enclosing group
      } else {
        Fail(fmt::format("unsupported group (?{}", c));
        return Make(Node::kBegin);
      }
    }
    NodeP body = ParseAlt();
    icase_ = saved;
    if (AtEnd() || p_[i_] != ')') {
      Fail("missing )");
      return body;
    }
    ++i_;
    if (kind == Node::kConcat) return body;
    auto n = Make(kind);
    n->kids.push_back(std::move(body));
    return n;
  }

  bool ParseBraces(int* min, int* max) {
    size_t j = i_ + 1;
    auto num = [&](int* v) {
      size_t s = j;
      long r = 0;
      while (j < p_.size() && std::isdigit(static_cast<unsigned char>(p_[j])) && r < 100000) r = r * 10 + (p_[j++] - '0');
      *v = static_cast<int>(r);
      return j > s;
    };
    int lo = 0, hi = -1;
    bool has_lo = num(&lo);
    if (j < p_.size() && p_[j] == ',') {
      ++j;
      if (!num(&hi)) hi = -1;
      else if (!has_lo) lo = 0;
    } else {
      if (!has_lo) return false;
      hi = lo;
    }
    if (j >= p_.size() || p_[j] != '}' || (!has_lo && hi < 0)) return false;
    if (hi >= 0 && hi < lo) return false;
    if (lo > 1000 || hi > 1000) {
      Fail("repeat count over 1000");
      return false;
    }
    i_ = j + 1;
    *min = lo, *max = hi;
    return true;
  }

  NodeP ParseRepeat() {
    NodeP atom = ParseAtom();
    while (!AtEnd() && err_.empty()) {
      int min, max;
      char c = p_[i_];
      if (c == '*') min = 0, max = -1, ++i_;
      else if (c == '+') min = 1, max = -1, ++i_;
      else if (c == '?') min = 0, max = 1, ++i_;
      else if (c == '{' && ParseBraces(&min, &max)) {
      } else break;
      if (atom->kind == Node::kBol || atom->kind == Node::kEol || atom->kind == Node::kBegin ||
          atom->kind == Node::kEnd || atom->kind == Node::kLook || atom->kind == Node::kNegLook) {
        Fail("quantified anchor or lookaround");
      }
      auto rep = Make(Node::kRepeat);
      rep->min = min, rep->max = max;
      bool possessive = false;
      if (!AtEnd() && p_[i_] == '?') rep->greedy = false, ++i_;
      else if (!AtEnd() && p_[i_] == '+' && c != '{') possessive = true, ++i_;
      if (max < 0 && Nullable(*atom)) Fail("unbounded repeat of an expression that can match empty");
      rep->kids.push_back(std::move(atom));
      if (possessive) {
        atom = Make(Node::kAtomic);
        atom->kids.push_back(std::move(rep));
      } else {
        atom = std::move(rep);
      }
    }
    return atom;
  }

  NodeP ParseConcat() {
    auto cat = Make(Node::kConcat);
    while (!AtEnd() && p_[i_] != '|' && p_[i_] != ')' && err_.empty()) {
      NodeP n = ParseRepeat();
      if (n == nullptr) continue;  // an inline flag group
      cat->kids.push_back(std::move(n));
    }
    return cat;
  }

  NodeP ParseAlt() {
    auto alt = Make(Node::kAlt);
    alt->kids.push_back(ParseConcat());
    while (!AtEnd() && p_[i_] == '|' && err_.empty()) {
      ++i_;
      alt->kids.push_back(ParseConcat());
    }
    if (alt->kids.size() == 1) return std::move(alt->kids[0]);
    return alt;
  }

  int32_t Pc() const { return static_cast<int32_t>(re_->prog_.size()); }
  int32_t Push(Regex::Op op, int32_t x = 0, int32_t y = 0) {
    re_->prog_.push_back({op, x, y});
    return Pc() - 1;
  }

  void Emit(const Node& n) {
    using Op = Regex::Op;
    switch (n.kind) {
      case Node::kSet: Push(Op::kSet, n.set); break;
      case Node::kAny: Push(Op::kAny); break;
      case Node::kBol: Push(Op::kBol); break;
      case Node::kEol: Push(Op::kEol); break;
      case Node::kBegin: Push(Op::kBegin); break;
      case Node::kEnd: Push(Op::kEnd); break;
      case Node::kConcat:
        for (auto& k : n.kids) Emit(*k);
        break;
      case Node::kAlt: {
        std::vector<int32_t> jumps;
        for (size_t k = 0; k < n.kids.size(); ++k) {
          int32_t split = -1;
          if (k + 1 < n.kids.size()) split = Push(Op::kSplit);
          if (split >= 0) re_->prog_[split].x = Pc();
          Emit(*n.kids[k]);
          if (k + 1 < n.kids.size()) {
            jumps.push_back(Push(Op::kJmp));
            re_->prog_[split].y = Pc();
          }
        }
        for (int32_t j : jumps) re_->prog_[j].x = Pc();
        break;
      }
      case Node::kRepeat: {
        for (int k = 0; k < n.min; ++k) Emit(*n.kids[0]);
        if (n.max < 0) {
          int32_t loop = Push(Op::kSplit);
          Emit(*n.kids[0]);
          Push(Op::kJmp, loop);
          SetSplit(loop, loop + 1, Pc(), n.greedy);
        } else {
          std::vector<int32_t> splits;
          for (int k = n.min; k < n.max; ++k) {
            splits.push_back(Push(Op::kSplit));
            Emit(*n.kids[0]);
          }
          for (int32_t s : splits) SetSplit(s, s + 1, Pc(), n.greedy);
        }
        break;
      }
      case Node::kLook:
      case Node::kNegLook:
      case Node::kAtomic: {
        Op op = n.kind == Node::kLook ? Op::kLookahead : n.kind == Node::kNegLook ? Op::kNegLookahead : Op::kAtomic;
        int32_t at = Push(op);
        Emit(*n.kids[0]);
        Push(Op::kMatch);
        re_->prog_[at].y = Pc();
        break;
      }
    }
  }
  void SetSplit(int32_t at, int32_t body, int32_t exit, bool greedy) {
    re_->prog_[at].x = greedy ? body : exit;
    re_->prog_[at].y = greedy ? exit : body;
  }

  std::string_view p_;
  Regex* re_;
  size_t i_ = 0;
  bool icase_ = false;
  std::string err_;
};

Result<std::shared_ptr<const Regex>> Regex::Compile(std::string_view pattern) {
  auto re = std::make_shared<Regex>();
  re->pattern_ = std::string(pattern);
  RegexCompiler compiler(re->pattern_, re.get());
  GEMMAD_RETURN_IF_ERROR(compiler.Compile());
  return std::shared_ptr<const Regex>(std::move(re));
}

}  // namespace gemmad::tokenizer
