//===- Parser.cpp ---------------------------------------------------------===//
#include "frontend/Parser.h"

#include "frontend/Diagnostics.h"
#include "frontend/HabitHints.h"

namespace megac::fe {

namespace {

/// Thrown-free bailout: every parse function returns null on error and the
/// statement loop resynchronizes.
class Parser {
public:
  Parser(uint32_t file, std::vector<Token> toks, DiagnosticEngine &diags)
      : toks_(std::move(toks)), diags_(diags) {
    file_ = std::make_unique<FileAST>();
    file_->fileId = file;
  }

  std::unique_ptr<FileAST> run() {
    while (!at(Tok::Eof) && !stop())
      if (!parseTopLevel())
        syncTopLevel();
    return std::move(file_);
  }

private:
  //===--------------------------------------------------------------------===//
  // Token helpers
  //===--------------------------------------------------------------------===//

  const Token &tok(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool at(Tok k) const { return tok().kind == k; }
  bool atIdent(const char *name) const {
    return at(Tok::Ident) && tok().text == name;
  }
  const Token &advance() {
    const Token &t = tok();
    if (pos_ + 1 < toks_.size())
      ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (!at(k))
      return false;
    advance();
    return true;
  }
  /// Stop everything once the nesting limit or the error cap is hit.
  bool stop() const { return tooDeep_ || diags_.limitReached(); }
  SourceRange prevRange() const {
    return pos_ > 0 ? toks_[pos_ - 1].range : tok().range;
  }

  bool expect(Tok k, const char *context) {
    if (accept(k))
      return true;
    error(tok().range,
          std::string("expected ") + tokSpelling(k) + " " + context + ", got " +
              describe(tok()),
          hintForUnexpectedToken(prevToken(), tok(), k));
    return false;
  }
  /// The token before the current one (the current one at the start).
  const Token &prevToken() const { return pos_ > 0 ? toks_[pos_ - 1] : tok(); }
  std::string describe(const Token &t) const {
    if (t.kind == Tok::Ident)
      return "'" + t.text.substr(0, 64) + "'";
    return tokSpelling(t.kind);
  }
  void error(SourceRange r, std::string msg, std::string hint = {}) {
    // After the nesting limit only its own error is worth reading; right
    // after bytes the lexer reported, the surprise is that error's echo.
    if (tooDeepReported_ || tok().afterLexError)
      return;
    tooDeepReported_ = tooDeep_;
    diags_.error(r, std::move(msg), std::move(hint));
  }

  /// RAII nesting counter: the limit is reported once, then everything
  /// unwinds.
  struct DepthGuard {
    Parser &p;
    bool ok;
    explicit DepthGuard(Parser &parser) : p(parser) {
      ok = ++p.depth_ <= kMaxNestingDepth && !p.tooDeep_;
      if (!ok && !p.tooDeep_) {
        p.tooDeep_ = true;
        p.error(p.tok().range,
                "nesting is too deep (more than " +
                    std::to_string(kMaxNestingDepth) + " levels)",
                "split the expression with 'let'");
      }
    }
    ~DepthGuard() { --p.depth_; }
  };

  //===--------------------------------------------------------------------===//
  // Recovery
  //===--------------------------------------------------------------------===//

  void syncTopLevel() {
    while (!at(Tok::Eof) && !stop()) {
      Tok k = tok().kind;
      if (k == Tok::KwImport || k == Tok::KwConst || k == Tok::KwFn ||
          k == Tok::KwKernel || k == Tok::At)
        return;
      advance();
    }
  }

  /// Skips the rest of a bad statement: through the next ';', or up to a
  /// '}' closing the enclosing block. Nested braces are skipped whole.
  void syncStatement() {
    int braces = 0;
    while (!at(Tok::Eof) && !stop()) {
      if (at(Tok::LBrace)) {
        ++braces;
      } else if (at(Tok::RBrace)) {
        if (braces == 0)
          return;
        if (--braces == 0) {
          advance();
          return;
        }
      } else if (at(Tok::Semi) && braces == 0) {
        advance();
        return;
      }
      advance();
    }
  }

  //===--------------------------------------------------------------------===//
  // Declarations
  //===--------------------------------------------------------------------===//

  bool parseTopLevel() {
    if (at(Tok::KwImport))
      return parseImport();
    if (at(Tok::KwConst)) {
      ConstantDecl c;
      if (!parseConst(c))
        return false;
      file_->constants.push_back(std::move(c));
      return true;
    }
    if (at(Tok::KwFn))
      return parseHelper();
    if (at(Tok::At) || at(Tok::KwKernel))
      return parseKernel();
    error(tok().range,
          "expected 'import', 'const', 'fn' or 'kernel', got " + describe(tok()),
          at(Tok::Ident) ? hintForTopLevelWord(tok().text) : "");
    advance();
    return false;
  }

  bool parseImport() {
    advance();
    if (!at(Tok::String)) {
      error(tok().range, "expected a quoted path after 'import'",
            "write: import \"common.mega\";");
      return false;
    }
    const Token &path = advance();
    file_->imports.push_back({path.text, path.range});
    return expect(Tok::Semi, "after import");
  }

  /// `const NAME (: T)? = expr ;`
  bool parseConst(ConstantDecl &c) {
    advance();
    if (!at(Tok::Ident)) {
      error(tok().range, "expected a constant name after 'const'");
      return false;
    }
    c.name = tok().text;
    c.range = advance().range;
    if (accept(Tok::Colon)) {
      c.annotation.emplace();
      if (!parseType(*c.annotation))
        return false;
    }
    if (!expect(Tok::Assign, "after the constant name"))
      return false;
    c.init = parseExpr();
    return c.init && expect(Tok::Semi, "after the constant");
  }

  bool parseHelper() {
    advance();
    HelperDecl h;
    if (!at(Tok::Ident)) {
      error(tok().range, "expected a function name after 'fn'");
      return false;
    }
    h.name = tok().text;
    h.range = advance().range;
    if (!expect(Tok::LParen, "after the function name"))
      return false;
    while (!at(Tok::RParen)) {
      if (!at(Tok::Ident)) {
        error(tok().range, "expected a parameter name, got " + describe(tok()),
              "helper parameters are untyped: fn f(a, b) { ... }");
        return false;
      }
      h.params.push_back({tok().text, tok().range});
      advance();
      if (!accept(Tok::Comma))
        break;
    }
    if (!expect(Tok::RParen, "after the parameters"))
      return false;
    if (!parseBlock(h.body))
      return false;
    file_->helpers.push_back(std::move(h));
    return true;
  }

  bool parseKernel() {
    KernelDecl k;
    while (at(Tok::At)) {
      AttributeSyntax a;
      SourceRange at = advance().range;
      if (!this->at(Tok::Ident)) {
        error(tok().range, "expected an attribute name after '@'");
        return false;
      }
      a.name = tok().text;
      advance();
      if (this->at(Tok::LParen) && !parseArgs(a.args))
        return false;
      a.range = SourceRange::join(at, prevRange());
      k.attributes.push_back(std::move(a));
    }
    if (!expect(Tok::KwKernel, "after attributes"))
      return false;
    if (!at(Tok::Ident)) {
      error(tok().range, "expected a kernel name after 'kernel'");
      return false;
    }
    k.name = tok().text;
    k.range = advance().range;
    if (accept(Tok::Less)) {
      while (!at(Tok::Greater)) {
        ConstantDecl c;
        if (!parseConstParam(c))
          return false;
        k.constParams.push_back(std::move(c));
        if (!accept(Tok::Comma))
          break;
      }
      if (!expect(Tok::Greater, "after compile-time parameters"))
        return false;
    }
    if (!expect(Tok::LParen, "after the kernel name"))
      return false;
    while (!at(Tok::RParen)) {
      ParamDecl p;
      if (!parseParam(p, static_cast<int>(k.params.size())))
        return false;
      k.params.push_back(std::move(p));
      if (!accept(Tok::Comma))
        break;
    }
    if (!expect(Tok::RParen, "after the kernel parameters"))
      return false;
    if (!parseBlock(k.body))
      return false;
    file_->kernels.push_back(std::move(k));
    return true;
  }

  /// `NAME: T (= default)?` inside `kernel k<...>`.
  bool parseConstParam(ConstantDecl &c) {
    if (!at(Tok::Ident)) {
      error(tok().range, "expected a compile-time parameter name");
      return false;
    }
    c.name = tok().text;
    c.range = advance().range;
    if (!expect(Tok::Colon, "after the parameter name"))
      return false;
    c.annotation.emplace();
    if (!parseTypeNoTile(*c.annotation))
      return false;
    if (accept(Tok::Assign)) {
      c.init = parseAdditive();
      return c.init != nullptr;
    }
    return true;
  }

  /// `NAME: T ([shape])? (multiple_of N | align N)*`
  bool parseParam(ParamDecl &p, int index) {
    if (!at(Tok::Ident)) {
      error(tok().range, "expected a parameter name, got " + describe(tok()));
      return false;
    }
    p.var = std::make_unique<VarDecl>();
    p.var->kind = VarDecl::Kind::KernelParam;
    p.var->name = tok().text;
    p.var->range = advance().range;
    p.var->paramIndex = index;
    if (!expect(Tok::Colon, "after the parameter name") ||
        !parseTypeNoTile(p.typeRef))
      return false;
    if (accept(Tok::LBracket)) {
      while (!at(Tok::RBracket)) {
        ExprPtr e = parseExpr();
        if (!e)
          return false;
        p.shape.push_back(std::move(e));
        if (!accept(Tok::Comma))
          break;
      }
      if (!expect(Tok::RBracket, "after the shape"))
        return false;
    }
    while (atIdent("multiple_of") || atIdent("align")) {
      bool isAlign = tok().text == "align";
      advance();
      if (!at(Tok::Int)) {
        error(tok().range, std::string("expected an integer after '") +
                               (isAlign ? "align" : "multiple_of") + "'");
        return false;
      }
      SourceRange r = tok().range;
      int64_t v = static_cast<int64_t>(advance().intValue);
      if (v <= 0) {
        error(r, "the value must be positive");
        return false;
      }
      if (isAlign)
        p.align = v;
      else
        p.multipleOf = v;
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  bool parseTypeNoTile(TypeRef &t) {
    if (atIdent("tile")) {
      error(tok().range, "tile types are not allowed here",
            "kernel parameters are scalars or pointers");
      return false;
    }
    return parseType(t);
  }

  /// `f32` | `*f32` | `tile<d0 x d1 x T>`
  bool parseType(TypeRef &t) {
    DepthGuard guard(*this);
    if (!guard.ok)
      return false;
    SourceRange start = tok().range;
    if (atIdent("tile")) {
      advance();
      if (!expect(Tok::Less, "after 'tile'"))
        return false;
      while (true) {
        ExprPtr dim = parseTileDim();
        if (!dim)
          return false;
        t.tileDims.push_back(std::move(dim));
        if (!atIdent("x")) {
          error(tok().range,
                "expected 'x' in tile type, got " + describe(tok()),
                "write tile<128 x 64 x f32>");
          return false;
        }
        advance();
        if (at(Tok::Star) || isScalarTypeName(tok()))
          break;
      }
      if (!parseElementType(t))
        return false;
      if (!expect(Tok::Greater, "to close the tile type"))
        return false;
    } else if (!parseElementType(t)) {
      return false;
    }
    t.range = SourceRange::join(start, prevRange());
    return true;
  }

  static bool isScalarTypeName(const Token &t) {
    return t.kind == Tok::Ident && scalarKindFromName(t.text).has_value();
  }

  bool parseElementType(TypeRef &t) {
    SourceRange start = tok().range;
    t.elem.isPointer = accept(Tok::Star);
    if (!isScalarTypeName(tok())) {
      error(tok().range, "expected a type name, got " + describe(tok()),
            "types are i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 "
            "f8e4m3 f8e5m2 f4e2m1x2 e8m0, pointers *T");
      return false;
    }
    t.elem.scalar = *scalarKindFromName(advance().text);
    t.range = SourceRange::join(start, prevRange());
    return true;
  }

  /// A tile dimension: literal, constant name, or parenthesized expression.
  ExprPtr parseTileDim() {
    if (at(Tok::Int) || at(Tok::Ident) || at(Tok::LParen))
      return parsePrimary();
    error(tok().range, "expected a tile dimension, got " + describe(tok()));
    return nullptr;
  }

  //===--------------------------------------------------------------------===//
  // Statements
  //===--------------------------------------------------------------------===//

  bool parseBlock(Block &out) {
    DepthGuard guard(*this);
    if (!guard.ok || !expect(Tok::LBrace, "to start a block"))
      return false;
    while (!at(Tok::RBrace) && !at(Tok::Eof) && !stop()) {
      if (StmtPtr s = parseStatement())
        out.push_back(std::move(s));
      else
        syncStatement();
    }
    return expect(Tok::RBrace, "to close the block");
  }

  StmtPtr parseStatement() {
    SourceRange start = tok().range;
    switch (tok().kind) {
    case Tok::KwLet:
      return parseLet();
    case Tok::KwFor:
      return parseFor();
    case Tok::KwIf:
      return parseIf();
    case Tok::KwReturn: {
      advance();
      ExprPtr value;
      if (!at(Tok::Semi) && !(value = parseExpr()))
        return nullptr;
      if (!expect(Tok::Semi, "after return"))
        return nullptr;
      return std::make_unique<ReturnStmt>(SourceRange::join(start, prevRange()),
                                          std::move(value));
    }
    default:
      break;
    }
    if (at(Tok::Ident)) {
      Tok next = tok(1).kind;
      if (next == Tok::Assign || next == Tok::PlusAssign ||
          next == Tok::MinusAssign || next == Tok::StarAssign ||
          next == Tok::SlashAssign)
        return parseAssign();
    }
    ExprPtr e = parseExpr();
    if (!e || !expect(Tok::Semi, "after the expression"))
      return nullptr;
    return std::make_unique<ExprStmt>(SourceRange::join(start, prevRange()),
                                      std::move(e));
  }

  StmtPtr parseLet() {
    SourceRange start = advance().range;
    if (!at(Tok::Ident)) {
      error(tok().range,
            "expected a variable name after 'let', got " + describe(tok()));
      return nullptr;
    }
    auto var = std::make_unique<VarDecl>();
    var->name = tok().text;
    var->range = advance().range;
    std::optional<TypeRef> annotation;
    if (accept(Tok::Colon)) {
      annotation.emplace();
      if (!parseType(*annotation))
        return nullptr;
    }
    if (!expect(Tok::Assign, "after the variable name"))
      return nullptr;
    ExprPtr init = parseExpr();
    if (!init || !expect(Tok::Semi, "after the expression"))
      return nullptr;
    auto let = std::make_unique<LetStmt>(SourceRange::join(start, prevRange()),
                                         std::move(var), std::move(init));
    let->annotation = std::move(annotation);
    return let;
  }

  StmtPtr parseAssign() {
    const Token &name = advance();
    SourceRange opRange = tok().range;
    Tok op = advance().kind;
    ExprPtr value = parseExpr();
    if (!value || !expect(Tok::Semi, "after the assignment"))
      return nullptr;
    if (op != Tok::Assign) {
      // x op= e  is  x = x op e
      static const std::pair<Tok, BinaryOp> kOps[] = {
          {Tok::PlusAssign, BinaryOp::Add},
          {Tok::MinusAssign, BinaryOp::Sub},
          {Tok::StarAssign, BinaryOp::Mul},
          {Tok::SlashAssign, BinaryOp::Div}};
      BinaryOp bop = BinaryOp::Add;
      for (const auto &[t, b] : kOps)
        if (t == op)
          bop = b;
      SourceRange whole = SourceRange::join(name.range, value->range);
      value = std::make_unique<BinaryExpr>(
          whole, bop, opRange,
          std::make_unique<NameExpr>(name.range, name.text), std::move(value));
    }
    return std::make_unique<AssignStmt>(
        SourceRange::join(name.range, prevRange()), name.text, name.range,
        std::move(value));
  }

  StmtPtr parseFor() {
    auto f = std::make_unique<ForStmt>(advance().range);
    if (!at(Tok::Ident)) {
      error(tok().range, "expected a loop variable after 'for'");
      return nullptr;
    }
    f->index = std::make_unique<VarDecl>();
    f->index->kind = VarDecl::Kind::LoopIndex;
    f->index->name = tok().text;
    f->index->range = advance().range;
    if (!expect(Tok::KwIn, "after the loop variable"))
      return nullptr;
    if (!atIdent("range")) {
      error(tok().range, "expected 'range(...)' after 'in'",
            "loops are: for i in range(start, end) or range(start, end, step)");
      return nullptr;
    }
    advance();
    std::vector<CallArg> args;
    SourceRange argsStart = tok().range;
    if (!parseArgs(args))
      return nullptr;
    // range(start, end[, step], unroll = N): the keyword comes last.
    if (!args.empty() && args.back().name == "unroll") {
      f->unrollExpr = std::move(args.back().value);
      args.pop_back();
    }
    for (CallArg &a : args)
      if (!a.name.empty()) {
        error(a.nameRange, "range() takes no keyword '" + a.name + "'",
              "its only keyword is unroll = N, last");
        return nullptr;
      }
    if (args.size() < 2 || args.size() > 3) {
      error(SourceRange::join(argsStart, prevRange()),
            "range() takes 2 or 3 arguments, got " + std::to_string(args.size()),
            "write range(start, end) or range(start, end, step)");
      return nullptr;
    }
    f->start = std::move(args[0].value);
    f->end = std::move(args[1].value);
    if (args.size() == 3)
      f->step = std::move(args[2].value);
    f->range = SourceRange::join(f->range, prevRange());
    if (!parseBlock(f->body))
      return nullptr;
    return f;
  }

  StmtPtr parseIf() {
    DepthGuard guard(*this);
    if (!guard.ok)
      return nullptr;
    auto s = std::make_unique<IfStmt>(advance().range);
    s->cond = parseExpr();
    if (!s->cond)
      return nullptr;
    s->range = SourceRange::join(s->range, s->cond->range);
    if (!parseBlock(s->thenBody))
      return nullptr;
    if (accept(Tok::KwElse)) {
      if (at(Tok::KwIf)) {
        StmtPtr nested = parseIf();
        if (!nested)
          return nullptr;
        s->elseBody.push_back(std::move(nested));
      } else if (!parseBlock(s->elseBody)) {
        return nullptr;
      }
    }
    return s;
  }

  //===--------------------------------------------------------------------===//
  // Expressions
  //===--------------------------------------------------------------------===//

  struct BinInfo {
    Tok tok;
    BinaryOp op;
    int prec;
  };
  static const BinInfo *binaryInfo(Tok t) {
    static const BinInfo kOps[] = {
        {Tok::PipePipe, BinaryOp::LogicalOr, 1},
        {Tok::AmpAmp, BinaryOp::LogicalAnd, 2},
        {Tok::Pipe, BinaryOp::BitOr, 3},
        {Tok::Caret, BinaryOp::BitXor, 4},
        {Tok::Amp, BinaryOp::BitAnd, 5},
        {Tok::EqEq, BinaryOp::Eq, 6},
        {Tok::NotEq, BinaryOp::Ne, 6},
        {Tok::Less, BinaryOp::Lt, 7},
        {Tok::LessEq, BinaryOp::Le, 7},
        {Tok::Greater, BinaryOp::Gt, 7},
        {Tok::GreaterEq, BinaryOp::Ge, 7},
        {Tok::Shl, BinaryOp::Shl, 8},
        {Tok::Shr, BinaryOp::Shr, 8},
        {Tok::Plus, BinaryOp::Add, 9},
        {Tok::Minus, BinaryOp::Sub, 9},
        {Tok::Star, BinaryOp::Mul, 10},
        {Tok::Slash, BinaryOp::Div, 10},
        {Tok::Percent, BinaryOp::Rem, 10},
    };
    for (const BinInfo &b : kOps)
      if (b.tok == t)
        return &b;
    return nullptr;
  }

  ExprPtr parseExpr() { return parseBinary(1); }
  /// For `<BLOCK: i32 = 1024>` defaults, where '>' closes the list.
  ExprPtr parseAdditive() { return parseBinary(9); }

  /// Precedence climbing; all binary operators are left-associative.
  ExprPtr parseBinary(int minPrec) {
    DepthGuard guard(*this);
    if (!guard.ok)
      return nullptr;
    ExprPtr lhs = parseUnary();
    while (lhs) {
      const BinInfo *info = binaryInfo(tok().kind);
      if (!info || info->prec < minPrec)
        break;
      SourceRange opRange = advance().range;
      ExprPtr rhs = parseBinary(info->prec + 1);
      if (!rhs)
        return nullptr;
      SourceRange r = SourceRange::join(lhs->range, rhs->range);
      lhs = std::make_unique<BinaryExpr>(r, info->op, opRange, std::move(lhs),
                                         std::move(rhs));
    }
    return lhs;
  }

  ExprPtr parseUnary() {
    DepthGuard guard(*this);
    if (!guard.ok)
      return nullptr;
    UnaryOp op;
    if (at(Tok::Minus))
      op = UnaryOp::Neg;
    else if (at(Tok::Bang))
      op = UnaryOp::Not;
    else if (at(Tok::Tilde))
      op = UnaryOp::BitNot;
    else
      return parseCast();
    SourceRange start = advance().range;
    ExprPtr x = parseUnary();
    if (!x)
      return nullptr;
    return std::make_unique<UnaryExpr>(SourceRange::join(start, x->range), op,
                                       std::move(x));
  }

  /// postfix ('as' T)*: binds tighter than unary operators and '*'.
  ExprPtr parseCast() {
    ExprPtr x = parsePostfix();
    while (x && accept(Tok::KwAs)) {
      TypeRef t;
      if (!parseTypeNoTile(t))
        return nullptr;
      SourceRange r = SourceRange::join(x->range, t.range);
      x = std::make_unique<CastExpr>(r, std::move(x), std::move(t));
    }
    return x;
  }

  ExprPtr parsePostfix() {
    ExprPtr x = parsePrimary();
    while (x) {
      if (at(Tok::LParen)) {
        auto *name = dyn_cast<NameExpr>(x.get());
        if (!name) {
          error(tok().range, "only named functions can be called",
                isa<TypeArgExpr>(x.get())
                    ? "a cast is written 'x as " +
                          cast<TypeArgExpr>(x.get())->typeRef.elem.str() + "'"
                    : "");
          return nullptr;
        }
        auto call = std::make_unique<CallExpr>(x->range, name->name, x->range);
        if (!parseArgs(call->args))
          return nullptr;
        call->range = SourceRange::join(call->range, prevRange());
        x = std::move(call);
      } else if (at(Tok::LBracket)) {
        x = parseIndex(std::move(x));
      } else {
        break;
      }
    }
    return x;
  }

  /// `[: , None, ...]`
  ExprPtr parseIndex(ExprPtr base) {
    advance();
    std::vector<bool> isNewDim;
    while (true) {
      if (accept(Tok::Colon)) {
        isNewDim.push_back(false);
      } else if (accept(Tok::KwNone)) {
        isNewDim.push_back(true);
      } else {
        error(tok().range,
              "expected ':' or 'None' in an index, got " + describe(tok()),
              "indexing only inserts dims: x[:, None] or x[None, :]");
        return nullptr;
      }
      if (!accept(Tok::Comma))
        break;
    }
    if (!expect(Tok::RBracket, "to close the index"))
      return nullptr;
    SourceRange r = SourceRange::join(base->range, prevRange());
    return std::make_unique<IndexExpr>(r, std::move(base), std::move(isNewDim));
  }

  /// `( (name =)? expr, ... )`
  bool parseArgs(std::vector<CallArg> &args) {
    if (!expect(Tok::LParen, "to start the arguments"))
      return false;
    while (!at(Tok::RParen)) {
      CallArg a;
      if (at(Tok::Ident) && tok(1).kind == Tok::Assign) {
        a.name = tok().text;
        a.nameRange = advance().range;
        advance();
      }
      a.value = parseExpr();
      if (!a.value)
        return false;
      args.push_back(std::move(a));
      if (!accept(Tok::Comma))
        break;
    }
    return expect(Tok::RParen, "after the arguments");
  }

  ExprPtr parsePrimary() {
    DepthGuard guard(*this);
    if (!guard.ok)
      return nullptr;
    const Token &t = tok();
    switch (t.kind) {
    case Tok::Int:
      advance();
      return std::make_unique<IntLitExpr>(t.range, t.intValue);
    case Tok::Float:
      advance();
      return std::make_unique<FloatLitExpr>(t.range, t.floatValue);
    case Tok::KwTrue:
    case Tok::KwFalse:
      advance();
      return std::make_unique<BoolLitExpr>(t.range, t.kind == Tok::KwTrue);
    case Tok::Star:
      // A pointer type as an argument (`bitcast(p, *i64)`); `*` has no other
      // meaning at the start of an operand.
      if (!isScalarTypeName(tok(1))) {
        error(t.range, "expected an expression, got " + describe(t),
              hintAtExpressionStart(prevToken(), t));
        return nullptr;
      }
      [[fallthrough]];
    case Tok::Ident: {
      if (t.kind == Tok::Star || isScalarTypeName(t) ||
          (t.text == "tile" && tok(1).kind == Tok::Less)) {
        TypeRef ref;
        if (!parseType(ref))
          return nullptr;
        SourceRange r = ref.range;
        return std::make_unique<TypeArgExpr>(r, std::move(ref));
      }
      advance();
      return std::make_unique<NameExpr>(t.range, t.text);
    }
    case Tok::LParen: {
      advance();
      ExprPtr e = parseExpr();
      if (e && at(Tok::Comma)) {
        error(tok().range, "expected ')' to close the parenthesis, got ','",
              hintForTuple());
        return nullptr;
      }
      if (!e || !expect(Tok::RParen, "to close the parenthesis"))
        return nullptr;
      return e;
    }
    default:
      error(t.range, "expected an expression, got " + describe(t),
            hintAtExpressionStart(prevToken(), t));
      return nullptr;
    }
  }

  std::vector<Token> toks_;
  DiagnosticEngine &diags_;
  std::unique_ptr<FileAST> file_;
  size_t pos_ = 0;
  unsigned depth_ = 0;
  bool tooDeep_ = false;
  bool tooDeepReported_ = false;
};

} // namespace

std::unique_ptr<FileAST> parseFile(uint32_t file, std::vector<Token> tokens,
                                   DiagnosticEngine &diags) {
  if (tokens.empty() || tokens.back().kind != Tok::Eof)
    tokens.push_back(Token{});
  return Parser(file, std::move(tokens), diags).run();
}

} // namespace megac::fe
