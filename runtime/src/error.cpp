// SPDX-License-Identifier: MIT
#include "scenic/error.hpp"

#include <utility>

namespace scenic {

namespace {

std::string message(const std::string& op, const std::string& reason) {
    return reason.empty() ? op : op + ": " + reason;
}

}  // namespace

ScenicError::ScenicError(int err, const std::string& op, std::string reason, LoadStatus status)
    : std::system_error(err, std::generic_category(), message(op, reason)),
      op_(op),
      reason_(std::move(reason)),
      status_(status) {}

}  // namespace scenic
