//===- Lexer.cpp ----------------------------------------------------------===//
#include "frontend/Lexer.h"

#include "frontend/Diagnostics.h"
#include "frontend/HabitHints.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace megac::fe {

const char *tokSpelling(Tok t) {
  static const char *const kSpellings[] = {
      "end of file", "identifier", "integer",  "float",  "string",  "'import'",
      "'const'",     "'fn'",       "'kernel'", "'let'",  "'for'",   "'in'",
      "'if'",        "'else'",     "'return'", "'true'", "'false'", "'as'",
      "'None'",      "'('",        "')'",      "'['",    "']'",     "'{'",
      "'}'",         "','",        "';'",      "':'",    "'@'",     "'='",
      "'+='",        "'-='",       "'*='",     "'/='",   "'+'",     "'-'",
      "'*'",         "'/'",        "'%'",      "'=='",   "'!='",    "'<'",
      "'<='",        "'>'",        "'>='",     "'<<'",   "'>>'",    "'&'",
      "'&&'",        "'|'",        "'||'",     "'^'",    "'!'",     "'~'"};
  return kSpellings[static_cast<int>(t)];
}

namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

Tok keywordOr(std::string_view s) {
  static const std::pair<const char *, Tok> kKeywords[] = {
      {"import", Tok::KwImport}, {"const", Tok::KwConst},
      {"fn", Tok::KwFn},         {"kernel", Tok::KwKernel},
      {"let", Tok::KwLet},       {"for", Tok::KwFor},
      {"in", Tok::KwIn},         {"if", Tok::KwIf},
      {"else", Tok::KwElse},     {"return", Tok::KwReturn},
      {"true", Tok::KwTrue},     {"false", Tok::KwFalse},
      {"as", Tok::KwAs},         {"None", Tok::KwNone}};
  for (const auto &[name, tok] : kKeywords)
    if (s == name)
      return tok;
  return Tok::Ident;
}

class Lexer {
public:
  Lexer(uint32_t file, std::string_view text, DiagnosticEngine &diags)
      : file_(file), text_(text), diags_(diags) {}

