//===- ASTPrinter.h - Text forms of the AST ---------------------*- C++ -*-===//
#pragma once

#include "frontend/AST.h"

#include <ostream>
#include <string>

namespace megac::fe {

/// Indented tree of the (typed) module, one node per line with its type:
/// the output of `megac --emit ast`.
void printAST(const Module &module, std::ostream &os);

/// Infix text of an expression, as written but with constants folded:
/// `cdiv(M * I, 1024)`. For grid, shape and `when` expressions in the
/// launch manifest. Casts are transparent (the runtime evaluates in i64);
/// only names, integer/bool literals, unary - ! ~, binary operators and
/// cdiv/min/max calls occur in launch expressions.
std::string manifestExpr(const Expr &e);

} // namespace megac::fe
