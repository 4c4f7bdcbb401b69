#include "scenic/dp/icrc.hpp"

#include <zlib.h>

#include <algorithm>

namespace scenic::dp {

uint32_t crc32_update(uint32_t c, std::span<const uint8_t> data) {
    // zlib's crc32() inverts before and after: undo both to get the raw register update.
    uLong z = ~c & 0xffffffffu;
    for (size_t off = 0; off < data.size();) {
        const auto n = static_cast<uInt>(std::min<size_t>(data.size() - off, 1u << 30));
        z = ::crc32(z, data.data() + off, n);
        off += n;
    }
    return ~static_cast<uint32_t>(z);
}

uint32_t roce_icrc(std::span<const uint8_t> p) {
    std::vector<uint8_t> m(p.begin(), p.end() - 4);
    auto set = [&](size_t pos, uint8_t mask) {
        if (pos < m.size()) m[pos] |= mask;
    };
    const unsigned ver = m.empty() ? 0 : m[0] >> 4;
    if (ver == 4) {
        const size_t l4 = 4 * size_t(m[0] & 0xf);
        for (size_t pos : {size_t(1), size_t(8), size_t(10), size_t(11), l4 + 6, l4 + 7, l4 + 12})
            set(pos, 0xff);
    } else if (ver == 6) {
        set(0, 0x0f);  // traffic class, high nibble
        for (size_t pos : {1, 2, 3, 7, 46, 47, 52}) set(pos, 0xff);
    }
    return ~crc32_update(kIcrcSeed, m);
}

IcrcResult icrc_process(std::span<const uint8_t> p, bool generate) {
    IcrcResult r{{p.begin(), p.end()}, false};
    if (p.size() < 4) return r;
    const uint32_t icrc = roce_icrc(p);
    r.ok = true;
    for (size_t i = 0; i < 4; ++i) {
        const uint8_t b = uint8_t(icrc >> (8 * i));
        r.ok = r.ok && p[p.size() - 4 + i] == b;
        if (generate) r.packet[p.size() - 4 + i] = b;
    }
    return r;
}

}  // namespace scenic::dp
