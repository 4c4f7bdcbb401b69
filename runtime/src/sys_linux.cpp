// SPDX-License-Identifier: MIT
// The real system calls behind scenic::sys.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>

#include "scenic/sys.hpp"

namespace scenic::sys {

namespace {

class LinuxSlotFile final : public SlotFile {
  public:
    explicit LinuxSlotFile(int fd) : fd_(fd) {}
    ~LinuxSlotFile() override { ::close(fd_); }
    LinuxSlotFile(const LinuxSlotFile&) = delete;
    LinuxSlotFile& operator=(const LinuxSlotFile&) = delete;

    [[nodiscard]] int fd() const override { return fd_; }
    int ioctl(unsigned long request, void* arg) override {
        return ::ioctl(fd_, request, arg) < 0 ? -errno : 0;
    }
    void* mmap(size_t len, int prot, uint64_t offset, int* err) override {
        void* p = ::mmap(nullptr, len, prot, MAP_SHARED, fd_, static_cast<off_t>(offset));
        if (p == MAP_FAILED) {
            *err = errno;
            return nullptr;
        }
        return p;
    }
    void munmap(void* addr, size_t len) override { ::munmap(addr, len); }
    int poll(int timeout_ms) override {
        pollfd p{fd_, POLLIN, 0};
        for (;;) {
            const int n = ::poll(&p, 1, timeout_ms);
            if (n < 0 && errno == EINTR) {
                continue;  // the timeout restarts: a signal storm is not a use case here
            }
            if (n < 0) {
                return -errno;
            }
            if (n > 0 && (p.revents & (POLLERR | POLLHUP)) != 0) {
                return -ENODEV;  // the card was reset (docs/scu.md 4.3)
            }
            return n;
        }
    }
    ssize_t read(void* buf, size_t len) override {
        const ssize_t n = ::read(fd_, buf, len);
        return n < 0 ? -errno : n;
    }

  private:
    int fd_;
};

class LinuxSystem final : public System {
  public:
    std::unique_ptr<SlotFile> open_slot(unsigned card, unsigned slot, bool owner,
                                        int* err) override {
        const std::string path =
            "/dev/scenic" + std::to_string(card) + "/scu" + std::to_string(slot);
        const int fd = ::open(path.c_str(), (owner ? O_RDWR : O_RDONLY) | O_CLOEXEC);
        if (fd < 0) {
            *err = errno;
            return nullptr;
        }
        return std::make_unique<LinuxSlotFile>(fd);
    }
    std::vector<unsigned> cards() override {
        std::vector<unsigned> out;
        DIR* d = ::opendir("/dev");
        if (d == nullptr) {
            return out;
        }
        while (const dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 6 && n.size() < 12 && n.compare(0, 6, "scenic") == 0 &&
                std::all_of(n.begin() + 6, n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
                out.push_back(static_cast<unsigned>(std::strtoul(n.c_str() + 6, nullptr, 10)));
            }
        }
        ::closedir(d);
        std::sort(out.begin(), out.end());
        return out;
    }
    int make_eventfd() override {
        const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        return fd < 0 ? -errno : fd;
    }
    void close_fd(int fd) override { ::close(fd); }
};

std::mutex g_mu;
std::shared_ptr<System> g_default;

}  // namespace

std::shared_ptr<System> linux_system() {
    static const std::shared_ptr<System> s = std::make_shared<LinuxSystem>();
    return s;
}

std::shared_ptr<System> default_system() {
    const std::lock_guard lock(g_mu);
    return g_default ? g_default : linux_system();
}

void set_default_system(std::shared_ptr<System> s) {
    const std::lock_guard lock(g_mu);
    g_default = std::move(s);
}

}  // namespace scenic::sys
