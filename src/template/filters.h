// Filter implementations (one function per jinja2 filter); the name table is in
// filters_table.cc. Semantics follow jinja2 3.1 filters with transformers' `tojson`.
#pragma once

#include "template/builtins.h"
#include "template/interp.h"

namespace gemmad::tmpl::internal {

// String and number filters (filters_str.cc).
Value FUpper(Interp& in, const Value& v, Args& a);
Value FLower(Interp& in, const Value& v, Args& a);
Value FCapitalize(Interp& in, const Value& v, Args& a);
Value FTitle(Interp& in, const Value& v, Args& a);
Value FTrim(Interp& in, const Value& v, Args& a);
Value FReplace(Interp& in, const Value& v, Args& a);
Value FString(Interp& in, const Value& v, Args& a);
Value FSafe(Interp& in, const Value& v, Args& a);
Value FEscape(Interp& in, const Value& v, Args& a);
Value FIndent(Interp& in, const Value& v, Args& a);
Value FTruncate(Interp& in, const Value& v, Args& a);
Value FWordcount(Interp& in, const Value& v, Args& a);
Value FCenter(Interp& in, const Value& v, Args& a);
Value FFormat(Interp& in, const Value& v, Args& a);
Value FTojson(Interp& in, const Value& v, Args& a);
Value FInt(Interp& in, const Value& v, Args& a);
Value FFloat(Interp& in, const Value& v, Args& a);
Value FAbs(Interp& in, const Value& v, Args& a);
Value FRound(Interp& in, const Value& v, Args& a);

// Sequence and mapping filters (filters_seq.cc).
Value FLength(Interp& in, const Value& v, Args& a);
Value FFirst(Interp& in, const Value& v, Args& a);
Value FLast(Interp& in, const Value& v, Args& a);
Value FList(Interp& in, const Value& v, Args& a);
Value FJoin(Interp& in, const Value& v, Args& a);
Value FDefault(Interp& in, const Value& v, Args& a);
Value FItems(Interp& in, const Value& v, Args& a);
Value FDictsort(Interp& in, const Value& v, Args& a);
Value FSort(Interp& in, const Value& v, Args& a);
Value FUnique(Interp& in, const Value& v, Args& a);
Value FReverse(Interp& in, const Value& v, Args& a);
Value FMap(Interp& in, const Value& v, Args& a);
Value FSelect(Interp& in, const Value& v, Args& a);
Value FReject(Interp& in, const Value& v, Args& a);
Value FSelectattr(Interp& in, const Value& v, Args& a);
Value FRejectattr(Interp& in, const Value& v, Args& a);
Value FSum(Interp& in, const Value& v, Args& a);
Value FMin(Interp& in, const Value& v, Args& a);
Value FMax(Interp& in, const Value& v, Args& a);
Value FAttr(Interp& in, const Value& v, Args& a);
Value FBatch(Interp& in, const Value& v, Args& a);

// Python float() of a string (strips whitespace, accepts inf/nan/underscores); false if invalid.
bool ParsePyFloat(std::string_view s, double* out);
// Python int(s, base) for base 10 (whitespace, sign, underscores); false if invalid.
bool ParsePyInt(std::string_view s, int base, int64_t* out);

}  // namespace gemmad::tmpl::internal
