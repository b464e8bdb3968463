// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

/*
 * RoCEv2 header parser: AXI-Stream frames in, one metadata record per frame
 * out, in frame order. Contract and error classes: SPEC.md §3.
 *
 * Pipeline: all stages advance together (ce) while the output skid buffer
 * has room. s_axis_tready is that buffer's registered ready, so no
 * combinational path runs from m_meta_ready to s_axis_tready. Each layer is
 * placed in the stage after the bytes that place it:
 *   S1  input register: the beat (null lanes zeroed), its first byte's
 *       position, the header window (bytes 0-129), and whether bytes 12-13,
 *       16-17 and 20-21 hold a VLAN TPID, IPv4, IPv6 or MAC Control,
 *       compared as they arrive.
 *   S2  Ethernet: VLAN tags and EtherType; the IP header aligned out of the
 *       window; the frame length; where the IP header starts.
 *   S3  IP: header length; the UDP header aligned; where it starts.
 *   S4  UDP: where the datagram, and so the ICRC, ends. A frame's record
 *       fields that need no check wait in a RAM slot until S9.
 *   S5-S9  ICRC and IPv4 checksum per beat (roce_parser_icrc.v), and the
 *       layer checks from S3's header fields (roce_parser_check.v).
 *   Skid buffer: S9's record into the output register, or into the spare
 *       when the sink stalled in the cycle before.
 * One beat per cycle, no bubble between frames; latency 10 cycles from the
 * last beat taken to the record handed over (sink ready). Before issue 15
 * this was 3 stages, S3 checking every layer in one cycle.
 *
 * Each stage works from the header window as it stood with its beat in S1.
 * A layer's position and fields hold from the beat with its first byte on
 * (no earlier beat has bytes at or past it), and on a frame's last beat
 * they are the frame's. Positions relative to a beat are kept small
 * (u_of), so that each lane's tests compare a few bits.
 *
 * | port                 | width      | meaning                                 |
 * |----------------------|------------|-----------------------------------------|
 * | s_axis_tdata         | DATA_WIDTH | frame bytes, byte 0 in bits 7:0          |
 * | s_axis_tkeep         | KEEP_WIDTH | all ones but on tlast: contiguous from 0 |
 * | s_axis_tready        | 1          | registered (skid buffer)                 |
 * | s_axis_tlast         | 1          | last beat of the frame                   |
 * | s_axis_tuser         | 1          | on tlast: MAC bad frame (error mac_error)|
 * | m_meta_valid/ready   | 1          | one record per frame                     |
 * | m_meta_frame_class   | 2          | 0 roce, 1 non_roce, 2 error,             |
 * |                      |            | 3 flow_control                           |
 * | m_meta_error         | 5          | 0 none, else the error class code        |
 * | m_meta_frame_len     | 17         | frame bytes, saturating at 0x1FFFF       |
 * | m_meta_eth_valid     | 1          | eth_type, vlan_* fields hold             |
 * | m_meta_vlan_count    | 2          | VLAN tags stripped (0..2)                |
 * | m_meta_vlan_pcp/id   | 3/12       | outer tag (when vlan_count > 0)          |
 * | m_meta_eth_type      | 16         | EtherType after the tags                 |
 * | m_meta_eth_dst/src   | 48/48      | MACs, first wire byte in 47:40           |
 * | m_meta_ip_valid      | 1          | ip_version, dscp, ecn, ip_src/dst hold   |
 * | m_meta_ip_src/dst    | 128/128    | IPs, first wire byte in 127:120; IPv4    |
 * |                      |            | (by EtherType) in 31:0                   |
 * | m_meta_udp_valid     | 1          | udp_sport, udp_dport hold                |
 * | m_meta_bth_valid     | 1          | every BTH field holds                    |
 * | m_meta_<ext>_valid   | 1          | that extension header's fields hold      |
 * | m_meta_icrc_valid    | 1          | icrc, icrc_ok, payload_len hold          |
 * | m_meta_icrc          | 32         | the 4 ICRC bytes, first on wire in 31:24 |
 * | m_meta_cnp_valid     | 1          | a CNP whose reserved bytes carry the     |
 * |                      |            | MetaRoCE tag 4D 01 or 4D 02 (SPEC 6.3)   |
 * | m_meta_cnp_extent    | 16         | its CE extent, Q1.15                     |
 * | m_meta_cnp_v2        | 1          | the tag is v2's (4D 02, SPEC.md 6.9):    |
 * |                      |            | the four fields below hold               |
 * | m_meta_cnp_flags     | 8          | bit 0 CE, 1 proactive, 2 refresh         |
 * | m_meta_cnp_share     | 16         | F, Q1.15 of the receiver's line rate     |
 * | m_meta_cnp_active    | 16         | N_act, the senders the receiver counts   |
 * | m_meta_cnp_seq       | 16         | F's sequence number                      |
 * | m_meta_sack_valid    | 1          | an ACK with the selective-ACK extension  |
 * |                      |            | (4D 53 01 after the AETH, SPEC 6.10)     |
 * | m_meta_sack_beyond   | 1          | its flag byte's bit 0                    |
 * | m_meta_sack_bitmap   | 64         | its bitmap, first wire byte in 63:56     |
 * | m_meta_mac_control_* | 1/16       | valid; the MAC Control opcode (PAUSE,    |
 * |                      |            | PFC, or unknown_mac_control_opcode)      |
 * | m_meta_pause_*       | 1/16       | valid; a PAUSE frame's pause time        |
 * | m_meta_pfc_valid     | 1          | pfc_enable, pfc_quanta hold              |
 * | m_meta_pfc_enable    | 16         | class-enable vector, bit p = priority p  |
 * | m_meta_pfc_quanta    | 128        | pause times, priority 0 in 127:112       |
 */
