// Result<T>: either a value of type T or a non-ok Status. Accessing the value of an error
// Result is a broken invariant and aborts.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "base/check.h"
#include "base/status.h"

namespace gemmad {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "Result<Status> is not allowed");

 public:
  Result(const T& value) : v_(value) {}                  // NOLINT(google-explicit-constructor)
  Result(T&& value) : v_(std::move(value)) {}            // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {        // NOLINT(google-explicit-constructor)
    GEMMAD_CHECK(!std::get<Status>(v_).ok(), "Result constructed from an ok Status");
  }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U&&, T> &&
                                                    !std::is_same_v<std::decay_t<U>, Status> &&
                                                    !std::is_same_v<std::decay_t<U>, T>>>
  Result(U&& value) : v_(T(std::forward<U>(value))) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  T& value() & {
    CheckOk();
    return std::get<T>(v_);
  }
  const T& value() const& {
    CheckOk();
    return std::get<T>(v_);
  }
  T&& value() && {
    CheckOk();
    return std::get<T>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T value_or(T fallback) const { return ok() ? std::get<T>(v_) : std::move(fallback); }

 private:
  void CheckOk() const {
    GEMMAD_CHECK(ok(), "value() of an error Result: {}", std::get<Status>(v_).ToString());
  }
  std::variant<T, Status> v_;
};

}  // namespace gemmad

#define GEMMAD_CONCAT_INNER_(a, b) a##b
#define GEMMAD_CONCAT_(a, b) GEMMAD_CONCAT_INNER_(a, b)
// GEMMAD_ASSIGN_OR_RETURN(auto x, MaybeX()); returns the Status on error.
#define GEMMAD_ASSIGN_OR_RETURN(lhs, expr) \
  GEMMAD_ASSIGN_OR_RETURN_IMPL_(GEMMAD_CONCAT_(gemmad_result_, __LINE__), lhs, expr)
#define GEMMAD_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