  std::vector<Token> run() {
    std::vector<Token> toks;
    while (true) {
      skipTriviaAndJunk();
      if (pos_ >= text_.size() || diags_.limitReached())
        break;
      toks.push_back(next());
    }
    Token eof;
    eof.afterLexError = lexErrorBeforeNext_;
    eof.range = range(static_cast<uint32_t>(text_.size()),
                      static_cast<uint32_t>(text_.size()));
    toks.push_back(eof);
    return toks;
  }

private:
  SourceRange range(uint32_t b, uint32_t e) const { return {file_, b, e}; }
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  /// Whitespace, comments, and bytes that cannot start a token (reported
  /// once per run of junk).
  void skipTriviaAndJunk() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
          c == '\v') {
        newlineBeforeNext_ |= c == '\n';
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] != '\n')
          ++pos_;
        if (endsAnOperandOnThisLine() &&
            readsLikeCode(text_.substr(start + 2, pos_ - start - 2)))
          codeCommentBeforeNext_ = true;
      } else if (c == '/' && peek(1) == '*') {
        size_t start = pos_;
        size_t close = text_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) {
          diags_.error(range(start, start + 2), "unterminated block comment",
                       "close it with '*/'");
          pos_ = text_.size();
        } else {
          newlineBeforeNext_ |=
              text_.substr(start, close - start).find('\n') != std::string_view::npos;
          pos_ = close + 2;
        }
      } else if (startsToken(c)) {
        return;
      } else {
        size_t start = pos_;
        while (pos_ < text_.size() && !startsToken(text_[pos_]) &&
               !isSpace(text_[pos_]))
          ++pos_;
        char buf[64];
        std::snprintf(buf, sizeof buf, "unexpected character (byte 0x%02x)",
                      static_cast<unsigned char>(text_[start]));
        diags_.error(range(start, pos_), buf, hintForStrayCharacter(c));
        lexErrorBeforeNext_ = true;
        // What another language's `#` or `'` starts is skipped whole, so
        // that its words are not read as code: one error, not one a word.
        if (c == '#')
          skipTo('\n', /*through=*/false);
        else if (c == '\'' && pos_ - start == 1)
          skipTo('\'', /*through=*/true);
      }
    }
  }

  /// Moves up to `stop` on this line (past it when `through`), or to the
  /// line's end.
  void skipTo(char stop, bool through) {
    while (pos_ < text_.size() && text_[pos_] != stop && text_[pos_] != '\n')
      ++pos_;
    if (through && pos_ < text_.size() && text_[pos_] == stop)
      ++pos_;
  }

  /// The last token ends an operand (a name, a number, `)` or `]`) on this
  /// line.
  bool endsAnOperandOnThisLine() const {
    bool operand = lastKind_ == Tok::Ident || lastKind_ == Tok::Int ||
                   lastKind_ == Tok::Float || lastKind_ == Tok::RParen ||
                   lastKind_ == Tok::RBracket;
    return operand && hasLast_ && !newlineBeforeNext_;
  }

  /// A comment's text that ends in ';' reads as the rest of a statement.
  static bool readsLikeCode(std::string_view comment) {
    size_t end = comment.find_last_not_of(" \t\r");
    return end != std::string_view::npos && comment[end] == ';';
  }

  static bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }
  static bool startsToken(char c) {
    return isIdentStart(c) || isDigit(c) || c == '"' || c == '.' ||
           std::string_view("()[]{},;:@=+-*/%!<>&|^~").find(c) !=
               std::string_view::npos;
  }

  Token next() {
    size_t start = pos_;
    char c = text_[pos_];
    if (isIdentStart(c)) {
      while (isIdentChar(peek()))
        ++pos_;
      Token t = make(Tok::Ident, start);
      t.text = std::string(text_.substr(start, pos_ - start));
      t.kind = keywordOr(t.text);
      return t;
    }
    if (isDigit(c) || (c == '.' && isDigit(peek(1))))
      return number();
    if (c == '"')
      return string();
    return punct();
  }

  Token make(Tok kind, size_t start) {
    Token t;
    t.kind = kind;
    t.range = range(static_cast<uint32_t>(start), static_cast<uint32_t>(pos_));
    t.afterLexError = lexErrorBeforeNext_;
    t.followsCodeComment = codeCommentBeforeNext_;
    t.firstOnLine = !hasLast_ || newlineBeforeNext_;
    lexErrorBeforeNext_ = codeCommentBeforeNext_ = newlineBeforeNext_ = false;
    hasLast_ = true;
    lastKind_ = kind;
    lastEnd_ = pos_;
    return t;
  }

  Token number() {
    size_t start = pos_;
    if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
      pos_ += 2;
      while (isHexDigit(peek()) || peek() == '_')
        ++pos_;
      return intToken(start, 16, 2);
    }
    while (isDigit(peek()) || peek() == '_')
      ++pos_;
    bool isFloat = false;
    if (peek() == '.' && isDigit(peek(1))) {
      isFloat = true;
      ++pos_;
      while (isDigit(peek()) || peek() == '_')
        ++pos_;
    } else if (peek() == '.' && !isIdentStart(peek(1))) {
      isFloat = true; // "1." is a float
      ++pos_;
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (isDigit(peek(1)) ||
         ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
      isFloat = true;
      pos_ += 2;
      while (isDigit(peek()))
        ++pos_;
    }
    if (isIdentChar(peek())) {
      size_t junk = pos_;
      while (isIdentChar(peek()))
        ++pos_;
      diags_.error(range(junk, pos_), "invalid suffix on numeric literal",
                   "literals take no suffix: a literal takes the type its use "
                   "needs; cast it with 'as' for another (2 as i64)");
    }
    return isFloat ? floatToken(start) : intToken(start, 10, 0);
  }

  /// Literal text without '_' separators.
  std::string withoutSeparators(size_t start, size_t end) const {
    std::string s;
    for (size_t i = start; i < end; ++i)
      if (text_[i] != '_')
        s += text_[i];
    return s;
  }

  Token intToken(size_t start, unsigned base, size_t prefix) {
    size_t end = start + prefix;
    while (end < pos_ && (isHexDigit(text_[end]) || text_[end] == '_') &&
           (base == 16 || isDigit(text_[end]) || text_[end] == '_'))
      ++end;
    Token t = make(Tok::Int, start);
    t.text = std::string(text_.substr(start, pos_ - start));
    uint64_t value = 0;
    bool any = false, overflow = false;
    for (size_t i = start + prefix; i < end; ++i) {
      char c = text_[i];
      if (c == '_')
        continue;
      unsigned d = isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
      any = true;
      if (value > (UINT64_MAX - d) / base)
        overflow = true;
      value = value * base + d;
    }
    if (!any)
      diags_.error(t.range, "hexadecimal literal has no digits");
    // i64 is the widest integer type; INT64_MAX + 1 is accepted here only
    // so that `-9223372036854775808` can be folded by sema.
    if (overflow || value > uint64_t(INT64_MAX) + 1) {
      diags_.error(t.range, "integer literal is too large for i64",
                   "the largest integer is 9223372036854775807");
      value = 0;
    }
    t.intValue = value;
    return t;
  }

  Token floatToken(size_t start) {
    Token t = make(Tok::Float, start);
    t.text = std::string(text_.substr(start, pos_ - start));
    std::string s = withoutSeparators(start, pos_);
    double v = std::strtod(s.c_str(), nullptr);
    if (std::isinf(v)) {
      diags_.error(t.range, "float literal is out of range",
                   "the largest f64 is about 1.8e308");
      v = 0;
    }
    t.floatValue = v;
    return t;
  }

  Token string() {
    size_t start = pos_++;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size() &&
          text_[pos_ + 1] != '\n')
        ++pos_;
      value += text_[pos_++];
    }
    if (peek() != '"') {
      diags_.error(range(start, pos_), "unterminated string literal",
                   "close it with '\"' on the same line");
    } else {
      ++pos_;
    }
    Token t = make(Tok::String, start);
    t.text = std::move(value);
    return t;
  }

  Token punct() {
    size_t start = pos_;
    char c = text_[pos_++];
    auto two = [&](char second, Tok ifTwo, Tok ifOne) {
      if (peek() == second) {
        ++pos_;
        return make(ifTwo, start);
      }
      return make(ifOne, start);
    };
    switch (c) {
    case '(':
      return make(Tok::LParen, start);
    case ')':
      return make(Tok::RParen, start);
    case '[':
      return make(Tok::LBracket, start);
    case ']':
      return make(Tok::RBracket, start);
    case '{':
      return make(Tok::LBrace, start);
    case '}':
      return make(Tok::RBrace, start);
    case ',':
      return make(Tok::Comma, start);
    case ';':
      return make(Tok::Semi, start);
    case ':':
      return make(Tok::Colon, start);
    case '@':
      return make(Tok::At, start);
    case '=':
      return two('=', Tok::EqEq, Tok::Assign);
    case '+':
      return two('=', Tok::PlusAssign, Tok::Plus);
    case '-':
      return two('=', Tok::MinusAssign, Tok::Minus);
    case '*':
      return two('=', Tok::StarAssign, Tok::Star);
    case '/':
      return two('=', Tok::SlashAssign, Tok::Slash);
    case '%':
      return make(Tok::Percent, start);
    case '!':
      return two('=', Tok::NotEq, Tok::Bang);
    case '<':
      if (peek() == '<') {
        ++pos_;
        return make(Tok::Shl, start);
      }
      return two('=', Tok::LessEq, Tok::Less);
    case '>':
      if (peek() == '>') {
        ++pos_;
        return make(Tok::Shr, start);
      }
      return two('=', Tok::GreaterEq, Tok::Greater);
    case '&':
      return two('&', Tok::AmpAmp, Tok::Amp);
    case '|':
      return two('|', Tok::PipePipe, Tok::Pipe);
    case '^':
      return make(Tok::Caret, start);
    case '~':
      return make(Tok::Tilde, start);
    default: { // '.' not followed by a digit
      bool member = hasLast_ && lastEnd_ == start &&
                    (lastKind_ == Tok::Ident || lastKind_ == Tok::RParen ||
                     lastKind_ == Tok::RBracket);
      diags_.error(range(start, pos_), "unexpected '.'",
                   member ? hintForMemberAccess()
                          : "floats need a digit after '.', like '.5'");
      Token placeholder = make(Tok::Eof, start);
      lexErrorBeforeNext_ = true;
      return placeholder;
    }
    }
  }

  uint32_t file_;
  std::string_view text_;
  DiagnosticEngine &diags_;
  size_t pos_ = 0;
  // The last token made, and what came between it and the next.
  bool hasLast_ = false;
  Tok lastKind_ = Tok::Eof;
  size_t lastEnd_ = 0;
  bool lexErrorBeforeNext_ = false;
  bool codeCommentBeforeNext_ = false;
  bool newlineBeforeNext_ = false; // a line ended since the last token
};

} // namespace

std::vector<Token> lex(uint32_t file, std::string_view text,
                       DiagnosticEngine &diags) {
  std::vector<Token> toks = Lexer(file, text, diags).run();
  // A stray '.' lexes as an Eof placeholder; drop it so only one Eof ends
  // the list.
  std::vector<Token> out;
  for (size_t i = 0; i < toks.size(); ++i)
    if (toks[i].kind != Tok::Eof || i + 1 == toks.size())
      out.push_back(std::move(toks[i]));
  return out;
}

} // namespace megac::fe
