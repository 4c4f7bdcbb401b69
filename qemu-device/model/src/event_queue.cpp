// SPDX-License-Identifier: MIT
#include "scenic/event_queue.hpp"

#include <utility>

namespace scenic {

EventQueue::Id EventQueue::schedule_in(uint64_t delay_ns, std::function<void()> fn) {
    const Id id = next_id_++;
    const uint64_t now = host_.now_ns();
    const uint64_t deadline = delay_ns > UINT64_MAX - now ? UINT64_MAX : now + delay_ns;
    events_.emplace(Key{deadline, id}, std::move(fn));
    deadline_.emplace(id, deadline);
    rearm();
    return id;
}

void EventQueue::cancel(Id id) {
    const auto it = deadline_.find(id);
    if (it == deadline_.end()) {
        return;
    }
    events_.erase(Key{it->second, id});
    deadline_.erase(it);
    rearm();
}

void EventQueue::clear() {
    events_.clear();
    deadline_.clear();
    host_.timer_cancel();
}

void EventQueue::fire() {
    const uint64_t now = host_.now_ns();
    // An event may schedule or cancel others: take one at a time.
    while (!events_.empty() && events_.begin()->first.deadline <= now) {
        auto node = events_.extract(events_.begin());
        deadline_.erase(node.key().id);
        node.mapped()();
    }
    rearm();
}

void EventQueue::rearm() {
    if (events_.empty()) {
        host_.timer_cancel();
    } else {
        host_.timer_schedule(events_.begin()->first.deadline);
    }
}

}  // namespace scenic
