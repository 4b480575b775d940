// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Errors as values: every libxiw call that can fail returns a Result.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "xiw/export.hpp"

namespace xiw {

/// Why an operation failed.
struct XIW_API Error {
    int code = 0;          ///< positive errno value
    std::string context;   ///< what libxiw was doing
    std::string extack;    ///< the kernel's extended-ack message, if any

    /// "context: strerror(code)", then ": extack" when the kernel said more.
    [[nodiscard]] std::string message() const;
};

/// A value of type T, or the Error that prevented it.
template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
    Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

    [[nodiscard]] bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    [[nodiscard]] const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

/// The value of a Status: success carries nothing.
struct Ok {};
using Status = Result<Ok>;

inline Error make_error(int code, std::string context, std::string extack = {})
{
    return Error{code, std::move(context), std::move(extack)};
}

}  // namespace xiw
