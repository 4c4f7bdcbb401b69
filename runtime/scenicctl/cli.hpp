// SPDX-License-Identifier: MIT
// scenicctl's commands, callable in-process (main.cpp, and the tests on the fake card).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "scenic/sys.hpp"

namespace scenic::ctl {

// Exit codes (scenicctl(8)).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;    // the system, driver or card refused; a bad image
inline constexpr int kExitUsage = 2;    // bad command line
inline constexpr int kExitTimeout = 3;  // wait-irq: no interrupt before the timeout

// args without the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        std::shared_ptr<sys::System> sys = nullptr);

}  // namespace scenic::ctl
