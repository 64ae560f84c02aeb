// Parser: tokens -> Program (AST). Errors are InvalidArgument "<name>:<line>:<column>: <what>".
#pragma once

#include <memory>
#include <string_view>

#include "base/result.h"
#include "template/ast.h"

namespace gemmad::tmpl::internal {

Result<std::shared_ptr<Program>> ParseTemplate(std::string_view source, std::string_view name);

}  // namespace gemmad::tmpl::internal
