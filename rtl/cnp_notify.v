// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

`include "metaroce_cfg.vh"

/*
 * Notification point: received RoCE data packets in, CNPs out as whole
 * frames (SPEC.md §6.3). At most one CNP per QP per cfg_cnp_interval ns;
 * in MetaRoCE mode the CNP carries the CE extent of the packets since the
 * previous one.
 *
 * Pipelined: an event a cycle. Stage A takes the event and reads its QP's
 * RAM word; stage R registers the word (forwarded from a write of the same
 * QP in the read's cycle or in R's, or from B's word); stage B updates it
 * and stage W writes it back (the CNP decision and the word it picks are
 * a register apart). B never waits: a CNP it decides on is queued (REQ_DEPTH
 * requests) for the CNP builder, which runs beside the pipeline: the
 * extent division (15 cycles, MetaRoCE only), the frame with the ICRC's
 * partial sums, then the ICRC and IPv4 checksum (2 cycles), and
 * ceil(len / KEEP_WIDTH) output beats. The input is held, from registers
 * alone, while the queue has no room for a request from each event in R
 * and B and from one more.
 * Per-QP state is one RAM word per QP, cleared by a sweep after reset
 * (QP_COUNT cycles with s_evt_ready low).
 *
 * | port                | width      | meaning                                        |
 * |---------------------|------------|------------------------------------------------|
 * | s_evt_time          | 64         | tick (ns) of the packet; never decreases        |
 * | s_evt_qp            | 24         | local QP (BTH DestQP)                           |
 * | s_evt_ce            | 1          | ECN = CE                                        |
 * | s_evt_ipv6          | 1          | IPv6 (else IPv4)                                |
 * | s_evt_vlan_valid/id | 1/12       | outer VLAN tag of the packet                    |
 * | s_evt_eth_dst/src   | 48/48      | MACs, first wire byte in 47:40                  |
 * | s_evt_ip_src/dst    | 128/128    | IPs, first wire byte in 127:120 (IPv4 in 31:0)  |
 * | s_evt_udp_sport     | 16         | UDP source port, reused by the CNP              |
 * | s_evt_src_qp_valid  | 1          | DETH source QP present (UD): names the remote   |
 * | s_qpctx_local/remote| 24/24      | QP context table write (local QP -> remote QP)  |
 * | m_axis_t*           | DATA_WIDTH | CNP frames (no FCS)                             |
 * | m_axis_tuser        | 64         | emit tick of the CNP, on every beat             |
 * | busy                | 1          | an event or CNP is still in the block           |
 *
 * RAM word (NP_ENTRY_WIDTH bits): remote_valid, remote_qp 24, cnp_sent,
 * last_cnp 64, pkts 16, ce_pkts 16.
 */
module cnp_notify #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH/8,
    parameter QP_COUNT = 1024,
    parameter [15:0] ROCE_UDP_PORT = 16'd4791
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [`CFG_WIDTH-1:0]  cfg,

    input  wire                   s_qpctx_valid,
    output wire                   s_qpctx_ready,
    input  wire [23:0]            s_qpctx_local,
    input  wire [23:0]            s_qpctx_remote,

    input  wire                   s_evt_valid,
    output wire                   s_evt_ready,
    input  wire [63:0]            s_evt_time,
    input  wire [23:0]            s_evt_qp,
    input  wire                   s_evt_ce,
    input  wire                   s_evt_ipv6,
    input  wire                   s_evt_vlan_valid,
    input  wire [11:0]            s_evt_vlan_id,
    input  wire [47:0]            s_evt_eth_dst,
    input  wire [47:0]            s_evt_eth_src,
    input  wire [127:0]           s_evt_ip_src,
    input  wire [127:0]           s_evt_ip_dst,
    input  wire [15:0]            s_evt_udp_sport,
    input  wire                   s_evt_src_qp_valid,
    input  wire [23:0]            s_evt_src_qp,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [63:0]            m_axis_tuser,

    output wire                   busy
);

