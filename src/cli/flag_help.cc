// Help and Markdown rendering of flag tables.
#include "cli/flag_help.h"

#include <fmt/format.h>

#include "base/strings.h"

namespace gemmad::cli {
namespace {

std::string Metavar(const FlagSpec& spec) {
  if (!spec.choices.empty()) return "{" + StrJoin(StrSplit(spec.choices, '|'), ",") + "}";
  switch (spec.type) {
    case FlagType::kBool: return "";
    case FlagType::kInt: return "INT";
    case FlagType::kFloat: return "FLOAT";
    case FlagType::kString: return "STR";
    case FlagType::kStringList: return "STR [STR ...]";
    case FlagType::kJson: return "JSON";
    case FlagType::kTokenCount: return "N (e.g. 8192, 32k, 32K)";
    case FlagType::kMmLimits: return "JSON | k=v,...";
  }
  return "";
}

std::string Spellings(const FlagSpec& spec) {
  std::string s = fmt::format("--{}", spec.name);
  if (spec.type == FlagType::kBool) s += fmt::format(", --no-{}", spec.name);
  for (const std::string& a : StrSplit(spec.aliases, ' ')) {
    if (!a.empty()) s += ", " + a;
  }
  return s;
}

std::string EffectText(const FlagSpec& spec) {
  switch (spec.effect) {
    case FlagEffect::kEffective: return "yes";
    case FlagEffect::kAccepted: return "accepted, no effect yet";
    case FlagEffect::kUnsupported: return "only the default value works";
  }
  return "";
}

std::string EscapeCell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

}  // namespace

std::string FormatHelp(std::string_view usage, std::string_view description,
                       const std::vector<FlagGroup>& groups) {
  std::string out = fmt::format("usage: {}\n\n{}\n", usage, description);
  for (const FlagGroup& group : groups) {
    out += fmt::format("\n{}:\n", group.title);
    for (const FlagSpec& spec : group.flags) {
      std::string meta = Metavar(spec);
      out += fmt::format("  {}{}{}\n", Spellings(spec), meta.empty() ? "" : " ", meta);
      std::string line = std::string(spec.help);
      if (!spec.default_text.empty()) line += fmt::format(" (default: {})", spec.default_text);
      if (spec.effect != FlagEffect::kEffective) line += fmt::format(" [{}]", EffectText(spec));
      out += fmt::format("      {}\n", line);
    }
  }
  out += "\nNames accept '_' for '-'; values may follow '=' or a space; JSON flags take dotted\n"
         "sub-keys (--limit-mm-per-prompt.audio 0). Run with --help=markdown for the docs table.\n";
  return out;
}

std::string FormatMarkdownTable(const std::vector<FlagGroup>& groups) {
  std::string out;
  for (const FlagGroup& group : groups) {
    out += fmt::format("\n**{}**\n\n", group.title);
    out += "| flag | value | default | takes effect | tested by | meaning |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const FlagSpec& spec : group.flags) {
      std::string meta = Metavar(spec);
      out += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", EscapeCell(Spellings(spec)),
                         meta.empty() ? "bool" : "`" + EscapeCell(meta) + "`",
                         spec.default_text.empty() ? "—" : "`" + EscapeCell(spec.default_text) + "`",
                         EffectText(spec), spec.tested_by.empty() ? "—" : EscapeCell(spec.tested_by),
                         EscapeCell(spec.help));
    }
  }
  return out;
}

}  // namespace gemmad::cli