module roce_parser #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire                   s_axis_tuser,

    output wire                   m_meta_valid,
    input  wire                   m_meta_ready,
    output wire [1:0]             m_meta_frame_class,
    output wire [4:0]             m_meta_error,
    output wire [16:0]            m_meta_frame_len,
    output wire                   m_meta_eth_valid,
    output wire [1:0]             m_meta_vlan_count,
    output wire [2:0]             m_meta_vlan_pcp,
    output wire [11:0]            m_meta_vlan_id,
    output wire [15:0]            m_meta_eth_type,
    output wire [47:0]            m_meta_eth_dst,
    output wire [47:0]            m_meta_eth_src,
    output wire                   m_meta_ip_valid,
    output wire [3:0]             m_meta_ip_version,
    output wire [5:0]             m_meta_dscp,
    output wire [1:0]             m_meta_ecn,
    output wire [127:0]           m_meta_ip_src,
    output wire [127:0]           m_meta_ip_dst,
    output wire                   m_meta_udp_valid,
    output wire [15:0]            m_meta_udp_sport,
    output wire [15:0]            m_meta_udp_dport,
    output wire                   m_meta_bth_valid,
    output wire [7:0]             m_meta_opcode,
    output wire                   m_meta_se,
    output wire                   m_meta_mig_req,
    output wire [1:0]             m_meta_pad_cnt,
    output wire [3:0]             m_meta_tver,
    output wire [15:0]            m_meta_pkey,
    output wire                   m_meta_fecn,
    output wire                   m_meta_becn,
    output wire [23:0]            m_meta_dest_qp,
    output wire                   m_meta_ack_req,
    output wire [23:0]            m_meta_psn,
    output wire                   m_meta_icrc_valid,
    output wire [31:0]            m_meta_icrc,
    output wire                   m_meta_icrc_ok,
    output wire [15:0]            m_meta_payload_len,
    output wire                   m_meta_reth_valid,
    output wire [63:0]            m_meta_reth_va,
    output wire [31:0]            m_meta_reth_rkey,
    output wire [31:0]            m_meta_reth_dma_len,
    output wire                   m_meta_aeth_valid,
    output wire [7:0]             m_meta_aeth_syndrome,
    output wire [23:0]            m_meta_aeth_msn,
    output wire                   m_meta_imm_valid,
    output wire [31:0]            m_meta_imm_data,
    output wire                   m_meta_ieth_valid,
    output wire [31:0]            m_meta_ieth_rkey,
    output wire                   m_meta_deth_valid,
    output wire [31:0]            m_meta_deth_qkey,
    output wire [23:0]            m_meta_deth_src_qp,
    output wire                   m_meta_atomic_valid,
    output wire [63:0]            m_meta_atomic_va,
    output wire [31:0]            m_meta_atomic_rkey,
    output wire [63:0]            m_meta_atomic_swap_add,
    output wire [63:0]            m_meta_atomic_compare,
    output wire                   m_meta_atomic_ack_valid,
    output wire [63:0]            m_meta_atomic_ack_orig,
    output wire                   m_meta_cnp_valid,
    output wire [15:0]            m_meta_cnp_extent,
    output wire                   m_meta_cnp_v2,
    output wire [7:0]             m_meta_cnp_flags,
    output wire [15:0]            m_meta_cnp_share,
    output wire [15:0]            m_meta_cnp_active,
    output wire [15:0]            m_meta_cnp_seq,
    output wire                   m_meta_sack_valid,
    output wire                   m_meta_sack_beyond,
    output wire [63:0]            m_meta_sack_bitmap,
    output wire                   m_meta_mac_control_valid,
    output wire [15:0]            m_meta_mac_control_opcode,
    output wire                   m_meta_pause_valid,
    output wire [15:0]            m_meta_pause_time,
    output wire                   m_meta_pfc_valid,
    output wire [15:0]            m_meta_pfc_enable,
    output wire [127:0]           m_meta_pfc_quanta
);

