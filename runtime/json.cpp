//===- json.cpp - The small JSON reader/writer behind the manifest --------===//
#include "json.h"

#include "megac/runtime/error.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace megac::rt::json {

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}

Value Value::integer(int64_t i) {
  Value v;
  v.kind_ = Kind::Number;
  v.isInt_ = true;
  v.int_ = i;
  return v;
}

Value Value::number(double d) {
  Value v;
  v.kind_ = Kind::Number;
  v.double_ = d;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}

Value Value::array() {
  Value v;
  v.kind_ = Kind::Array;
  return v;
}

Value Value::object() {
  Value v;
  v.kind_ = Kind::Object;
  return v;
}

const Value *Value::find(std::string_view key) const {
  for (const auto &[k, v] : members_)
    if (k == key)
      return &v;
  return nullptr;
}

const char *kindName(Value::Kind kind) {
  switch (kind) {
  case Value::Kind::Null:
    return "null";
  case Value::Kind::Bool:
    return "a boolean";
  case Value::Kind::Number:
    return "a number";
  case Value::Kind::String:
    return "a string";
  case Value::Kind::Array:
    return "an array";
  case Value::Kind::Object:
    return "an object";
  }
  return "?";
}

namespace {

// Deep enough for any manifest, shallow enough that hostile input cannot
// overflow the stack.
constexpr int kMaxDepth = 64;

class Parser {
public:
  Parser(std::string_view text, std::string_view source)
      : text_(text), source_(source) {}

  Value parseDocument() {
    Value v = parseValue(0);
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected text after the JSON value");
    return v;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw ManifestError("megac: " + std::string(source_) +
                        ": JSON error at line " + std::to_string(line) +
                        ", column " + std::to_string(column) + ": " + what);
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }

  bool consumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return false;
    pos_ += word.size();
    return true;
  }

  Value parseValue(int depth) {
    if (depth > kMaxDepth)
      fail("nesting deeper than " + std::to_string(kMaxDepth));
    skipSpace();
    if (pos_ >= text_.size())
      fail("unexpected end of input");
    char c = text_[pos_];
    if (c == '{')
      return parseObject(depth);
    if (c == '[')
      return parseArray(depth);
    if (c == '"')
      return Value::string(parseString());
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber();
    if (consumeWord("true"))
      return Value::boolean(true);
    if (consumeWord("false"))
      return Value::boolean(false);
    if (consumeWord("null"))
      return Value();
    fail(std::string("unexpected character '") + c + "'");
  }

  Value parseObject(int depth) {
    ++pos_;
    Value obj = Value::object();
    if (consume('}'))
      return obj;
    do {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        fail("expected a string key");
      std::string key = parseString();
      if (obj.find(key))
        fail("duplicate key \"" + key + "\"");
      expect(':');
      obj.set(std::move(key), parseValue(depth + 1));
    } while (consume(','));
    expect('}');
    return obj;
  }

  Value parseArray(int depth) {
    ++pos_;
    Value arr = Value::array();
    if (consume(']'))
      return arr;
    do {
      arr.push(parseValue(depth + 1));
    } while (consume(','));
    expect(']');
    return arr;
  }

  unsigned parseHex4() {
    if (pos_ + 4 > text_.size())
      fail("truncated \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char h = text_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= unsigned(h - '0');
      else if (h >= 'a' && h <= 'f')
        code |= unsigned(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        code |= unsigned(h - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return code;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += char(code);
    } else if (code < 0x800) {
      out += char(0xC0 | (code >> 6));
      out += char(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += char(0xE0 | (code >> 12));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    } else {
      out += char(0xF0 | (code >> 18));
      out += char(0x80 | ((code >> 12) & 0x3F));
      out += char(0x80 | ((code >> 6) & 0x3F));
      out += char(0x80 | (code & 0x3F));
    }
  }

  std::string parseString() {
    ++pos_; // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size())
        fail("unterminated string");
      char c = text_[pos_++];
      if (c == '"')
        return out;
      if (static_cast<unsigned char>(c) < 0x20)
        fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size())
        fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        unsigned code = parseHex4();
        if (code >= 0xD800 && code < 0xDC00) {
          if (!consumeWord("\\u"))
            fail("unpaired surrogate");
          unsigned low = parseHex4();
          if (low < 0xDC00 || low >= 0xE000)
            fail("unpaired surrogate");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          // A low surrogate without its high one has no UTF-8 encoding.
          fail("unpaired surrogate");
        }
        appendUtf8(out, code);
        break;
      }
      default:
        fail(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  Value parseNumber() {
    size_t start = pos_;
    if (text_[pos_] == '-')
      ++pos_;
    bool integral = true;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        integral = false;
        ++pos_;
      } else {
        break;
      }
    }
    std::string token(text_.substr(start, pos_ - start));
    char *end = nullptr;
    errno = 0;
    if (integral) {
      long long i = std::strtoll(token.c_str(), &end, 10);
      if (end == token.c_str() + token.size() && errno == 0)
        return Value::integer(i);
      if (errno == ERANGE) {
        pos_ = start;
        fail("integer " + token + " out of range");
      }
    } else {
      double d = std::strtod(token.c_str(), &end);
      if (end == token.c_str() + token.size() && std::isfinite(d))
        return Value::number(d);
    }
    pos_ = start;
    fail("bad number '" + token + "'");
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
};

void writeString(std::string &out, const std::string &s) {
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

bool isFlat(const Value &v) {
  for (const Value &item : v.items())
    if (item.kind() == Value::Kind::Array || item.kind() == Value::Kind::Object)
      return false;
  return true;
}

void writeValue(std::string &out, const Value &v, int indent) {
  std::string pad(size_t(indent + 2), ' ');
  switch (v.kind()) {
  case Value::Kind::Null:
    out += "null";
    return;
  case Value::Kind::Bool:
    out += v.asBool() ? "true" : "false";
    return;
  case Value::Kind::Number:
    if (v.isInteger()) {
      out += std::to_string(v.asInt());
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.asDouble());
      out += buf;
    }
    return;
  case Value::Kind::String:
    writeString(out, v.asString());
    return;
  case Value::Kind::Array:
    // Short lists of scalars (shapes, grids) stay on one line.
    if (isFlat(v)) {
      out += '[';
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i)
          out += ", ";
        writeValue(out, v.items()[i], indent);
      }
      out += ']';
      return;
    }
    out += "[\n";
    for (size_t i = 0; i < v.items().size(); ++i) {
      out += pad;
      writeValue(out, v.items()[i], indent + 2);
      out += i + 1 < v.items().size() ? ",\n" : "\n";
    }
    out += std::string(size_t(indent), ' ') + "]";
    return;
  case Value::Kind::Object:
    if (v.members().empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    for (size_t i = 0; i < v.members().size(); ++i) {
      out += pad;
      writeString(out, v.members()[i].first);
      out += ": ";
      writeValue(out, v.members()[i].second, indent + 2);
      out += i + 1 < v.members().size() ? ",\n" : "\n";
    }
    out += std::string(size_t(indent), ' ') + "}";
    return;
  }
}

} // namespace

Value parse(std::string_view text, std::string_view source) {
  return Parser(text, source).parseDocument();
}

std::string write(const Value &value) {
  std::string out;
  writeValue(out, value, 0);
  out += '\n';
  return out;
}

} // namespace megac::rt::json
