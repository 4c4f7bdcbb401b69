// SPDX-License-Identifier: MIT
// ScenicError: every failure of the runtime, a std::system_error with the errno, the load status
// when a LOAD or UNLOAD failed, and a reason that names what was refused.
#pragma once

#include <cstdint>
#include <string>
#include <system_error>

#include "scenic/image.hpp"

namespace scenic {

class ScenicError : public std::system_error {
  public:
    // what(): "<op>: <reason>: <strerror(err)>".
    ScenicError(int err, const std::string& op, std::string reason,
                LoadStatus status = LoadStatus::kOk);

    [[nodiscard]] int errno_value() const { return code().value(); }
    [[nodiscard]] LoadStatus load_status() const { return status_; }
    [[nodiscard]] std::string status_name() const {
        return load_status_name(static_cast<uint32_t>(status_));
    }
    [[nodiscard]] const std::string& reason() const { return reason_; }
    [[nodiscard]] const std::string& op() const { return op_; }

  private:
    std::string op_;
    std::string reason_;
    LoadStatus status_;
};

}  // namespace scenic
