//===- json.h - The small JSON reader/writer behind the manifest -*- C++
//-*-===//
//
// The runtime must not depend on LLVM (llvm::json) or third-party libraries,
// and the manifest needs only plain JSON, so this is a minimal DOM: objects
// keep their key order so that written manifests are stable and diffable.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_JSON_H
#define MEGAC_RUNTIME_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace megac::rt::json {

class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  static Value boolean(bool b);
  static Value integer(int64_t i);
  static Value number(double d);
  static Value string(std::string s);
  static Value array();
  static Value object();

  Kind kind() const { return kind_; }
  bool isInteger() const { return kind_ == Kind::Number && isInt_; }
  bool asBool() const { return bool_; }
  int64_t asInt() const { return int_; }
  double asDouble() const { return isInt_ ? double(int_) : double_; }
  const std::string &asString() const { return string_; }
  const std::vector<Value> &items() const { return items_; }
  const std::vector<std::pair<std::string, Value>> &members() const {
    return members_;
  }
  /// Null when the key is absent.
  const Value *find(std::string_view key) const;

  void push(Value v) { items_.push_back(std::move(v)); }
  void set(std::string key, Value v) {
    members_.emplace_back(std::move(key), std::move(v));
  }

private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  bool isInt_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

/// Throws ManifestError "<source>: JSON error at line L, column C: <what>".
Value parse(std::string_view text, std::string_view source);

/// Two-space indented, one member per line.
std::string write(const Value &value);

const char *kindName(Value::Kind kind);

} // namespace megac::rt::json

#endif // MEGAC_RUNTIME_JSON_H
