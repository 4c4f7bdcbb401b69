// SPDX-License-Identifier: MIT
#include "scenic/dp/prefilter.hpp"

#include <algorithm>

namespace scenic::dp {

FrameClass classify_frame(std::span<const uint8_t> f) {
    const size_t avail = std::min<size_t>(f.size(), kPrefilterHdrBytes);
    if (avail < 14) return FrameClass::Runt;
    auto b = [&](size_t o) -> unsigned { return o < avail ? f[o] : 0u; };
    auto be16 = [&](size_t o) -> unsigned { return (b(o) << 8) | b(o + 1); };

    const unsigned etype = be16(12);
    if (etype == 0x0800 && avail >= 15) {
        const unsigned ver = b(14) >> 4, ihl = b(14) & 0xf;
        const size_t l4 = 14 + 4 * size_t(ihl);
        const bool ok = ver == 4 && ihl >= 5 && avail >= l4;
        const bool first = (((b(20) & 0x1f) << 8) | b(21)) == 0;
        if (ok && first) {
            const unsigned proto = b(23);
            if (proto == 17 && avail >= l4 + 8 && be16(l4 + 2) == kRoceV2UdpPort)
                return FrameClass::Roce;
            if (proto == 6) return FrameClass::Tcp;
        }
        return FrameClass::Other;
    }
    if (etype == 0x86dd && avail >= 54 && (b(14) >> 4) == 6) {
        const unsigned nh = b(20);
        if (nh == 17 && avail >= 62 && be16(56) == kRoceV2UdpPort) return FrameClass::Roce;
        if (nh == 6) return FrameClass::Tcp;
    }
    return FrameClass::Other;
}

Prefilter::Verdict Prefilter::process(std::span<const uint8_t> frame) {
    const FrameClass cls = classify_frame(frame);
    switch (cls) {
        case FrameClass::Runt:
            ++cnt_.drop_runt;
            return {cls, PrefilterPort::Drop};
        case FrameClass::Roce:
            if (rdma_en_) {
                ++cnt_.rdma_roce;
                return {cls, PrefilterPort::Rdma};
            }
            ++cnt_.host_roce;
            return {cls, PrefilterPort::Host};
        case FrameClass::Tcp:
            ++cnt_.host_tcp;
            return {cls, PrefilterPort::Host};
        case FrameClass::Other:
            break;
    }
    ++cnt_.host_other;
    return {FrameClass::Other, PrefilterPort::Host};
}

}  // namespace scenic::dp
