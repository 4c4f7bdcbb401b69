// SPDX-License-Identifier: MIT
// Every system call of the runtime goes through this small interface: open, ioctl, mmap, poll
// and read of a slot's char device. linux_system() is the real one; tests give a fake
// (scenic/fake_card.hpp), so the library is tested on a host without the card or the driver.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace scenic::sys {

// One open /dev/scenic<c>/scu<n>. Calls return 0 (or a count) on success and -errno on failure.
class SlotFile {
  public:
    virtual ~SlotFile() = default;
    // The file descriptor for event loops (-1 when the fake has none).
    [[nodiscard]] virtual int fd() const = 0;
    virtual int ioctl(unsigned long request, void* arg) = 0;
    // A MAP_SHARED mapping of len bytes at offset; nullptr and errno in *err on failure.
    virtual void* mmap(size_t len, int prot, uint64_t offset, int* err) = 0;
    virtual void munmap(void* addr, size_t len) = 0;
    // > 0: readable (an interrupt is pending), 0: timeout.
    virtual int poll(int timeout_ms) = 0;
    virtual ssize_t read(void* buf, size_t len) = 0;
};

class System {
  public:
    virtual ~System() = default;
    // owner: O_RDWR (exclusive), else O_RDONLY. Returns nullptr and errno in *err on failure.
    virtual std::unique_ptr<SlotFile> open_slot(unsigned card, unsigned slot, bool owner,
                                                int* err) = 0;
    // The cards present (/dev/scenic<c>), ascending.
    virtual std::vector<unsigned> cards() = 0;
    // A new eventfd (close with close_fd), or -errno.
    virtual int make_eventfd() = 0;
    virtual void close_fd(int fd) = 0;
};

// The real one: /dev/scenic<c>/scu<n> and the Linux system calls.
std::shared_ptr<System> linux_system();

// The System the library uses when none is given: linux_system() unless a test replaced it.
std::shared_ptr<System> default_system();
void set_default_system(std::shared_ptr<System> s);  // nullptr: back to linux_system()

}  // namespace scenic::sys
