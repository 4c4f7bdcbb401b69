// SPDX-License-Identifier: MIT
// Counter names come from the uapi header's X-macros: one list for the kernel, the card's status
// page and the runtime.
#include <cerrno>

#include "scenic/scenic.hpp"
#include "slot_handle.hpp"

namespace scenic {

#define SCENIC_RT_NAME(n) #n,
#define SCENIC_RT_VALUE(n) {#n, c.n},

const std::vector<std::string_view>& completion_names() {
    static const std::vector<std::string_view> kNames{
        SCENIC_SCU_COMPLETION_COUNTERS(SCENIC_RT_NAME)};
    return kNames;
}

Counters counters_from(const scenic_scu_counters& c) {
    return Counters{{SCENIC_SCU_COMPLETION_COUNTERS(SCENIC_RT_VALUE)
                         SCENIC_SCU_TRAFFIC_COUNTERS(SCENIC_RT_VALUE)}};
}

#undef SCENIC_RT_NAME
#undef SCENIC_RT_VALUE

uint64_t Counters::at(std::string_view name) const {
    for (const auto& [n, v] : values) {
        if (n == name) {
            return v;
        }
    }
    throw ScenicError(EINVAL, "counter", "no counter named '" + std::string(name) + "'");
}

}  // namespace scenic
