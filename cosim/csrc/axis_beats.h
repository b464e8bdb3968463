// AXI-Stream beats as the shims see them: tdata in and out of a Verilated
// port, and CNP frames collected from an m_axis_* output.
#pragma once

#include <cstdint>
#include <cstring>

#include "cn_abi.h"

// A DATA_WIDTH-bit tdata port is a QData at 64 bits and a VlWide of 32-bit
// words above; byte 0 of a beat sits in bits 7:0 (little-endian host).
template <int W>
struct MrLanes {
    template <class Port>
    static void set(Port& port, const uint8_t* bytes) {
        for (int w = 0; w < W / 32; ++w) {
            uint32_t v;
            std::memcpy(&v, bytes + 4 * w, 4);
            port[w] = v;
        }
    }
    template <class Port>
    static void get(const Port& port, uint8_t* bytes) {
        for (int w = 0; w < W / 32; ++w) std::memcpy(bytes + 4 * w, &port[w], 4);
    }
};
template <>
struct MrLanes<64> {
    template <class Port>
    static void set(Port& port, const uint8_t* bytes) {
        uint64_t v;
        std::memcpy(&v, bytes, 8);
        port = v;
    }
    template <class Port>
    static void get(const Port& port, uint8_t* bytes) {
        const uint64_t v = port;
        std::memcpy(bytes, &v, 8);
    }
};

// A frame offered on s_axis_* beat by beat: each beat is built once when
// first presented (bytes past the frame's end random), then held unchanged
// until taken, as AXI-Stream requires.
template <int W>
struct MrBeatOffer {
    static constexpr int KEEP = W / 8;
    uint8_t beat[KEEP] = {};
    uint64_t offset = 0;  // bytes of the current frame already taken
    bool presenting = false;
    bool last = false;
    uint32_t bytes = 0;

    template <class Rng>
    void present(const uint8_t* frame, uint64_t len, Rng& rng) {
        const uint64_t remaining = len - offset;
        bytes = static_cast<uint32_t>(remaining < KEEP ? remaining : KEEP);
        last = remaining <= KEEP;
        std::memcpy(beat, frame + offset, bytes);
        for (int i = bytes; i < KEEP; ++i) beat[i] = static_cast<uint8_t>(rng.next());
        presenting = true;
    }
    uint64_t keep() const { return bytes == 64 ? ~0ull : ((1ull << bytes) - 1); }
    // The beat was taken; true when it ended the frame.
    bool taken() {
        presenting = false;
        offset = last ? 0 : offset + bytes;
        return last;
    }
};

// Builds CNP frames from the beats taken on m_axis_* (tuser = emit tick),
// flagging protocol faults.
template <int W>
struct MrCnpCollector {
    static constexpr int KEEP = W / 8;
    mr_cn_cnp frame{};
    uint8_t beat[KEEP] = {};

    // A beat was taken this cycle; a finished frame goes to cnps[*count].
    template <class M>
    void beat_taken(M* top, uint64_t cycle, mr_cn_cnp* cnps, size_t* count) {
        const uint64_t keep = static_cast<uint64_t>(top->m_axis_tkeep);
        const uint64_t all = KEEP == 64 ? ~0ull : ((1ull << KEEP) - 1);
        const bool last = top->m_axis_tlast;
        if (frame.len == 0 && frame.flags == 0) frame.tick = top->m_axis_tuser;
        if (top->m_axis_tuser != frame.tick) frame.flags |= MR_CN_CNP_TUSER_CHANGED;
        if ((!last && keep != all) || (keep & (keep + 1)) != 0) frame.flags |= MR_CN_CNP_BAD_TKEEP;
        MrLanes<W>::get(top->m_axis_tdata, beat);
        for (int i = 0; i < KEEP; ++i) {
            if (!(keep >> i & 1)) continue;
            if (frame.len < MR_CN_CNP_MAX) {
                frame.bytes[frame.len++] = beat[i];
            } else {
                frame.flags |= MR_CN_CNP_TOO_LONG;
            }
        }
        if (last) {
            frame.cycle = cycle;
            cnps[(*count)++] = frame;
            frame = mr_cn_cnp{};
        }
    }
};