`include "metaroce_defs.vh"

// The registers this module reads: slices of the cfg bus (rtl/metaroce_cfg.vh).
wire cfg_metaroce = cfg[`CFG_METAROCE];
wire [`CFG_CNP_INTERVAL_NS_W-1:0] cfg_cnp_interval = cfg[`CFG_CNP_INTERVAL_NS];
wire [`CFG_CNP_DSCP_W-1:0] cfg_cnp_dscp = cfg[`CFG_CNP_DSCP];
wire [`CFG_CNP_PCP_W-1:0] cfg_cnp_pcp = cfg[`CFG_CNP_PCP];
// The other modules' registers.
wire unused_cfg = &{1'b0, cfg};

localparam QP_INDEX_WIDTH = QP_COUNT > 1 ? $clog2(QP_COUNT) : 1;
localparam NP_ENTRY_WIDTH = 1 + 24 + 1 + 64 + 16 + 16;
// Longest CNP: Ethernet + 802.1Q + IPv6 + UDP + BTH + 16 reserved + ICRC.
localparam FRAME_BYTES = 98;
localparam BEATS = (FRAME_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam BEAT_WIDTH = $clog2(BEATS + 1);
// ICRC input, state 0 (SPEC.md §6.3): zeros, 00000000 FFFFFFFF (the LRH
// stand-in with the initial register folded in), then the masked region.
localparam CRC_BYTES = 84;
// BUILD registers the ICRC as CRC_SLICES partial sums, one per CRC_BYTES*8
// / CRC_SLICES input bits; CRC adds them (XOR). From state 0 the CRC is
// linear in its input, so the sums add up to the whole. Each stage is a
// few levels of XOR.
localparam CRC_SLICES = 16;
localparam CRC_SLICE_BITS = CRC_BYTES * 8 / CRC_SLICES;
localparam EXTENT_BITS = 15;

// The CNP builder.
localparam [2:0]
    CNP_IDLE = 3'd0,
    CNP_DIVIDE = 3'd1,
    CNP_BUILD = 3'd2,
    CNP_CRC = 3'd3,
    CNP_SEND = 3'd4;

// Illegal parameters stop elaboration: the instance of a module that does
// not exist names the rule (Icarus Verilog 11 has no elaboration $error).
generate
    if (KEEP_WIDTH * 8 != DATA_WIDTH || (DATA_WIDTH != 64 && DATA_WIDTH != 128 && DATA_WIDTH != 256 && DATA_WIDTH != 512)) begin : g_bad_width
        cnp_notify_DATA_WIDTH_must_be_64_128_256_or_512_with_KEEP_WIDTH_DATA_WIDTH_over_8 bad_width();
    end
    if (QP_COUNT < 1 || QP_COUNT > (1 << 24)) begin : g_bad_qp_count
        cnp_notify_QP_COUNT_must_be_1_to_2_pow_24 bad_qp_count();
    end
    if (CRC_SLICE_BITS * CRC_SLICES != CRC_BYTES * 8) begin : g_bad_crc_slices
        cnp_notify_CRC_SLICES_must_divide_the_ICRC_input_bits bad_crc_slices();
    end
endgenerate

reg init_reg = 1'b1, init_next;
reg [QP_INDEX_WIDTH-1:0] init_addr_reg = 0, init_addr_next;

// The event, packed at the input and unpacked at stage B: R holds it while
// its QP's RAM word is read, B while the word is used.
localparam EVT_WIDTH = 64 + QP_INDEX_WIDTH + 1 + 1 + 1 + 12 + 48 + 48 + 128 + 128 + 16 + 1 + 24;
wire [EVT_WIDTH-1:0] s_evt_word = {s_evt_time, s_evt_qp[QP_INDEX_WIDTH-1:0], s_evt_ce, s_evt_ipv6,
    s_evt_vlan_valid, s_evt_vlan_id, s_evt_eth_dst, s_evt_eth_src, s_evt_ip_src, s_evt_ip_dst,
    s_evt_udp_sport, s_evt_src_qp_valid, s_evt_src_qp};
reg                 r_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] r_evt_reg;
wire [QP_INDEX_WIDTH-1:0] r_qp = r_evt_reg[EVT_WIDTH-65 -: QP_INDEX_WIDTH];
wire [63:0]               r_time = r_evt_reg[EVT_WIDTH-1 -: 64];
reg                 b_valid_reg = 1'b0;
reg [EVT_WIDTH-1:0] b_evt_reg;
// The event's tick minus the CNP interval (signed), from R: B's interval
// check is then one comparison with the word's last CNP tick.
reg [64:0]          b_interval_start_reg;
wire [63:0]  b_time;
wire [QP_INDEX_WIDTH-1:0] b_qp;
wire         b_ce;
wire         b_ipv6;
wire         b_vlan_valid;
wire [11:0]  b_vlan_id;
wire [47:0]  b_eth_dst;
wire [47:0]  b_eth_src;
wire [127:0] b_ip_src;
wire [127:0] b_ip_dst;
wire [15:0]  b_udp_sport;
wire         b_src_qp_valid;
wire [23:0]  b_src_qp;
assign {b_time, b_qp, b_ce, b_ipv6, b_vlan_valid, b_vlan_id, b_eth_dst, b_eth_src, b_ip_src, b_ip_dst,
        b_udp_sport, b_src_qp_valid, b_src_qp} = b_evt_reg;
// The RAM word, packed here and unpacked below, nowhere else.
function [NP_ENTRY_WIDTH-1:0] np_entry(
    input        remote_valid,
    input [23:0] remote_qp,
    input        cnp_sent,
    input [63:0] last_cnp,
    input [15:0] pkts,
    input [15:0] ce_pkts
);
    np_entry = {remote_valid, remote_qp, cnp_sent, last_cnp, pkts, ce_pkts};
endfunction

// Per-QP state (qp_rmw_pipe.v): the input reads, R sees the word on
// `entry` (forwarded from the write of the read's cycle) and registers it,
// forwarded again from B's word or W's write (of earlier events); B uses
// it, W writes it back (the instance stands below, after B's words). No
// logic sits between the RAM's output and a register but the forwarding,
// the RAM's word last in it.
wire [NP_ENTRY_WIDTH-1:0] entry;
reg  [NP_ENTRY_WIDTH-1:0] b_entry_reg;
// When B's event sent a CNP for the QP of the event behind it, R forwards
// the word as if it had not (no CNP decision on the path) and these make
// it the sent word at B: the CNP's tick, counts cleared.
reg                      b_fwd_sent_reg = 1'b0;
reg  [63:0]              b_sent_time_reg;
// W: B's event's word, counted or sent (both registered, and the choice),
// written back; the decision's fanout ends in these registers.
reg                      w_valid_reg = 1'b0;
reg [QP_INDEX_WIDTH-1:0] w_qp_reg;
reg                      w_send_reg;
reg  [NP_ENTRY_WIDTH-1:0] w_counted_reg;
reg  [NP_ENTRY_WIDTH-1:0] w_sent_reg;
wire [NP_ENTRY_WIDTH-1:0] w_word = w_send_reg ? w_sent_reg : w_counted_reg;
reg                      wr_en;
reg [QP_INDEX_WIDTH-1:0] wr_addr;
reg [NP_ENTRY_WIDTH-1:0] wr_data;

wire        read_remote_valid;
wire [23:0] read_remote_qp;
wire        read_cnp_sent;
wire [63:0] read_last_cnp;
wire [15:0] read_pkts;
wire [15:0] read_ce_pkts;
assign {read_remote_valid, read_remote_qp, read_cnp_sent, read_last_cnp, read_pkts, read_ce_pkts} = b_entry_reg;
// B's word: as read, or the sent word (the CNP's tick, counts cleared)
// when B's last event sent a CNP for this QP.
wire        entry_remote_valid = read_remote_valid;
wire [23:0] entry_remote_qp = read_remote_qp;
wire        entry_cnp_sent = b_fwd_sent_reg || read_cnp_sent;
wire [63:0] entry_last_cnp = b_fwd_sent_reg ? b_sent_time_reg : read_last_cnp;
wire [15:0] entry_pkts = b_fwd_sent_reg ? 16'd0 : read_pkts;
wire [15:0] entry_ce_pkts = b_fwd_sent_reg ? 16'd0 : read_ce_pkts;

// CNP requests from stage B, queued for the builder: B never waits, and
// the input is held while the events in R and B could overfill the queue.
// A request is packed here and unpacked below, nowhere else.
localparam REQ_WIDTH = 64 + 1 + 1 + 12 + 48 + 48 + 128 + 128 + 16 + 24 + 16 + 16;
localparam REQ_DEPTH = 4;
reg [REQ_WIDTH-1:0] req_mem [0:REQ_DEPTH-1];
reg [1:0]           req_wr_ptr_reg = 2'd0, req_rd_ptr_reg = 2'd0;
reg [2:0]           req_count_reg = 3'd0;
wire [REQ_WIDTH-1:0] req_head = req_mem[req_rd_ptr_reg];
wire [15:0]         req_pkts = req_head[31:16];
wire [15:0]         req_ce_pkts = req_head[15:0];

// The CNP builder's copy of its request.
reg [2:0]   cnp_state_reg = CNP_IDLE, cnp_state_next;
reg [REQ_WIDTH-1:0] cnp_req_reg;
wire [63:0]  cnp_time;
wire         cnp_ipv6;
wire         cnp_vlan_valid;
wire [11:0]  cnp_vlan_id;
wire [47:0]  cnp_eth_dst;
wire [47:0]  cnp_eth_src;
wire [127:0] cnp_ip_src;
wire [127:0] cnp_ip_dst;
wire [15:0]  cnp_udp_sport;
wire [23:0]  cnp_dest_qp;
wire [31:0]  cnp_counts_unused;
assign {cnp_time, cnp_ipv6, cnp_vlan_valid, cnp_vlan_id, cnp_eth_dst, cnp_eth_src, cnp_ip_src, cnp_ip_dst,
        cnp_udp_sport, cnp_dest_qp, cnp_counts_unused} = cnp_req_reg;
reg [15:0]  div_pkts_reg, div_pkts_next;
reg [16:0]  div_rem_reg, div_rem_next;
reg [EXTENT_BITS:0] extent_reg, extent_next;
reg [3:0]   div_step_reg, div_step_next;
reg [FRAME_BYTES*8-1:0] frame_reg, frame_next;
reg [32*CRC_SLICES-1:0] crc_part_reg;
// The IPv4 header checksum's sum of words, registered in BUILD; CRC folds
// it into the frame (the ICRC masks that field, so it need not wait).
reg [19:0]  csum_sum_reg;
reg [6:0]   frame_len_reg, frame_len_next;
reg [BEAT_WIDTH-1:0] beat_reg, beat_next;

wire [32*CRC_SLICES-1:0] crc_part;

reg [31:0] crc_state;
integer crc_slice;
always @* begin
    crc_state = 32'd0;
    for (crc_slice = 0; crc_slice < CRC_SLICES; crc_slice = crc_slice + 1) begin
        crc_state = crc_state ^ crc_part_reg[crc_slice*32 +: 32];
    end
end

// Next-state values of the packet counters: each stops at its own maximum,
// so the CE packet that sends a CNP always counts.
wire [15:0] pkts_new = entry_pkts == 16'hFFFF ? entry_pkts : entry_pkts + 16'd1;
wire [15:0] ce_pkts_new = entry_ce_pkts == 16'hFFFF || !b_ce ? entry_ce_pkts : entry_ce_pkts + 16'd1;
wire        remote_known = b_src_qp_valid || entry_remote_valid;
wire [23:0] remote_qp = b_src_qp_valid ? b_src_qp : entry_remote_qp;
// t - last_cnp >= interval, as last_cnp <= t - interval; for the word as
// read and for the sent word side by side, so that b_fwd_sent_reg selects
// after the comparisons.
wire        read_interval_passed = !read_cnp_sent
    || $signed({1'b0, read_last_cnp}) <= $signed(b_interval_start_reg);
wire        sent_interval_passed = $signed({1'b0, b_sent_time_reg}) <= $signed(b_interval_start_reg);
wire        interval_passed = b_fwd_sent_reg ? sent_interval_passed : read_interval_passed;
wire        send_cnp = b_valid_reg && b_ce && remote_known && interval_passed;
// B's word after its event: counted, or the sent word when send_cnp.
wire [NP_ENTRY_WIDTH-1:0] counted_word = np_entry(entry_remote_valid, entry_remote_qp, entry_cnp_sent, entry_last_cnp,
                                                  pkts_new, ce_pkts_new);
wire [NP_ENTRY_WIDTH-1:0] sent_word = np_entry(entry_remote_valid, entry_remote_qp, 1'b1, b_time, 16'd0, 16'd0);
wire                      fwd_from_b = b_valid_reg && b_qp == r_qp;
wire                      fwd_from_w = w_valid_reg && w_qp_reg == r_qp;

qp_rmw_pipe #(
    .WIDTH(NP_ENTRY_WIDTH),
    .DEPTH(QP_COUNT),
    .ADDR_WIDTH(QP_INDEX_WIDTH)
) state_inst (
    .clk(clk),
    // A reads the input's QP every cycle: R, which never waits, uses the
    // word only after an event was taken, and no logic stands before the
    // block RAM's read enable.
    .rd_en(1'b1),
    .rd_addr(s_evt_qp[QP_INDEX_WIDTH-1:0]),
    .entry(entry),
    // B's word, as counted, or W's being written, if of R's QP: the newer
    // first, and the RAM's word after both.
    .newer_valid(fwd_from_b || fwd_from_w),
    .newer(fwd_from_b ? counted_word : w_word),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data)
);

wire [REQ_WIDTH-1:0] req_in = {b_time, b_ipv6, b_vlan_valid, b_vlan_id, b_eth_dst, b_eth_src, b_ip_src, b_ip_dst,
                               b_udp_sport, remote_qp, pkts_new, ce_pkts_new};
// The builder takes the queue's head when idle (registers only).
wire        req_pop = cnp_state_reg == CNP_IDLE && req_count_reg != 3'd0;
// Room for a request from each event in R and B and from one more.
wire [3:0]  req_claims = {1'b0, req_count_reg} - {3'd0, req_pop} + {3'd0, r_valid_reg} + {3'd0, b_valid_reg};

assign s_qpctx_ready = !init_reg && !r_valid_reg && !b_valid_reg && !w_valid_reg;
assign s_evt_ready = !init_reg && !s_qpctx_valid && req_claims < REQ_DEPTH;
assign busy = init_reg || r_valid_reg || b_valid_reg || w_valid_reg || req_count_reg != 3'd0 || cnp_state_reg != CNP_IDLE;
wire   accept = s_evt_valid && s_evt_ready;
wire   accept_in_range = accept && {8'd0, s_evt_qp} < QP_COUNT;

// Output beats straight from the frame register.
localparam PADDED_BYTES = BEATS * KEEP_WIDTH;
wire [PADDED_BYTES*8-1:0] frame_padded = {{(PADDED_BYTES-FRAME_BYTES)*8{1'b0}}, frame_reg};
localparam [7:0] KEEP_BYTES = KEEP_WIDTH[7:0];
wire [7:0] beat_offset = {{(8-BEAT_WIDTH){1'b0}}, beat_reg} * KEEP_BYTES;
wire [7:0] bytes_left = {1'b0, frame_len_reg} - beat_offset;
assign m_axis_tvalid = cnp_state_reg == CNP_SEND;
assign m_axis_tdata = frame_padded[beat_reg * DATA_WIDTH +: DATA_WIDTH];
assign m_axis_tlast = bytes_left <= KEEP_BYTES;
assign m_axis_tkeep = m_axis_tlast ? ~({KEEP_WIDTH{1'b1}} << bytes_left) : {KEEP_WIDTH{1'b1}};
assign m_axis_tuser = cnp_time;

// Multi-byte header fields in wire order (first byte in bits 7:0).
function [15:0] be16(input [15:0] v);
    be16 = {v[7:0], v[15:8]};
endfunction
function [23:0] be24(input [23:0] v);
    be24 = {v[7:0], v[15:8], v[23:16]};
endfunction
function [47:0] be48(input [47:0] v);
    integer k;
    for (k = 0; k < 6; k = k + 1) be48[k*8 +: 8] = v[(5-k)*8 +: 8];
endfunction
function [127:0] be128(input [127:0] v);
    integer k;
    for (k = 0; k < 16; k = k + 1) be128[k*8 +: 8] = v[(15-k)*8 +: 8];
endfunction
function [31:0] be32(input [31:0] v);
    be32 = {v[7:0], v[15:8], v[23:16], v[31:24]};
endfunction

// Restoring division step of ce * 2^15 / pkts (ce < pkts).
wire [16:0] div_shifted = {div_rem_reg[15:0], 1'b0};
wire        div_fits = div_shifted >= {1'b0, div_pkts_reg};
// The last step: a quotient of 0 becomes 1, as a CNP always follows a CE
// mark and extent 0 means none (SPEC.md §6.3).
wire        div_last = div_step_reg == EXTENT_BITS - 1;
wire        div_bit = div_fits || (div_last && extent_reg[EXTENT_BITS-2:0] == 0);

// The CNP fields (SPEC.md §6.3).
wire [7:0]   tos = {cfg_cnp_dscp, 2'b00};
wire [15:0]  l3_type = cnp_ipv6 ? 16'h86DD : 16'h0800;
wire [127:0] reserved = cfg_metaroce
    ? {96'd0, be16(extent_reg[15:0]), 16'h014D}
    : 128'd0;
wire [95:0]  bth = {32'd0, be24(cnp_dest_qp), 8'h40, 16'hFFFF, 8'h00, OPCODE_CNP};
wire [63:0]  udp = {16'h0000, be16(16'd40), be16(ROCE_UDP_PORT), be16(cnp_udp_sport)};
wire [63:0]  udp_masked = {16'hFFFF, udp[47:0]};
wire [95:0]  bth_masked = {bth[95:40], 8'hFF, bth[31:0]};

// IPv4 header checksum over the ten words (checksum word 0): the sum in
// BUILD, its fold in CRC.
wire [19:0] csum_sum = {4'd0, 8'h45, tos} + 20'h0003C + 20'h04000 + 20'h04011
    + {4'd0, cnp_ip_dst[31:16]} + {4'd0, cnp_ip_dst[15:0]}
    + {4'd0, cnp_ip_src[31:16]} + {4'd0, cnp_ip_src[15:0]};
wire [16:0] csum_once = {1'b0, csum_sum_reg[15:0]} + {13'd0, csum_sum_reg[19:16]};
wire [15:0] ipv4_checksum = ~(csum_once[15:0] + {15'd0, csum_once[16]});

// The checksum field is written in CRC (0 until then).
wire [159:0] ipv4 = {be32(cnp_ip_src[31:0]), be32(cnp_ip_dst[31:0]), 16'd0,
                     8'h11, 8'h40, 16'h0040, 16'h0000, be16(16'd60), tos, 8'h45};
wire [159:0] ipv4_masked = {ipv4[159:96], 16'hFFFF, ipv4[79:72], 8'hFF, ipv4[63:16], 8'hFF, ipv4[7:0]};
wire [319:0] ipv6 = {be128(cnp_ip_src), be128(cnp_ip_dst), 8'h40, 8'h11, be16(16'd40),
                     16'h0000, {tos[3:0], 4'h0}, {4'h6, tos[7:4]}};
wire [319:0] ipv6_masked = {ipv6[319:64], 8'hFF, ipv6[55:32], 24'hFFFFFF, ipv6[7:4], 4'hF};
// Transport: UDP, BTH, reserved (36 bytes).
wire [287:0] transport = {reserved, bth, udp};
wire [287:0] transport_masked = {reserved, bth_masked, udp_masked};
// The ICRC's input (SPEC.md §3.5): the masked headers, an IPv4 CNP's
// shorter one padded with zeros at the front.
wire [CRC_BYTES*8-1:0] crc_data = cnp_ipv6
    ? {transport_masked, ipv6_masked, 32'hFFFFFFFF, 32'd0}
    : {transport_masked, ipv4_masked, 32'hFFFFFFFF, 32'd0, 160'd0};

genvar slice;
generate
    for (slice = 0; slice < CRC_SLICES; slice = slice + 1) begin : g_icrc_slice
        // The slice's own bits, all others zero: its share of the CRC.
        crc32_lfsr #(
            .DATA_WIDTH(CRC_BYTES*8)
        ) icrc_inst (
            .state_in(32'd0),
            .data_in(crc_data & ({{(CRC_BYTES*8-CRC_SLICE_BITS){1'b0}}, {CRC_SLICE_BITS{1'b1}}} << (slice * CRC_SLICE_BITS))),
            .state_out(crc_part[slice*32 +: 32])
        );
    end
endgenerate

wire [111:0] eth = {be16(cnp_vlan_valid ? 16'h8100 : l3_type), be48(cnp_eth_dst), be48(cnp_eth_src)};
wire [31:0]  vlan_tag = {be16(l3_type), be16({cfg_cnp_pcp, 1'b0, cnp_vlan_id})};

// The RAM's writes: the sweep, a context load, W's
// write-back.
always @* begin
    init_next = init_reg;
    init_addr_next = init_addr_reg;
    wr_en = 1'b0;
    wr_addr = w_qp_reg;
    wr_data = {NP_ENTRY_WIDTH{1'b0}};

    if (init_reg) begin
        wr_en = 1'b1;
        wr_addr = init_addr_reg;
        init_addr_next = init_addr_reg + 1;
        if ({{(32-QP_INDEX_WIDTH){1'b0}}, init_addr_reg} == QP_COUNT - 1) begin
            init_next = 1'b0;
        end
    end else if (s_qpctx_valid && s_qpctx_ready) begin
        // Loading a context starts the QP afresh.
        if ({8'd0, s_qpctx_local} < QP_COUNT) begin
            wr_en = 1'b1;
            wr_addr = s_qpctx_local[QP_INDEX_WIDTH-1:0];
            wr_data = np_entry(1'b1, s_qpctx_remote, 1'b0, 64'd0, 16'd0, 16'd0);
        end
    end else if (w_valid_reg) begin
        wr_en = 1'b1;
        wr_data = w_word;
    end
end

// The CNP builder.
always @* begin
    cnp_state_next = cnp_state_reg;
    div_pkts_next = div_pkts_reg;
    div_rem_next = div_rem_reg;
    extent_next = extent_reg;
    div_step_next = div_step_reg;
    frame_next = frame_reg;
    frame_len_next = frame_len_reg;
    beat_next = beat_reg;

    case (cnp_state_reg)
        CNP_IDLE: begin
            if (req_pop) begin
                div_pkts_next = req_pkts;
                div_rem_next = {1'b0, req_ce_pkts};
                div_step_next = 4'd0;
                extent_next = {1'b1, {EXTENT_BITS{1'b0}}};
                if (!cfg_metaroce) begin
                    cnp_state_next = CNP_BUILD;
                end else if (req_ce_pkts == req_pkts) begin
                    // The whole window was CE: exactly 1.0.
                    cnp_state_next = CNP_BUILD;
                end else begin
                    extent_next = 0;
                    cnp_state_next = CNP_DIVIDE;
                end
            end
        end
        CNP_DIVIDE: begin
            extent_next = {extent_reg[EXTENT_BITS-1:0], div_bit};
            div_rem_next = div_fits ? div_shifted - {1'b0, div_pkts_reg} : div_shifted;
            div_step_next = div_step_reg + 1;
            if (div_last) begin
                cnp_state_next = CNP_BUILD;
            end
        end
        CNP_BUILD: begin
            if (cnp_ipv6) begin
                frame_len_next = cnp_vlan_valid ? 7'd98 : 7'd94;
                frame_next = cnp_vlan_valid
                    ? {32'd0, transport, ipv6, vlan_tag, eth}
                    : {64'd0, transport, ipv6, eth};
            end else begin
                frame_len_next = cnp_vlan_valid ? 7'd78 : 7'd74;
                frame_next = cnp_vlan_valid
                    ? {192'd0, transport, ipv4, vlan_tag, eth}
                    : {224'd0, transport, ipv4, eth};
            end
            cnp_state_next = CNP_CRC;
        end
        CNP_CRC: begin
            // The ICRC goes least significant byte first into the last 4 bytes.
            // The IPv4 checksum at IP header bytes 10-11.
            case (frame_len_reg)
                7'd74: begin
                    frame_next[24*8 +: 16] = be16(ipv4_checksum);
                    frame_next[70*8 +: 32] = ~crc_state;
                end
                7'd78: begin
                    frame_next[28*8 +: 16] = be16(ipv4_checksum);
                    frame_next[74*8 +: 32] = ~crc_state;
                end
                7'd94: frame_next[90*8 +: 32] = ~crc_state;
                default: frame_next[94*8 +: 32] = ~crc_state;
            endcase
            beat_next = 0;
            cnp_state_next = CNP_SEND;
        end
        CNP_SEND: begin
            if (m_axis_tready) begin
                beat_next = beat_reg + 1;
                if (m_axis_tlast) begin
                    cnp_state_next = CNP_IDLE;
                end
            end
        end
        default: cnp_state_next = CNP_IDLE;
    endcase
end

always @(posedge clk) begin
    init_reg <= init_next;
    init_addr_reg <= init_addr_next;
    cnp_state_reg <= cnp_state_next;
    div_pkts_reg <= div_pkts_next;
    div_rem_reg <= div_rem_next;
    extent_reg <= extent_next;
    div_step_reg <= div_step_next;
    frame_reg <= frame_next;
    if (cnp_state_reg == CNP_BUILD) begin
        crc_part_reg <= crc_part;
        csum_sum_reg <= csum_sum;
    end
    frame_len_reg <= frame_len_next;
    beat_reg <= beat_next;

    // R takes the event; B takes R's with its word (B's, as counted, or
    // W's being written, if of the same QP: the newer first); W takes B's.
    r_valid_reg <= accept_in_range;
    // R never holds, so its event register loads every cycle (r_valid_reg
    // says whether it holds one): its enables wait for no handshake.
    r_evt_reg <= s_evt_word;
    b_valid_reg <= r_valid_reg;
    b_evt_reg <= r_evt_reg;
    b_interval_start_reg <= {1'b0, r_time} - {33'd0, cfg_cnp_interval};
    b_entry_reg <= entry;
    b_fwd_sent_reg <= fwd_from_b && send_cnp;
    b_sent_time_reg <= b_time;
    w_valid_reg <= b_valid_reg;
    w_qp_reg <= b_qp;
    w_send_reg <= send_cnp;
    w_counted_reg <= counted_word;
    w_sent_reg <= sent_word;

    // The request queue. B's event writes the free slot at the write
    // pointer whether or not it sends (the input's hold keeps one free for
    // it), so only the pointer waits for the CNP decision.
    if (b_valid_reg) begin
        req_mem[req_wr_ptr_reg] <= req_in;
    end
    if (send_cnp) begin
        req_wr_ptr_reg <= req_wr_ptr_reg + 2'd1;
    end
    if (req_pop) begin
        req_rd_ptr_reg <= req_rd_ptr_reg + 2'd1;
        cnp_req_reg <= req_head;
    end
    req_count_reg <= req_count_reg + {2'd0, send_cnp} - {2'd0, req_pop};

    if (rst) begin
        init_reg <= 1'b1;
        init_addr_reg <= 0;
        r_valid_reg <= 1'b0;
        b_valid_reg <= 1'b0;
        b_fwd_sent_reg <= 1'b0;
        w_valid_reg <= 1'b0;
        req_wr_ptr_reg <= 2'd0;
        req_rd_ptr_reg <= 2'd0;
        req_count_reg <= 3'd0;
        cnp_state_reg <= CNP_IDLE;
    end
end

endmodule

`resetall
