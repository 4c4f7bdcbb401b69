// SPDX-License-Identifier: MIT
// Timed events of the model on top of the host's single timer (the RTL's notion of time).
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "scenic/host.hpp"

namespace scenic {

class EventQueue {
  public:
    using Id = uint64_t;

    explicit EventQueue(Host& host) : host_(host) {}

    // Run fn at now + delay_ns. Returns an id for cancel().
    Id schedule_in(uint64_t delay_ns, std::function<void()> fn);
    void cancel(Id id);
    // Drop every pending event (device reset).
    void clear();
    // The host timer expired: run what is due, re-arm for the rest.
    void fire();

    [[nodiscard]] bool empty() const { return events_.empty(); }

  private:
    struct Key {
        uint64_t deadline;
        Id id;
        auto operator<=>(const Key&) const = default;
    };
    void rearm();

    Host& host_;
    std::map<Key, std::function<void()>> events_;
    Id next_id_ = 1;
};

}  // namespace scenic
