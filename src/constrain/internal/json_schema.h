// JSON Schema helpers shared by the schema compiler, the allOf merger and the tool-call front end.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "base/result.h"

namespace gemmad::constrain::internal {

using SchemaJson = nlohmann::ordered_json;

// Resolves a local `$ref` ("#", "#/$defs/x", any JSON pointer into the document).
using RefResolver = std::function<Result<const SchemaJson*>(const std::string& ref, const std::string& where)>;

// Keywords that only annotate (ignored); keywords gemmad enforces; keywords it rejects.
bool IsAnnotationKeyword(const std::string& key);
// Returns an Unimplemented error naming `key` when it restricts instances in a way gemmad does not
// enforce (e.g. "not", "uniqueItems": true); OK for supported, annotation and unknown keywords.
Status CheckKeywordSupported(const std::string& key, const SchemaJson& value, const std::string& where);

// Merges the subschemas of `schema`'s allOf (and its other keywords) into one schema without
// allOf, inlining $refs found in the branches. Errors name the keyword that cannot be merged.
Result<SchemaJson> MergeAllOf(const SchemaJson& schema, const RefResolver& resolve, const std::string& where);

// "/properties/a~1b" style pointer segment.
std::string PointerSegment(const std::string& key);

}  // namespace gemmad::constrain::internal
