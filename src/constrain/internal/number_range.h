// Decimal range expressions: the JSON number texts (no exponent) whose value lies within bounds,
// built digit by digit on decimal strings (any magnitude, no floating-point rounding).
#pragma once

#include <optional>
#include <string>

#include "constrain/internal/grammar_ast.h"
#include "constrain/internal/json_builder.h"

namespace gemmad::constrain::internal {

// Integers n with lo <= n <= hi (each bound optional, exclusive bounds honoured, fractional
// bounds rounded inward). Text form: "0" | "-"?[1-9][0-9]*.
ExprId IntegerRangeExpr(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi,
                        GrammarAst& ast);
// Decimal numbers x (text: integer part, optional "." and digits) within the bounds.
ExprId DecimalRangeExpr(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi,
                        GrammarAst& ast);

}  // namespace gemmad::constrain::internal