// Header window: 2 VLAN tags + IPv4 with 40 B options + UDP + BTH + the
// longest extension header (AtomicETH) = 22 + 60 + 8 + 12 + 28 bytes.
localparam HDR_BYTES = 130;
localparam HDR_BEATS = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
// Bytes kept from the IP header on (the UDP header starts up to 60 bytes in,
// and 48 bytes of it are read), the IP header bytes the record reads (or a
// MAC Control frame's opcode and parameters, the same bytes after the
// EtherType), and the bytes read from the UDP header on.
localparam L3_BYTES = 108;
localparam IP_BYTES = 40;
localparam L4_BYTES = 48;
localparam LEN_WIDTH = 17;
localparam [LEN_WIDTH-1:0] LEN_MAX = {LEN_WIDTH{1'b1}};
// A beat's first byte position: a multiple of KEEP_WIDTH, saturating at
// BASE_MAX, past every layer position (all below 2^17).
localparam POS_WIDTH = 18;
localparam [POS_WIDTH:0] BASE_LIMIT = 1 << POS_WIDTH;
localparam [POS_WIDTH-1:0] BASE_MAX = BASE_LIMIT[POS_WIDTH-1:0] - KEEP_WIDTH[POS_WIDTH-1:0];
localparam KEEP_COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);
// Where a layer starts or ends relative to a beat, for roce_parser_icrc.v:
// u = position - beat's first byte position + REL_BIAS, clamped to
// 0..2^U_WIDTH-1.
localparam REL_BIAS = 16;
localparam U_WIDTH = $clog2(KEEP_WIDTH + 2*REL_BIAS);
localparam [POS_WIDTH:0] U_TOP = 1 << U_WIDTH;

// Record classes, error codes (priority order), opcodes: shared with the golden model.
`include "metaroce_defs.vh"

// Elaboration-time parameter checks. An illegal value instantiates a module
// that does not exist, which Verilator, Yosys and Icarus Verilog all refuse
// (Icarus 11 does not take $error outside procedural code).
generate
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || (DATA_WIDTH & (DATA_WIDTH - 1)) != 0) begin : g_bad_data_width
        roce_parser_DATA_WIDTH_must_be_64_128_256_or_512 bad_data_width (); // DATA_WIDTH must be 64, 128, 256 or 512
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
        roce_parser_KEEP_WIDTH_must_be_DATA_WIDTH_over_8 bad_keep_width (); // KEEP_WIDTH must be DATA_WIDTH/8
    end
endgenerate

// Lanes from 0 to the last one set (tkeep is contiguous, SPEC.md §3.1): bit
// b of the count is set where the run ends in the upper half of a 2^(b+1)
// block; the top bit, when every lane is set.
function [KEEP_COUNT_WIDTH-1:0] keep_count(input [KEEP_WIDTH-1:0] keep);
    integer b, m;
    begin
        keep_count = {KEEP_COUNT_WIDTH{1'b0}};
        keep_count[KEEP_COUNT_WIDTH-1] = keep[KEEP_WIDTH-1];
        for (b = 0; b < KEEP_COUNT_WIDTH - 1; b = b + 1) begin
            for (m = 0; m < KEEP_WIDTH / (2 << b); m = m + 1) begin
                if (keep[m*(2 << b) + (1 << b) - 1] && !keep[(m+1)*(2 << b) - 1]) keep_count[b] = 1'b1;
            end
        end
    end
endfunction

// u from rel = a layer's position + REL_BIAS - the beat's first byte
// position, and rel_top = rel - 2^U_WIDTH, both POS_WIDTH + 1 bits two's
// complement: their signs clamp it, with no compare after the sums.
function [U_WIDTH-1:0] u_of(input [POS_WIDTH:0] rel, input [POS_WIDTH:0] rel_top);
    begin
        if (rel[POS_WIDTH]) u_of = {U_WIDTH{1'b0}};
        else if (!rel_top[POS_WIDTH]) u_of = {U_WIDTH{1'b1}};
        else u_of = rel[U_WIDTH-1:0];
    end
endfunction

function [7:0] window_byte(input [HDR_BYTES*8-1:0] hdr, input integer index);
    window_byte = hdr[index*8 +: 8];
endfunction

/*
 * Output skid buffer state; ce advances every stage.
 */
reg  ready_reg = 1'b1;
wire ce = ready_reg;
assign s_axis_tready = ready_reg;

/*
 * S1: input register, header window, EtherType compares.
 */
reg                        s1_valid_reg = 1'b0;
reg [DATA_WIDTH-1:0]       s1_data_reg;
reg [KEEP_COUNT_WIDTH-1:0] s1_count_reg;
reg                        s1_last_reg;
reg                        s1_user_reg;
reg                        s1_first_reg;
reg [POS_WIDTH-1:0]        s1_base_reg;
// Bytes past the frame's end hold an earlier frame's: each layer's fields are
// read only once the checks before it have shown them to be in the frame,
// and a beat's ICRC and checksum lanes only from the layer's first byte on.
reg [HDR_BYTES*8-1:0]      s1_hdr_reg;
// Bit t: bytes 12 + 4t and 13 + 4t hold a VLAN TPID (802.1Q 0x8100, 802.1ad
// 0x88A8), the IPv4 EtherType 0x0800, the IPv6 EtherType 0x86DD, MAC
// Control 0x8808.
reg [2:0]                  s1_tpid_reg, s1_ipv4_reg, s1_ipv6_reg, s1_macc_reg;
reg                        in_frame_reg = 1'b0;
// One-hot: the window beat the next beat fills; the top bit, none (past it).
reg [HDR_BEATS:0]          win_slot_reg = 1;

reg [DATA_WIDTH-1:0]  in_data_masked;
reg [2:0]             tpid_next, ipv4_next, ipv6_next, macc_next;
reg [15:0]            in_type;
wire [POS_WIDTH:0]    base_step = {1'b0, s1_base_reg} + {{(POS_WIDTH+1-KEEP_COUNT_WIDTH){1'b0}}, KEEP_WIDTH[KEEP_COUNT_WIDTH-1:0]};
wire [POS_WIDTH-1:0]  in_base = !in_frame_reg ? {POS_WIDTH{1'b0}}
    : (base_step[POS_WIDTH] ? BASE_MAX : base_step[POS_WIDTH-1:0]);
integer i, t;

always @* begin
    // Null bytes are zeroed so that nothing past the frame reaches the CRC
    // or the EtherType compares.
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        in_data_masked[i*8 +: 8] = s_axis_tkeep[i] ? s_axis_tdata[i*8 +: 8] : 8'h00;
    end

    tpid_next = in_frame_reg ? s1_tpid_reg : 3'b000;
    ipv4_next = in_frame_reg ? s1_ipv4_reg : 3'b000;
    ipv6_next = in_frame_reg ? s1_ipv6_reg : 3'b000;
    macc_next = in_frame_reg ? s1_macc_reg : 3'b000;
    for (t = 0; t < 3; t = t + 1) begin
        in_type = {in_data_masked[((12 + 4*t) % KEEP_WIDTH)*8 +: 8], in_data_masked[((13 + 4*t) % KEEP_WIDTH)*8 +: 8]};
        if (win_slot_reg[(12 + 4*t) / KEEP_WIDTH]) begin
            tpid_next[t] = in_type == 16'h8100 || in_type == 16'h88A8;
            ipv4_next[t] = in_type == 16'h0800;
            ipv6_next[t] = in_type == 16'h86DD;
            macc_next[t] = in_type == 16'h8808;
        end
    end
end

always @(posedge clk) begin
    if (ce) begin
        s1_valid_reg <= s_axis_tvalid;
        if (s_axis_tvalid) begin
            s1_data_reg <= in_data_masked;
            s1_count_reg <= keep_count(s_axis_tkeep);
            s1_last_reg <= s_axis_tlast;
            s1_user_reg <= s_axis_tuser;
            s1_first_reg <= !in_frame_reg;
            s1_base_reg <= in_base;
            s1_tpid_reg <= tpid_next;
            s1_ipv4_reg <= ipv4_next;
            s1_ipv6_reg <= ipv6_next;
            s1_macc_reg <= macc_next;
            in_frame_reg <= !s_axis_tlast;
            if (s_axis_tlast) begin
                win_slot_reg <= 1;
            end else if (!win_slot_reg[HDR_BEATS]) begin
                win_slot_reg <= win_slot_reg << 1;
            end
        end
    end
    if (rst) begin
        s1_valid_reg <= 1'b0;
        in_frame_reg <= 1'b0;
        win_slot_reg <= 1;
    end
end

// The window, a beat's worth of bytes at a time.
genvar g;
generate
    for (g = 0; g < HDR_BYTES; g = g + 1) begin : g_window
        always @(posedge clk) begin
            if (ce && s_axis_tvalid && win_slot_reg[g / KEEP_WIDTH]) begin
                s1_hdr_reg[g*8 +: 8] <= in_data_masked[(g % KEEP_WIDTH)*8 +: 8];
            end
        end
    end
endgenerate

/*
 * S2: Ethernet. VLAN tags, EtherType, the IP header aligned, frame length.
 */
wire        tag0 = s1_tpid_reg[0];
wire        tag1 = s1_tpid_reg[0] && s1_tpid_reg[1];
wire [1:0]  vlan_count = {tag1, tag0 && !tag1};
wire        is_ipv4 = tag1 ? s1_ipv4_reg[2] : (tag0 ? s1_ipv4_reg[1] : s1_ipv4_reg[0]);
wire        is_ipv6 = tag1 ? s1_ipv6_reg[2] : (tag0 ? s1_ipv6_reg[1] : s1_ipv6_reg[0]);
wire        is_macc = tag1 ? s1_macc_reg[2] : (tag0 ? s1_macc_reg[1] : s1_macc_reg[0]);
wire [15:0] type_at_12 = {window_byte(s1_hdr_reg, 12), window_byte(s1_hdr_reg, 13)};
wire [15:0] type_at_16 = {window_byte(s1_hdr_reg, 16), window_byte(s1_hdr_reg, 17)};
wire [15:0] type_at_20 = {window_byte(s1_hdr_reg, 20), window_byte(s1_hdr_reg, 21)};
// Outer tag TCI in bytes 14-15: PCP 15:13, DEI 12 (not reported), VID 11:0.
wire [2:0]  outer_pcp = s1_hdr_reg[14*8+5 +: 3];
wire [11:0] outer_vid = {s1_hdr_reg[14*8 +: 4], s1_hdr_reg[15*8 +: 8]};
wire [POS_WIDTH:0] len_sum = {1'b0, s1_base_reg} + {{(POS_WIDTH+1-KEEP_COUNT_WIDTH){1'b0}}, s1_count_reg};
// IP header start + REL_BIAS (14, 18 or 22, + 16), and that - 2^U_WIDTH.
reg [POS_WIDTH:0] l3_biased, l3_biased_top;

always @* begin
    case (vlan_count)
        2'd0: begin l3_biased = 14 + REL_BIAS; l3_biased_top = 14 + REL_BIAS - U_TOP; end
        2'd1: begin l3_biased = 18 + REL_BIAS; l3_biased_top = 18 + REL_BIAS - U_TOP; end
        default: begin l3_biased = 22 + REL_BIAS; l3_biased_top = 22 + REL_BIAS - U_TOP; end
    endcase
end

wire [POS_WIDTH:0] l3_rel = l3_biased - {1'b0, s1_base_reg};
wire [POS_WIDTH:0] l3_rel_top = l3_biased_top - {1'b0, s1_base_reg};

reg [L3_BYTES*8-1:0] l3_win;

always @* begin
    case (vlan_count)
        2'd0: l3_win = s1_hdr_reg[14*8 +: L3_BYTES*8];
        2'd1: l3_win = s1_hdr_reg[18*8 +: L3_BYTES*8];
        default: l3_win = s1_hdr_reg[22*8 +: L3_BYTES*8];
    endcase
end

// IP header length in 32-bit words. IHL below 5 is an error the checks
// report; any alignment will do for it.
wire [3:0] ip_hdr_words = is_ipv6 ? 4'd10 : l3_win[3:0];

reg                   s2_valid_reg = 1'b0;
reg                   s2_first_reg, s2_last_reg, s2_user_reg;
reg [DATA_WIDTH-1:0]  s2_data_reg;
reg [LEN_WIDTH-1:0]   s2_len_reg;
reg [1:0]             s2_vlan_count_reg;
reg [2:0]             s2_vlan_pcp_reg;
reg [11:0]            s2_vlan_id_reg;
reg [15:0]            s2_eth_type_reg;
reg                   s2_is_ipv4_reg, s2_is_ipv6_reg, s2_is_macc_reg;
reg [95:0]            s2_macs_reg;
reg [L3_BYTES*8-1:0]  s2_l3_reg;
reg [3:0]             s2_ip_hdr_words_reg;
// The same, one-hot: the UDP window's select. Each line drives one AND per
// bit of the window; a binary select would drive thousands of LUT inputs.
reg [15:0]            s2_l4_sel_reg;
reg [POS_WIDTH:0]     s2_l3_rel_reg, s2_l3_rel_top_reg;
reg [U_WIDTH-1:0]     s2_u_l3_reg;

always @(posedge clk) begin
    if (ce) begin
        s2_valid_reg <= s1_valid_reg;
        s2_first_reg <= s1_first_reg;
        s2_last_reg <= s1_last_reg;
        s2_user_reg <= s1_user_reg;
        s2_data_reg <= s1_data_reg;
        s2_len_reg <= len_sum[POS_WIDTH:LEN_WIDTH] != 0 ? LEN_MAX : len_sum[LEN_WIDTH-1:0];
        s2_vlan_count_reg <= vlan_count;
        s2_vlan_pcp_reg <= outer_pcp;
        s2_vlan_id_reg <= outer_vid;
        s2_eth_type_reg <= tag1 ? type_at_20 : (tag0 ? type_at_16 : type_at_12);
        s2_is_ipv4_reg <= is_ipv4;
        s2_is_ipv6_reg <= is_ipv6;
        s2_is_macc_reg <= is_macc;
        s2_macs_reg <= s1_hdr_reg[0 +: 96];
        s2_l3_reg <= l3_win;
        s2_ip_hdr_words_reg <= ip_hdr_words;
        s2_l4_sel_reg <= 16'd1 << ip_hdr_words;
        s2_l3_rel_reg <= l3_rel;
        s2_l3_rel_top_reg <= l3_rel_top;
        s2_u_l3_reg <= u_of(l3_rel, l3_rel_top);
    end
    if (rst) begin
        s2_valid_reg <= 1'b0;
    end
end

/*
 * S3: IP. Header length, the UDP header aligned.
 */
reg [L4_BYTES*8-1:0] l4_win;

always @* begin
    l4_win = {L4_BYTES*8{1'b0}};
    for (i = 0; i < 16; i = i + 1) begin
        l4_win = l4_win | ({L4_BYTES*8{s2_l4_sel_reg[i]}} & s2_l3_reg[i*32 +: L4_BYTES*8]);
    end
end
wire [POS_WIDTH:0]    l4_rel = s2_l3_rel_reg + {{(POS_WIDTH-5){1'b0}}, s2_ip_hdr_words_reg, 2'b00};
wire [POS_WIDTH:0]    l4_rel_top = s2_l3_rel_top_reg + {{(POS_WIDTH-5){1'b0}}, s2_ip_hdr_words_reg, 2'b00};

reg                   s3_valid_reg = 1'b0;
reg                   s3_first_reg, s3_last_reg, s3_user_reg;
reg [DATA_WIDTH-1:0]  s3_data_reg;
reg [LEN_WIDTH-1:0]   s3_len_reg;
reg [1:0]             s3_vlan_count_reg;
reg [2:0]             s3_vlan_pcp_reg;
reg [11:0]            s3_vlan_id_reg;
reg [15:0]            s3_eth_type_reg;
reg                   s3_is_ipv4_reg, s3_is_ipv6_reg, s3_is_macc_reg;
reg [95:0]            s3_macs_reg;
reg [IP_BYTES*8-1:0]  s3_ip_reg;
reg [L4_BYTES*8-1:0]  s3_l4_reg;
reg [POS_WIDTH:0]     s3_l4_rel_reg, s3_l4_rel_top_reg;
reg [U_WIDTH-1:0]     s3_u_l3_reg, s3_u_l4_reg;

always @(posedge clk) begin
    if (ce) begin
        s3_valid_reg <= s2_valid_reg;
        s3_first_reg <= s2_first_reg;
        s3_last_reg <= s2_last_reg;
        s3_user_reg <= s2_user_reg;
        s3_data_reg <= s2_data_reg;
        s3_len_reg <= s2_len_reg;
        s3_vlan_count_reg <= s2_vlan_count_reg;
        s3_vlan_pcp_reg <= s2_vlan_pcp_reg;
        s3_vlan_id_reg <= s2_vlan_id_reg;
        s3_eth_type_reg <= s2_eth_type_reg;
        s3_is_ipv4_reg <= s2_is_ipv4_reg;
        s3_is_ipv6_reg <= s2_is_ipv6_reg;
        s3_is_macc_reg <= s2_is_macc_reg;
        s3_macs_reg <= s2_macs_reg;
        s3_ip_reg <= s2_l3_reg[0 +: IP_BYTES*8];
        s3_l4_reg <= l4_win;
        s3_l4_rel_reg <= l4_rel;
        s3_l4_rel_top_reg <= l4_rel_top;
        s3_u_l3_reg <= s2_u_l3_reg;
        s3_u_l4_reg <= u_of(l4_rel, l4_rel_top);
    end
    if (rst) begin
        s3_valid_reg <= 1'b0;
    end
end

/*
 * S4: UDP. Where the datagram ends; the record's fields set out.
 */
function [7:0] l4_byte(input integer index);
    l4_byte = s3_l4_reg[index*8 +: 8];
endfunction

wire [15:0]        udp_len = {l4_byte(4), l4_byte(5)};
// Where the datagram ends.
wire [POS_WIDTH:0] icrc_end_rel = s3_l4_rel_reg + {{(POS_WIDTH-15){1'b0}}, udp_len};
wire [POS_WIDTH:0] icrc_end_rel_top = s3_l4_rel_top_reg + {{(POS_WIDTH-15){1'b0}}, udp_len};
// Bit j: the ICRC's (j+1)-th byte from the end comes after the UDP header.
wire [3:0]         udp_len_ge = {udp_len >= 16'd12, udp_len >= 16'd11, udp_len >= 16'd10, udp_len >= 16'd9};

/*
 * The record's fields that need no check wait from S4 to S9 in a small RAM,
 * one slot per frame, its slot number travelling with the frame: frame
 * length, Ethernet, bytes 0-39 after the EtherType (the IP header's version
 * and traffic class in bytes 0-1, the IPv6 addresses in bytes 8-39 or the
 * IPv4 ones in 12-19; or a MAC Control frame's opcode and parameters in
 * bytes 0-19), UDP ports, the BTH as on the wire (its reserved bits are not
 * reported) and the bytes after it.
 */
localparam PAYLOAD_WIDTH = LEN_WIDTH + 2 + 3 + 12 + 16 + 96 + IP_BYTES*8 + 1 + 32 + 96 + 224;
// More slots than frames in S4-S9.
localparam SLOT_WIDTH = 3;

wire [PAYLOAD_WIDTH-1:0] payload_next = {
    s3_len_reg, s3_vlan_count_reg, s3_vlan_pcp_reg, s3_vlan_id_reg, s3_eth_type_reg, s3_macs_reg,
    s3_ip_reg, s3_is_ipv6_reg,
    l4_byte(0), l4_byte(1), l4_byte(2), l4_byte(3),
    s3_l4_reg[8*8 +: 96], s3_l4_reg[20*8 +: 224]
};

reg                  s4_valid_reg = 1'b0;
reg                  s4_first_reg, s4_last_reg;
reg [DATA_WIDTH-1:0] s4_data_reg;
reg [U_WIDTH-1:0]    s4_u_icrc_end_reg;
reg [3:0]            s4_udp_len_ge_reg;
reg [9:5]            valid_pipe_reg = 5'd0;
reg [9:5]            last_pipe_reg;

reg [PAYLOAD_WIDTH-1:0] payload_mem [0:(1 << SLOT_WIDTH)-1];
reg [SLOT_WIDTH-1:0]    payload_wr_reg = {SLOT_WIDTH{1'b0}};
// S4 to S9, S4 in the low bits.
reg [6*SLOT_WIDTH-1:0]  slot_pipe_reg;
wire [SLOT_WIDTH-1:0]   s9_slot = slot_pipe_reg[5*SLOT_WIDTH +: SLOT_WIDTH];

always @(posedge clk) begin
    if (ce && s3_valid_reg && s3_last_reg) begin
        payload_mem[payload_wr_reg] <= payload_next;
    end
end

always @(posedge clk) begin
    if (ce) begin
        s4_valid_reg <= s3_valid_reg;
        s4_first_reg <= s3_first_reg;
        s4_last_reg <= s3_last_reg;
        s4_data_reg <= s3_data_reg;
        s4_u_icrc_end_reg <= u_of(icrc_end_rel, icrc_end_rel_top);
        s4_udp_len_ge_reg <= udp_len_ge;
        slot_pipe_reg <= {slot_pipe_reg[0 +: 5*SLOT_WIDTH], payload_wr_reg};
        if (s3_valid_reg && s3_last_reg) begin
            payload_wr_reg <= payload_wr_reg + 1'b1;
        end
        valid_pipe_reg <= {valid_pipe_reg[8:5], s4_valid_reg};
        last_pipe_reg <= {last_pipe_reg[8:5], s4_last_reg};
    end
    if (rst) begin
        s4_valid_reg <= 1'b0;
        valid_pipe_reg <= 5'd0;
    end
end

/*
 * S5-S9: ICRC and IPv4 checksum per beat; the layer checks.
 */
wire [31:0] s9_icrc;
wire        s9_icrc_match, s9_csum_ok;

roce_parser_icrc #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .REL_BIAS(REL_BIAS),
    .U_WIDTH(U_WIDTH)
) icrc_inst (
    .clk(clk),
    .rst(rst),
    .ce(ce),
    .s3_is_ipv4(s3_is_ipv4_reg),
    .s3_is_ipv6(s3_is_ipv6_reg),
    .s3_u_l3(s3_u_l3_reg),
    .s3_u_l4(s3_u_l4_reg),
    .s4_valid(s4_valid_reg),
    .s4_first(s4_first_reg),
    .s4_data(s4_data_reg),
    .s4_u_icrc_end(s4_u_icrc_end_reg),
    .s4_udp_len_ge(s4_udp_len_ge_reg),
    .icrc(s9_icrc),
    .icrc_match(s9_icrc_match),
    .csum_ok(s9_csum_ok)
);

wire [1:0]  s9_class;
wire [4:0]  s9_error;
wire        s9_eth_valid, s9_ip_valid, s9_udp_valid, s9_bth_valid, s9_icrc_valid, s9_cnp_valid, s9_cnp_v2;
wire        s9_sack_valid;
wire        s9_mac_control_valid, s9_pause_valid, s9_pfc_valid;
wire [6:0]  s9_ext_valid;
wire [4:0]  s9_imm_offset;
wire [15:0] s9_payload_len;

roce_parser_check #(
    .ROCE_UDP_PORT(ROCE_UDP_PORT)
) check_inst (
    .clk(clk),
    .ce(ce),
    .s_user(s3_user_reg),
    .s_frame_len(s3_len_reg),
    .s_vlan_count(s3_vlan_count_reg),
    .s_is_ipv4(s3_is_ipv4_reg),
    .s_is_ipv6(s3_is_ipv6_reg),
    .s_is_mac_control(s3_is_macc_reg),
    .s_ip_hdr(s3_ip_reg[0 +: 80]),
    .s_udp_dport({l4_byte(2), l4_byte(3)}),
    .s_udp_len(udp_len),
    .s_opcode(l4_byte(8)),
    .s_pad_cnt(s3_l4_reg[9*8+4 +: 2]),
    .s_tver(s3_l4_reg[9*8 +: 4]),
    .s_cnp_tag(s3_l4_reg[20*8 +: 16]),
    .s_sack_tag(s3_l4_reg[24*8 +: 24]),
    .csum_ok(s9_csum_ok),
    .icrc_match(s9_icrc_match),
    .frame_class(s9_class),
    .error(s9_error),
    .eth_valid(s9_eth_valid),
    .ip_valid(s9_ip_valid),
    .udp_valid(s9_udp_valid),
    .bth_valid(s9_bth_valid),
    .icrc_valid(s9_icrc_valid),
    .ext_valid(s9_ext_valid),
    .cnp_valid(s9_cnp_valid),
    .cnp_v2(s9_cnp_v2),
    .sack_valid(s9_sack_valid),
    .mac_control_valid(s9_mac_control_valid),
    .pause_valid(s9_pause_valid),
    .pfc_valid(s9_pfc_valid),
    .imm_offset(s9_imm_offset),
    .payload_len(s9_payload_len)
);

/*
 * Output skid buffer (verilog-ethernet axis_register, REG_TYPE 2): S9's
 * record goes to the output register, or to the spare when the sink stalled
 * after ready_reg last rose; ready_reg falls once the spare may fill.
 */
localparam REC_WIDTH = 2 + 5 + 5 + 7 + 3 + 3 + 5 + 16 + 32 + 1 + PAYLOAD_WIDTH;

wire                 rec_valid = valid_pipe_reg[9] && last_pipe_reg[9];
wire [REC_WIDTH-1:0] rec = {
    s9_class, s9_error, s9_eth_valid, s9_ip_valid, s9_udp_valid, s9_bth_valid, s9_icrc_valid,
    s9_ext_valid, s9_cnp_valid, s9_cnp_v2, s9_sack_valid, s9_mac_control_valid, s9_pause_valid, s9_pfc_valid,
    s9_imm_offset, s9_payload_len, s9_icrc, s9_icrc_match,
    payload_mem[s9_slot]
};

reg                 m_valid_reg = 1'b0;
reg                 temp_valid_reg = 1'b0;
reg [REC_WIDTH-1:0] m_rec_reg;
reg [REC_WIDTH-1:0] temp_rec_reg;

// Ready next cycle if the sink takes the output, or the spare stays empty
// whatever S9 holds.
wire ready_early = m_meta_ready || (!temp_valid_reg && (!m_valid_reg || !rec_valid));

always @(posedge clk) begin
    ready_reg <= ready_early;
    if (ready_reg) begin
        if (m_meta_ready || !m_valid_reg) begin
            m_valid_reg <= rec_valid;
            m_rec_reg <= rec;
        end else begin
            temp_valid_reg <= rec_valid;
            temp_rec_reg <= rec;
        end
    end else if (m_meta_ready) begin
        m_valid_reg <= temp_valid_reg;
        m_rec_reg <= temp_rec_reg;
        temp_valid_reg <= 1'b0;
    end
    if (rst) begin
        ready_reg <= 1'b1;
        m_valid_reg <= 1'b0;
        temp_valid_reg <= 1'b0;
    end
end

wire [1:0]   m_class, m_vlan_count;
wire [4:0]   m_error, m_imm_offset;
wire         m_eth_valid, m_ip_valid, m_udp_valid, m_bth_valid, m_icrc_valid, m_cnp_valid, m_cnp_v2, m_icrc_ok;
wire         m_sack_valid;
wire         m_mac_control_valid, m_pause_valid, m_pfc_valid;
wire         m_is_ipv6;
wire [6:0]   m_ext_valid;
wire [15:0]  m_payload_len, m_eth_type;
wire [31:0]  m_icrc, m_udp_ports;
wire [16:0]  m_frame_len;
wire [2:0]   m_vlan_pcp;
wire [11:0]  m_vlan_id;
wire [95:0]  m_macs;
// Bytes 0-39 after the EtherType, byte 0 in bits 7:0.
wire [IP_BYTES*8-1:0] m_l3;
// The BTH as on the wire; its reserved bits are not reported.
/* verilator lint_off UNUSEDSIGNAL */
wire [95:0]  m_bth;
/* verilator lint_on UNUSEDSIGNAL */
wire [223:0] m_ext;

assign {
    m_class, m_error, m_eth_valid, m_ip_valid, m_udp_valid, m_bth_valid, m_icrc_valid,
    m_ext_valid, m_cnp_valid, m_cnp_v2, m_sack_valid, m_mac_control_valid, m_pause_valid, m_pfc_valid,
    m_imm_offset, m_payload_len, m_icrc, m_icrc_ok,
    m_frame_len, m_vlan_count, m_vlan_pcp, m_vlan_id, m_eth_type, m_macs,
    m_l3, m_is_ipv6, m_udp_ports, m_bth, m_ext
} = m_rec_reg;

// The extension bytes with byte 0 in the top bits, so that a big-endian
// field of B bytes at offset O is ext_be[(EXT_BYTES-O-B)*8 +: B*8].
localparam EXT_BYTES = 28;
reg [EXT_BYTES*8-1:0] ext_be;
always @* begin
    for (i = 0; i < EXT_BYTES; i = i + 1) begin
        ext_be[(EXT_BYTES-1-i)*8 +: 8] = m_ext[i*8 +: 8];
    end
end

reg [31:0] imm_data;
always @* begin
    case (m_imm_offset)
        5'd16: imm_data = ext_be[(EXT_BYTES-16-4)*8 +: 32];
        5'd8: imm_data = ext_be[(EXT_BYTES-8-4)*8 +: 32];
        default: imm_data = ext_be[(EXT_BYTES-0-4)*8 +: 32];
    endcase
end

// MACs with the first wire byte in the top bits; the bytes after the
// EtherType likewise, so that a big-endian field of B bytes at offset O is
// l3_be[(IP_BYTES-O-B)*8 +: B*8].
reg [47:0]            eth_dst_be, eth_src_be;
reg [IP_BYTES*8-1:0]  l3_be;
always @* begin
    for (i = 0; i < 6; i = i + 1) begin
        eth_dst_be[(5-i)*8 +: 8] = m_macs[i*8 +: 8];
        eth_src_be[(5-i)*8 +: 8] = m_macs[(6+i)*8 +: 8];
    end
    for (i = 0; i < IP_BYTES; i = i + 1) begin
        l3_be[(IP_BYTES-1-i)*8 +: 8] = m_l3[i*8 +: 8];
    end
end
wire [7:0] ip_b0 = m_l3[0*8 +: 8];
wire [7:0] ip_b1 = m_l3[1*8 +: 8];

// BTH bytes as on the wire (byte 0 = opcode).
wire [7:0] bth_b1 = m_bth[1*8 +: 8];

assign m_meta_valid = m_valid_reg;
assign m_meta_frame_class = m_class;
assign m_meta_frame_len = m_frame_len;
assign m_meta_eth_valid = m_eth_valid;
assign m_meta_vlan_count = m_vlan_count;
assign m_meta_vlan_pcp = m_vlan_pcp;
assign m_meta_vlan_id = m_vlan_id;
assign m_meta_eth_type = m_eth_type;
assign m_meta_eth_dst = eth_dst_be;
assign m_meta_eth_src = eth_src_be;
assign m_meta_ip_valid = m_ip_valid;
assign m_meta_ip_version = ip_b0[7:4];
// Traffic class: IPv4 byte 1; IPv6 the nibbles after the version.
wire [7:0] traffic_class = m_is_ipv6 ? {ip_b0[3:0], ip_b1[7:4]} : ip_b1;
assign m_meta_dscp = traffic_class[7:2];
assign m_meta_ecn = traffic_class[1:0];
// IPv6: bytes 8-23 and 24-39; IPv4: bytes 12-15 and 16-19.
assign m_meta_ip_src = m_is_ipv6 ? l3_be[(IP_BYTES-8-16)*8 +: 128] : {96'd0, l3_be[(IP_BYTES-12-4)*8 +: 32]};
assign m_meta_ip_dst = m_is_ipv6 ? l3_be[(IP_BYTES-24-16)*8 +: 128] : {96'd0, l3_be[(IP_BYTES-16-4)*8 +: 32]};
assign m_meta_udp_valid = m_udp_valid;
assign m_meta_udp_sport = m_udp_ports[31:16];
assign m_meta_udp_dport = m_udp_ports[15:0];
assign m_meta_bth_valid = m_bth_valid;
assign m_meta_opcode = m_bth[0 +: 8];
assign m_meta_se = bth_b1[7];
assign m_meta_mig_req = bth_b1[6];
assign m_meta_pad_cnt = bth_b1[5:4];
assign m_meta_tver = bth_b1[3:0];
assign m_meta_pkey = {m_bth[2*8 +: 8], m_bth[3*8 +: 8]};
assign m_meta_fecn = m_bth[4*8+7];
assign m_meta_becn = m_bth[4*8+6];
assign m_meta_dest_qp = {m_bth[5*8 +: 8], m_bth[6*8 +: 8], m_bth[7*8 +: 8]};
assign m_meta_error = m_error;
assign m_meta_ack_req = m_bth[8*8+7];
assign m_meta_psn = {m_bth[9*8 +: 8], m_bth[10*8 +: 8], m_bth[11*8 +: 8]};
assign m_meta_icrc_valid = m_icrc_valid;
assign m_meta_icrc = m_icrc;
assign m_meta_icrc_ok = m_icrc_ok;
assign m_meta_payload_len = m_payload_len;
assign m_meta_reth_valid = m_ext_valid[6];
assign m_meta_reth_va = ext_be[(EXT_BYTES-0-8)*8 +: 64];
assign m_meta_reth_rkey = ext_be[(EXT_BYTES-8-4)*8 +: 32];
assign m_meta_reth_dma_len = ext_be[(EXT_BYTES-12-4)*8 +: 32];
assign m_meta_atomic_valid = m_ext_valid[5];
assign m_meta_atomic_va = ext_be[(EXT_BYTES-0-8)*8 +: 64];
assign m_meta_atomic_rkey = ext_be[(EXT_BYTES-8-4)*8 +: 32];
assign m_meta_atomic_swap_add = ext_be[(EXT_BYTES-12-8)*8 +: 64];
assign m_meta_atomic_compare = ext_be[(EXT_BYTES-20-8)*8 +: 64];
assign m_meta_aeth_valid = m_ext_valid[4];
assign m_meta_aeth_syndrome = ext_be[(EXT_BYTES-0-1)*8 +: 8];
assign m_meta_aeth_msn = ext_be[(EXT_BYTES-1-3)*8 +: 24];
assign m_meta_atomic_ack_valid = m_ext_valid[3];
assign m_meta_atomic_ack_orig = ext_be[(EXT_BYTES-4-8)*8 +: 64];
assign m_meta_deth_valid = m_ext_valid[2];
assign m_meta_deth_qkey = ext_be[(EXT_BYTES-0-4)*8 +: 32];
assign m_meta_deth_src_qp = ext_be[(EXT_BYTES-5-3)*8 +: 24];
assign m_meta_imm_valid = m_ext_valid[1];
assign m_meta_imm_data = imm_data;
assign m_meta_ieth_valid = m_ext_valid[0];
assign m_meta_ieth_rkey = ext_be[(EXT_BYTES-0-4)*8 +: 32];
assign m_meta_cnp_valid = m_cnp_valid;
assign m_meta_cnp_extent = ext_be[(EXT_BYTES-2-2)*8 +: 16];
assign m_meta_cnp_v2 = m_cnp_v2;
assign m_meta_cnp_flags = ext_be[(EXT_BYTES-4-1)*8 +: 8];
assign m_meta_cnp_share = ext_be[(EXT_BYTES-6-2)*8 +: 16];
assign m_meta_cnp_active = ext_be[(EXT_BYTES-8-2)*8 +: 16];
assign m_meta_cnp_seq = ext_be[(EXT_BYTES-10-2)*8 +: 16];
// The selective-ACK extension after the AETH: tag 4-5, version 6, flags 7,
// bitmap 8-15 (the flag byte's other bits are reserved).
assign m_meta_sack_valid = m_sack_valid;
assign m_meta_sack_beyond = ext_be[(EXT_BYTES-7-1)*8];
assign m_meta_sack_bitmap = ext_be[(EXT_BYTES-8-8)*8 +: 64];
// MAC Control (IEEE 802.3 Annex 31B, 31D): opcode, then PAUSE's pause time
// or PFC's class-enable vector and eight pause times.
assign m_meta_mac_control_valid = m_mac_control_valid;
assign m_meta_mac_control_opcode = l3_be[(IP_BYTES-0-2)*8 +: 16];
assign m_meta_pause_valid = m_pause_valid;
assign m_meta_pause_time = l3_be[(IP_BYTES-2-2)*8 +: 16];
assign m_meta_pfc_valid = m_pfc_valid;
assign m_meta_pfc_enable = l3_be[(IP_BYTES-2-2)*8 +: 16];
assign m_meta_pfc_quanta = l3_be[(IP_BYTES-4-16)*8 +: 128];

`ifdef METAROCE_ASSERTIONS
/*
 * Protocol assertions (simulation only; `--assert` with this define). A
 * failure calls metaroce_assertion_failed(), which the cosim harness turns
 * into the ending "RTL assertion fired".
 */
import "DPI-C" function void metaroce_assertion_failed(input string message);

reg                  prev_in_valid = 1'b0;
reg                  prev_in_ready;
reg [DATA_WIDTH-1:0] prev_in_data;
reg [KEEP_WIDTH-1:0] prev_in_keep;
reg                  prev_in_last;
reg                  prev_out_valid = 1'b0;
reg                  prev_out_ready;
reg [4:0]            prev_out_error;
reg [1:0]            prev_out_class;
reg [16:0]           prev_out_len;

// Lanes at and above the lowest null lane: all must be null (contiguous tkeep).
function keep_contiguous(input [KEEP_WIDTH-1:0] keep);
    integer k;
    reg seen_null;
    begin
        keep_contiguous = 1'b1;
        seen_null = 1'b0;
        for (k = 0; k < KEEP_WIDTH; k = k + 1) begin
            if (!keep[k]) seen_null = 1'b1;
            else if (seen_null) keep_contiguous = 1'b0;
        end
    end
endfunction

always @(posedge clk) begin
    if (!rst) begin
        // AXI-Stream source: a beat offered stays unchanged until taken.
        if (prev_in_valid && !prev_in_ready) begin
            assert (s_axis_tvalid) else metaroce_assertion_failed("s_axis: tvalid dropped before tready");
            assert (s_axis_tdata == prev_in_data && s_axis_tkeep == prev_in_keep && s_axis_tlast == prev_in_last)
                else metaroce_assertion_failed("s_axis: beat changed while tvalid and not tready");
        end
        if (s_axis_tvalid) begin
            assert (s_axis_tlast || &s_axis_tkeep)
                else metaroce_assertion_failed("s_axis: tkeep not all ones on a beat before tlast");
            assert (keep_contiguous(s_axis_tkeep))
                else metaroce_assertion_failed("s_axis: tkeep not contiguous from lane 0");
        end
        // Record sink: a record offered stays unchanged until taken.
        if (prev_out_valid && !prev_out_ready) begin
            assert (m_meta_valid && m_meta_error == prev_out_error && m_meta_frame_class == prev_out_class
                    && m_meta_frame_len == prev_out_len)
                else metaroce_assertion_failed("m_meta: record changed while valid and not ready");
        end
        // Internal invariants.
        if (m_meta_valid) begin
            assert ((m_meta_error == ERR_NONE) == (m_meta_frame_class != CLASS_ERROR))
                else metaroce_assertion_failed("record: error code and class disagree");
            assert (m_meta_error <= ERR_LAST) else metaroce_assertion_failed("record: unknown error code");
        end
        if (s1_valid_reg) begin
            assert (s1_last_reg || s1_count_reg == KEEP_WIDTH[KEEP_COUNT_WIDTH-1:0])
                else metaroce_assertion_failed("S1: a beat before tlast did not hold KEEP_WIDTH bytes");
        end
        // The spare holds a record only while the output register does.
        assert (!temp_valid_reg || m_valid_reg) else metaroce_assertion_failed("skid: spare full, output empty");
    end
    prev_in_valid <= s_axis_tvalid && !rst;
    prev_in_ready <= s_axis_tready;
    prev_in_data <= s_axis_tdata;
    prev_in_keep <= s_axis_tkeep;
    prev_in_last <= s_axis_tlast;
    prev_out_valid <= m_meta_valid && !rst;
    prev_out_ready <= m_meta_ready;
    prev_out_error <= m_meta_error;
    prev_out_class <= m_meta_frame_class;
    prev_out_len <= m_meta_frame_len;
end
`endif

endmodule

`resetall
