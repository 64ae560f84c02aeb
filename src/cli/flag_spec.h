// FlagSpec: one row of a subcommand's flag table. The same table drives parsing (flag_parser),
// `--help` and the README/docs flags table (flag_help), so the three never disagree.
// Invariant: `name` is the canonical spelling (lowercase, dashes, no leading "--").
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace gemmad::cli {

enum class FlagType {
  kBool,        // --x / --no-x (vLLM's BooleanOptionalAction); --x=true|false also accepted
  kInt,         // a decimal integer
  kFloat,       // a decimal number
  kString,      // any string (or one of `choices`)
  kStringList,  // nargs='+': every following argument up to the next flag
  kJson,        // a JSON object; dotted sub-keys (--x.key value) merge into it
  kTokenCount,  // an integer with vLLM's human-readable suffixes: 32k=32000, 32K=32768, 25.6k
  kMmLimits,    // --limit-mm-per-prompt: JSON, "image=4,audio=1" or dotted keys
};

// Whether a flag changes behaviour today.
enum class FlagEffect {
  kEffective,  // implemented
  kAccepted,   // accepted for vLLM compatibility; has no effect yet (logged once when set)
  kUnsupported,  // accepted by the parser; a non-default value is a startup error naming why
};

struct FlagSpec {
  std::string_view name;          // "max-model-len"
  FlagType type;
  std::string_view default_text;  // shown in help; parsed as the initial value ("" = unset)
  std::string_view help;          // one sentence
  FlagEffect effect = FlagEffect::kEffective;
  std::string_view choices = {};  // "auto|half|bfloat16" ("" = any value)
  std::string_view aliases = {};  // extra spellings, space separated: "-tp"
  std::string_view tested_by = {};  // where the behaviour is tested (docs table)
};

using FlagTable = std::span<const FlagSpec>;

// Two tables as one (rows shared by several subcommands, then their own), at compile time.
template <size_t A, size_t B>
constexpr std::array<FlagSpec, A + B> JoinFlags(const FlagSpec (&a)[A], const FlagSpec (&b)[B]) {
  std::array<FlagSpec, A + B> out{};
  for (size_t i = 0; i < A; ++i) out[i] = a[i];
  for (size_t i = 0; i < B; ++i) out[A + i] = b[i];
  return out;
}

}  // namespace gemmad::cli
