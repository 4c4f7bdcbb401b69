// SPDX-License-Identifier: MIT
// Timed events over the host's single timer.
#include "scenic/event_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "fake_host.hpp"

namespace scenic::test {
namespace {

TEST(EventQueue, RunsInDeadlineOrderAndRearms) {
    FakeHost host;
    EventQueue q(host);
    std::vector<int> ran;
    q.schedule_in(300, [&] { ran.push_back(3); });
    q.schedule_in(100, [&] { ran.push_back(1); });
    q.schedule_in(200, [&] { ran.push_back(2); });
    ASSERT_TRUE(host.timer.has_value());
    EXPECT_EQ(*host.timer, host.now + 100);
    host.now += 150;
    q.fire();
    EXPECT_EQ(ran, (std::vector<int>{1}));
    EXPECT_EQ(*host.timer, host.now - 150 + 200);
    host.now += 1000;
    q.fire();
    EXPECT_EQ(ran, (std::vector<int>{1, 2, 3}));
    EXPECT_FALSE(host.timer.has_value());
    EXPECT_TRUE(q.empty());
}

TEST(EventQueue, EarlyFireRunsNothing) {
    FakeHost host;
    EventQueue q(host);
    int ran = 0;
    q.schedule_in(100, [&] { ++ran; });
    q.fire();
    EXPECT_EQ(ran, 0);
    EXPECT_TRUE(host.timer.has_value());
}

TEST(EventQueue, CancelAndClear) {
    FakeHost host;
    EventQueue q(host);
    int ran = 0;
    const auto a = q.schedule_in(100, [&] { ran += 1; });
    q.schedule_in(200, [&] { ran += 10; });
    q.cancel(a);
    EXPECT_EQ(*host.timer, host.now + 200);
    q.clear();
    EXPECT_FALSE(host.timer.has_value());
    host.now += 1000;
    q.fire();
    EXPECT_EQ(ran, 0);
}

TEST(EventQueue, EventMayScheduleAnother) {
    FakeHost host;
    EventQueue q(host);
    int ran = 0;
    q.schedule_in(10, [&] {
        ++ran;
        q.schedule_in(0, [&] { ran += 10; });  // due now: runs in the same fire()
    });
    host.now += 10;
    q.fire();
    EXPECT_EQ(ran, 11);
}

}  // namespace
}  // namespace scenic::test
